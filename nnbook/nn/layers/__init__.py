"""Every layer, one small file per family."""
from .activation import Dropout, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .containers import Concat, ModuleList, Sequential, Sum
from .conv import Conv2d, DepthwiseConv2d
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .norm import BatchNorm1d, BatchNorm2d
from .pooling import AdaptiveAvgPool2d, AvgPool2d, GlobalAvgPool2d, MaxPool2d
from .shape import Flatten, Reshape

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Concat", "Conv2d",
    "CrossEntropyLoss", "DepthwiseConv2d", "Dropout", "Flatten", "GlobalAvgPool2d",
    "Identity", "Linear", "LogSoftmax", "MaxPool2d", "MSELoss", "ModuleList", "NLLLoss",
    "ReLU", "Reshape", "Sequential", "Sigmoid", "Softmax", "Sum", "Tanh",
]
from .recurrent import GRU, LSTM, RNN, RNNBase  # noqa: E402
from .recurrent_cells import GRUCell, LSTMCell, RNNCell  # noqa: E402

__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell"]
