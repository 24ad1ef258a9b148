"""Every layer, one small file per family."""
from .activation import Dropout, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .containers import Concat, ModuleList, Sequential, Sum
from .conv import Conv2d, DepthwiseConv2d
from .conv1d import Conv1d, ConvTranspose2d
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .norm import BatchNorm1d, BatchNorm2d
from .pooling import (AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
                      GlobalAvgPool2d, MaxPool1d, MaxPool2d)
from .shape import Flatten, Reshape

__all__ = [
    "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "BatchNorm1d",
    "BatchNorm2d", "Concat", "Conv1d", "Conv2d", "ConvTranspose2d", "CrossEntropyLoss",
    "DepthwiseConv2d", "Dropout", "Flatten", "GlobalAvgPool2d", "Identity", "Linear",
    "LogSoftmax", "MaxPool1d", "MaxPool2d", "MSELoss", "ModuleList", "NLLLoss", "ReLU",
    "Reshape", "Sequential", "Sigmoid", "Softmax", "Sum", "Tanh",
]
