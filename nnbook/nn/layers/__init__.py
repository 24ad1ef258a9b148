"""Every layer, one small file per family."""
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from .containers import Concat, ModuleList, Sequential, Sum
from .conv import Conv2d, DepthwiseConv2d
from .conv1d import Conv1d, ConvTranspose1d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .holders import ModuleDict, ParameterDict, ParameterList
from .lazy_conv import LazyConv2d
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    TripletMarginLoss,
)
from .norm import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    GlobalAvgPool2d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxUnpool1d,
    MaxUnpool2d,
)
from .shape import Flatten, Reshape, Unflatten, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .sparse import Embedding
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    # containers
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Sum", "Concat",
    # linear, convolution, pooling, shapes
    "Identity", "Linear", "LazyLinear", "Bilinear", "Conv1d", "Conv2d", "LazyConv2d",
    "ConvTranspose2d", "DepthwiseConv2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
    "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "GlobalAvgPool2d", "Flatten", "Unflatten",
    "Reshape", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "Embedding",
    # normalisation and dropout
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Dropout1d",
    "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    # activations
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
    "Sigmoid", "Tanh", "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish",
    "Tanhshrink", "LogSigmoid", "Threshold", "Softmax", "Softmin", "LogSoftmax",
    # attention and transformers
    "MultiheadAttention", "NonDynamicallyQuantizableLinear", "TransformerEncoderLayer",
    "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
    # distances and losses
    "CosineSimilarity", "PairwiseDistance", "L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss",
    "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss",
]
from .recurrent import GRU, LSTM, RNN, RNNBase  # noqa: E402
from .recurrent_cells import GRUCell, LSTMCell, RNNCell  # noqa: E402

__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell"]
from .fold import ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold  # noqa: E402
from .normalization import (  # noqa: E402
    InstanceNorm1d,
    InstanceNorm2d,
    LocalResponseNorm,
    RMSNorm,
)
from .padding import (  # noqa: E402
    CircularPad1d,
    CircularPad2d,
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad2d,
)

__all__ += ["Fold", "Unfold", "PixelShuffle", "PixelUnshuffle", "InstanceNorm1d",
            "InstanceNorm2d", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
            "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
            "CircularPad1d", "CircularPad2d", "RMSNorm", "LocalResponseNorm", "GLU",
            "Hardshrink", "Softshrink", "Softmax2d", "ConvTranspose1d", "AdaptiveAvgPool1d",
            "AdaptiveMaxPool1d", "MaxUnpool1d", "MaxUnpool2d"]
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .loss import (  # noqa: E402
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .sparse import EmbeddingBag  # noqa: E402

__all__ += ["SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
            "MultiLabelMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss",
            "TripletMarginWithDistanceLoss", "EmbeddingBag", "CTCLoss",
            "AdaptiveLogSoftmaxWithLoss"]
__all__ += ["ChannelShuffle", "LPPool1d", "LPPool2d", "LPPool3d", "RReLU"]
from .conv import Conv3d  # noqa: E402
from .conv1d import ConvTranspose3d  # noqa: E402
from .lazy_conv import LazyConv3d  # noqa: E402
from .norm import BatchNorm3d  # noqa: E402
from .normalization import InstanceNorm3d  # noqa: E402
from .padding import (  # noqa: E402
    CircularPad3d,
    ConstantPad3d,
    ReflectionPad3d,
    ReplicationPad3d,
    ZeroPad3d,
)
from .pooling import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d  # noqa: E402

# volumes (N, C, D, H, W): video clips, scans
__all__ += ["Conv3d", "ConvTranspose3d", "LazyConv3d", "MaxPool3d", "AvgPool3d",
            "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "BatchNorm3d", "InstanceNorm3d",
            "ZeroPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d",
            "CircularPad3d"]
