"""Mistakes with modules, layers, functional calls and losses.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import numpy as np
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import context, nn
from nnbook.errors import ArgumentError, BackwardError, DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.nn.guard import BuildInForwardError
from nnbook.nn.module import ModuleAttributeError


class Net(nn.Module):
    """A small classifier: 4 features in, 3 class scores out."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


class NoInit(nn.Module):
    """The student forgot super().__init__() (and assigns nothing that would notice)."""

    def __init__(self, hidden=8):
        self.hidden = hidden

    def forward(self, x):
        return x


class CallsFcWrongly(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x, x)  # the student passes the input twice


class BuildsInForward(nn.Module):
    """The layer built in forward."""

    def forward(self, x):
        conv = nn.Conv2d(3, 8, 3)
        return conv(x)


def net_and_input():
    return Net(), nb.randn(5, 4)


def images(*shape):
    return lambda: nb.rand(*shape)


def cnn():
    """conv (3 -> 4 channels, 3x3) on 8x8 images, flattened into a Linear with a wrong size."""
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(100, 10))


def mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(16, 2))


def scores_and_labels():
    return nb.randn(5, 3, requires_grad=True), nb.tensor([0, 2, 1, 1, 0])


LAYERS = [
    mistake("an image batch into Linear without flattening",
            lambda: (nn.Linear(144, 10), nb.randn(2, 4, 6, 6)), lambda mx: mx[0](mx[1]),
            ShapeError, "Linear", r"144 features in its last dimension, got 6",
            r"nn\.Flatten\(\).*\(N, 144\).*Linear\(144, 10\)"),
    mistake("the same, as item 0 of a Sequential",
            lambda: (nn.Sequential(nn.Linear(144, 10)), nb.randn(2, 4, 6, 6)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "0 (Linear)", r"144 features.*got 6.*\(2, 4, 6, 6\)",
            r"nn\.Flatten\(\)"),
    mistake("Flatten gives another size than Linear takes",
            lambda: (cnn(), nb.randn(2, 3, 8, 8)), lambda mx: mx[0](mx[1]),
            ShapeError, "3 (Linear)", r"100 features in its last dimension, got 144",
            r"2 \(Flatten\) outputs 144 features; use Linear\(144, 10\)"),
    mistake("hidden sizes that do not chain", lambda: (mlp(), nb.randn(5, 4)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "2 (Linear)", r"16 features.*got 8",
            r"1 \(ReLU\) outputs 8 features; use Linear\(8, 2\) here, or make 0 \(Linear\)"),
    mistake("one sample without its batch dimension into Linear",
            lambda: (nn.Linear(64, 10), nb.randn(8, 8)), lambda mx: mx[0](mx[1]),
            ShapeError, "Linear", r"64 features.*got 8", r"batch of one.*x\.reshape\(1, -1\)"),
    mistake("too many features", lambda: (nn.Linear(4, 3), nb.randn(5, 7)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "Linear", r"4 features.*got 7", r"Linear\(7, 3\)"),
    mistake("integer data into Linear", lambda: (nn.Linear(4, 3), nb.arange(20).reshape(5, 4)),
            lambda mx: mx[0](mx[1]),
            DTypeError, "Linear, in linear", r"float32 input.*got int64", r"x\.float\(\)"),
    mistake("float64 data into a float32 model", lambda: (nn.Linear(4, 3), nb.randn(5, 4).double()),
            lambda mx: mx[0](mx[1]),
            DTypeError, "Linear, in linear", r"float32 input.*got float64",
            r"x\.float\(\).*model\.double\(\)"),
    mistake("a numpy array into a layer", lambda: nn.Linear(4, 3),
            lambda fc: fc(np.ones((5, 4), np.float32)),
            DTypeError, "Linear, in F.linear", r"input must be an nnbook Tensor, got a numpy "
            r"array of shape \(5, 4\)", r"nb\.tensor\(input\)"),
    mistake("a list into a layer", lambda: nn.Linear(4, 3), lambda fc: fc([1.0, 2.0, 3.0, 4.0]),
            DTypeError, "Linear, in F.linear", r"must be an nnbook Tensor, got a list",
            r"nb\.tensor\(input\)"),
    mistake("Linear with a float size", None, lambda: nn.Linear(4.5, 3),
            InputError, "Linear", r"in_features must be an int >= 0, got 4\.5", r"whole number"),
    mistake("Linear with a negative size", None, lambda: nn.Linear(4, -3),
            InputError, "Linear", r"out_features must be an int >= 0, got -3", r"whole number"),
    mistake("a channels-last image batch into Conv2d",
            lambda: (nn.Conv2d(3, 8, 3), images(2, 32, 30, 3)()), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv2d", r"3 channels, got 32", r"channels-last.*permute\(0, 3, 1, 2\)"),
    mistake("a channels-last image batch into F.conv2d",
            lambda: (nb.randn(8, 3, 3, 3), images(2, 32, 30, 3)()),
            lambda wx: F.conv2d(wx[1], wx[0]),
            ShapeError, "F.conv2d", r"3 channels in dimension 1, got 32",
            r"channels-last.*permute\(0, 3, 1, 2\)"),
    mistake("grey images without their channel dimension",
            lambda: (nn.Conv2d(1, 8, 3), images(5, 28, 27)()), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv2d", r"1 channels, got 5", r"x\.unsqueeze\(1\)"),
    mistake("a 2-D image into Conv2d", lambda: (nn.Conv2d(1, 8, 3), images(28, 27)()),
            lambda mx: mx[0](mx[1]),
            ShapeError, "Conv2d, in conv2d", r"4-D input.*got 2-D with shape \(28, 27\)",
            r"batch dimension"),
    mistake("channels that do not chain",
            lambda: (nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(16, 4, 3)),
                     images(2, 3, 9, 7)()), lambda mx: mx[0](mx[1]),
            ShapeError, "2 (Conv2d)", r"16 channels, got 8",
            r"1 \(ReLU\) outputs 8 channels; use Conv2d\(8, 4, 3\) here, or make 0 \(Conv2d\) "
            r"output 16"),
    mistake("a kernel larger than the image",
            lambda: (nn.Conv2d(3, 4, 5), images(2, 3, 4, 3)()), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv2d, in conv2d", r"kernel spans 5 pixels in height but the padded "
            r"input has only 4", r"too small.*smaller kernel"),
    mistake("a kernel size of 0", None, lambda: nn.Conv2d(3, 8, 0),
            InputError, "Conv2d", r"kernel_size must be an int >= 1.*got 0", r"kernel_size=3"),
    mistake("a kernel size with three numbers", None, lambda: nn.Conv2d(3, 8, (3, 3, 3)),
            InputError, "Conv2d", r"kernel_size.*pair.*\(3, 3, 3\)", r"kernel_size=\(3, 1\)"),
    mistake("groups that do not divide the channels", None, lambda: nn.Conv2d(3, 8, 3, groups=2),
            InputError, "Conv2d", r"groups=2 must divide in_channels \(3\)", r"divid"),
    mistake("padding 'same' with a stride", None,
            lambda: nn.Conv2d(3, 8, 3, stride=2, padding="same"),
            InputError, "Conv2d", r"padding='same' needs stride 1", r"padding=kernel_size // 2"),
    mistake("a misspelt padding mode", None, lambda: nn.Conv2d(3, 8, 3, padding_mode="zero"),
            InputError, "Conv2d", r"padding_mode must be one of.*got 'zero'", r"'zeros'"),
    mistake("a layer on the GPU", None, lambda: nn.Conv2d(3, 8, 3, device="cuda"),
            InputError, "Conv2d", r"CPU only; got device='cuda'", r"device='cpu'"),
    mistake("a 2-D kernel size for Conv1d", None, lambda: nn.Conv1d(3, 8, (3, 3)),
            InputError, "Conv1d", r"kernel_size.*tuple of one.*\(3, 3\)", r"kernel_size=\(3,\)"),
    mistake("images into Conv1d", lambda: (nn.Conv1d(3, 4, 3), nb.randn(2, 3, 8, 8)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "Conv1d, in conv1d", r"2-D or 3-D input \(N, C_in, L\), got 4-D",
            r"reshape"),
    mistake("signals of the wrong channel count into Conv1d",
            lambda: (nn.Conv1d(3, 4, 3), nb.randn(2, 5, 9)), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv1d, in conv1d", r"expects input with 3 channels, got 5",
            r"Conv1d\(5, 4, 3\)"),
    mistake("a stride of 0 for MaxPool1d", None, lambda: nn.MaxPool1d(3, stride=0),
            InputError, "MaxPool1d", r"stride must be an int >= 1.*got 0", r"stride=1"),
    mistake("output_padding as large as the stride",
            lambda: (nb.randn(2, 4, 7, 5), nb.randn(4, 3, 3, 3)),
            lambda mx: F.conv_transpose2d(mx[0], mx[1], stride=2, output_padding=2),
            InputError, "conv_transpose2d", r"output_padding must be smaller than stride",
            r"0 <= output_padding < stride"),
    mistake("uint8 images into Conv2d",
            lambda: (nn.Conv2d(3, 4, 3), nb.tensor(np.zeros((2, 3, 8, 8), np.uint8))),
            lambda mx: mx[0](mx[1]),
            DTypeError, "Conv2d, in conv2d", r"floating point input, got uint8",
            r"x\.float\(\)"),
    mistake("BatchNorm2d on features", lambda: (nn.BatchNorm2d(16), nb.randn(5, 16)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "BatchNorm2d", r"4-D input \(N, C, H, W\), got 2-D", r"BatchNorm1d"),
    mistake("BatchNorm1d with the wrong number of features",
            lambda: (nn.BatchNorm1d(8), nb.randn(5, 10)), lambda mx: mx[0](mx[1]),
            ShapeError, "BatchNorm1d", r"8 channels, got 10", r"BatchNorm1d\(10\)"),
    mistake("channels-last images into BatchNorm2d",
            lambda: (nn.BatchNorm2d(3), images(2, 16, 15, 3)()), lambda mx: mx[0](mx[1]),
            ShapeError, "BatchNorm2d", r"3 channels, got 16", r"permute\(0, 3, 1, 2\)"),
    mistake("BatchNorm in training on a batch of one",
            lambda: (nn.BatchNorm1d(4), nb.randn(1, 4)), lambda mx: mx[0](mx[1]),
            ShapeError, "BatchNorm1d, in batch_norm", r"more than 1 value per channel.*\(1, 4\)",
            r"batch of 2 or more.*model\.eval\(\)"),
    mistake("max pooling a window larger than the image",
            lambda: (nn.MaxPool2d(5), images(2, 3, 4, 3)()), lambda mx: mx[0](mx[1]),
            ShapeError, "MaxPool2d, in max_pool2d", r"does not fit in the 4×3 input",
            r"too small.*smaller kernel_size"),
    mistake("max pooling with padding over half the kernel", lambda: images(2, 3, 8, 7)(),
            lambda x: nn.MaxPool2d(2, padding=2)(x),
            ShapeError, "MaxPool2d, in max_pool2d", r"at most half the kernel size, got padding=2",
            r"padding=1 or less"),
    mistake("Dropout with p above 1", None, lambda: nn.Dropout(1.5),
            InputError, "Dropout", r"p=1\.5 must be a probability between 0 and 1",
            r"p=0\.5 drops half"),
    mistake("Softmax without dim", None, lambda: nn.Softmax(),
            InputError, "Softmax", r"needs dim", r"Softmax\(dim=1\)"),
    mistake("Reshape to the wrong size", lambda: (nn.Reshape(500), nb.randn(2, 512, 1, 1)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "Reshape", r"\(512, 1, 1\) \(512 values\) into \(500,\)",
            r"Reshape\(512\)"),
    mistake("Reshape with a zero", None, lambda: nn.Reshape(0, 4),
            InputError, "Reshape", r"positive ints.*\(0, 4\)", r"Reshape\(512\)"),
    mistake("a layer class instead of a layer", lambda: nn.Linear(4, 3),
            lambda fc: nn.Sequential(fc, nn.ReLU),
            InputError, "Sequential", r"item 1 of Sequential is a type.*parentheses: ReLU",
            r"build the layer: ReLU\(\)"),
    mistake("a list of layers into Sequential", lambda: [nn.Linear(4, 3), nn.ReLU()],
            lambda layers: nn.Sequential(layers),
            InputError, "Sequential", r"item 0 of Sequential is a list", r"Sequential\(\*layers\)"),
    mistake("a Sequential index out of range", lambda: mlp(), lambda model: model[5],
            DimError, "Sequential", r"index 5 is out of range.*3 layer", r"from -3 to 2"),
    mistake("calling a ModuleList", lambda: (nn.ModuleList([nn.Linear(4, 3)]), nb.randn(2, 4)),
            lambda mx: mx[0](mx[1]),
            ModuleAttributeError, "ModuleList", r"only holds layers; it cannot be called",
            r"for layer in self\.layers"),
    mistake("Sum of branches of different shapes",
            lambda: (nn.Sum(nn.Identity(), nn.Conv2d(3, 3, 3)), images(2, 3, 8, 7)()),
            lambda mx: mx[0](mx[1]),
            ShapeError, "Sum", r"different shapes: 0 \(Identity\) gives \(2, 3, 8, 7\), "
            r"1 \(Conv2d\) gives \(2, 3, 6, 5\)",
            r"check the strides and padding of both branches"),
]

MODULES = [
    mistake("model(x, y) when forward takes one input", net_and_input,
            lambda mx: mx[0](mx[1], mx[1]),
            ArgumentError, "Net", r"called with 2 inputs, but Net\.forward\(x\) takes 1 input",
            r"target goes to the loss: loss = loss_fn\(model\(x\), target\)"),
    mistake("model() without its input", lambda: Net(), lambda model: model(),
            ArgumentError, "Net", r"called with 0 inputs.*takes 1 input \(x\)", r"model\(x\)"),
    mistake("a keyword forward does not take", net_and_input,
            lambda mx: mx[0](mx[1], training=True),
            ArgumentError, "Net", r"keyword argument\(s\) training", r"no parameter 'training'"),
    mistake("a Sequential given input and target",
            lambda: (mlp(), nb.randn(5, 4)), lambda mx: mx[0](mx[1], mx[1]),
            ArgumentError, "Sequential", r"2 inputs.*Sequential\.forward\(input\) takes 1",
            r"loss_fn\(model\(input\), target\)"),
    mistake("a layer inside forward given two inputs",
            lambda: (CallsFcWrongly(), nb.randn(5, 4)), lambda mx: mx[0](mx[1]),
            ArgumentError, "fc (Linear)", r"2 inputs.*Linear\.forward\(input\) takes 1",
            r"self\.fc\(input\)", also=CallsFcWrongly.forward),
    mistake("a model with no forward", lambda: (nn.Module(), nb.randn(2, 4)),
            lambda mx: mx[0](mx[1]),
            ModuleAttributeError, "Module", r"no forward\(\) method", r"define forward"),
    mistake("the layer built in forward", lambda: (BuildsInForward(), images(2, 3, 8, 8)()),
            lambda mx: mx[0](mx[1]),
            BuildInForwardError, "BuildsInForward", r"Conv2d\(.*\) was built while "
            r"BuildsInForward\.forward\(\) was running", r"build it once in __init__",
            also=BuildsInForward.forward),
    mistake("a misspelt layer name", lambda: Net(), lambda model: model.fc1,
            ModuleAttributeError, "Net", r"no attribute 'fc1'.*fc \(Linear\)", r"'fc'"),
    mistake("a string assigned over a layer", lambda: Net(),
            lambda model: setattr(model, "fc", "linear"),
            ModuleAttributeError, "Net", r"cannot assign a str to self\.fc.*registered module",
            r"del self\.fc"),
    mistake("a tensor assigned over a parameter", lambda: (nn.Linear(4, 3), nb.randn(3, 4)),
            lambda fw: setattr(fw[0], "weight", fw[1]),
            ModuleAttributeError, "Linear", r"cannot assign a Tensor to self\.weight",
            r"nb\.nn\.Parameter\(value\)"),
    mistake("a buffer name with a dot", lambda: Net(),
            lambda model: model.register_buffer("running.mean", nb.zeros(3)),
            ModuleAttributeError, "Net", r"without '\.'.*'running\.mean'", r"underscore"),
    mistake("a list registered as a buffer", lambda: Net(),
            lambda model: model.register_buffer("counts", [0, 0, 0]),
            ModuleAttributeError, "Net", r"cannot assign a list to self\.counts.*buffer",
            r"nb\.tensor\(value\)"),
    mistake("add_module of something that is not a layer", lambda: Net(),
            lambda model: model.add_module("act", "relu"),
            ModuleAttributeError, "Net", r"cannot assign a str to self\.act", r"nb\.nn\.Linear"),
    mistake("get_submodule of a path that does not exist", lambda: mlp(),
            lambda model: model.get_submodule("3"),
            ModuleAttributeError, "Sequential", r"no submodule '3'", r"named_modules\(\)"),
    mistake("a parameter of integers", None, lambda: nn.Parameter(nb.arange(4)),
            DTypeError, "nb.nn.Parameter", r"only floating point.*int64", r"\.float\(\)"),
    mistake("a model on the GPU", lambda: Net(), lambda model: model.to("cuda"),
            InputError, "Net.to", r"CPU only.*'cuda'", r"cuda\.is_available\(\)"),
    mistake("model.cuda()", lambda: Net(), lambda model: model.cuda(),
            InputError, "Net.cuda", r"CPU only", r"cuda\.is_available\(\)"),
    mistake("a model of integers", lambda: Net(), lambda model: model.to(nb.int64),
            DTypeError, "Net.to", r"must stay floating point; got dtype int64", r"nb\.float64"),
    mistake("a dtype name as a string", lambda: Net(), lambda model: model.to("float64"),
            InputError, "Net.to", r"unknown device type 'float64'", r"x\.to\(nb\.float64\)"),
]

NO_SUPER_INIT = [
    mistake(f"{what} without super().__init__()", NoInit, act,
            ModuleAttributeError, "NoInit",
            r"NoInit\.__init__ did not call super\(\)\.__init__\(\)",
            r"add super\(\)\.__init__\(\) as the first line of NoInit\.__init__")
    for what, act in [
        ("parameters()", lambda m: list(m.parameters())),
        ("named_parameters()", lambda m: dict(m.named_parameters())),
        ("buffers()", lambda m: list(m.buffers())),
        ("state_dict()", lambda m: m.state_dict()),
        ("load_state_dict()", lambda m: m.load_state_dict({})),
        ("to()", lambda m: m.to(nb.float64)),
        ("double()", lambda m: m.double()),
        ("cpu()", lambda m: m.cpu()),
        ("train()", lambda m: m.train()),
        ("eval()", lambda m: m.eval()),
        ("zero_grad()", lambda m: m.zero_grad()),
        ("requires_grad_()", lambda m: m.requires_grad_(False)),
        ("calling it", lambda m: m(nb.zeros(2, 4))),
        ("repr()", lambda m: repr(m)),
        ("children()", lambda m: list(m.children())),
        ("named_children()", lambda m: list(m.named_children())),
        ("modules()", lambda m: list(m.modules())),
        ("named_modules()", lambda m: list(m.named_modules())),
        ("apply()", lambda m: m.apply(print)),
        ("get_submodule()", lambda m: m.get_submodule("fc")),
        ("an optimizer over its parameters", lambda m: nb.optim.SGD(m.parameters(), lr=0.1)),
        ("nb.summary", lambda m: nb.summary(m, (2, 4))),
    ]
] + [
    mistake("assigning a layer before super().__init__()", NoInit,
            lambda m: setattr(m, "act", nn.ReLU()),
            ModuleAttributeError, "NoInit.__init__", r"self\.act = ReLU\(\.\.\.\) came before "
            r"super\(\)\.__init__\(\)", r"call super\(\)\.__init__\(\) first in NoInit\.__init__"),
    mistake("register_buffer() before super().__init__()", NoInit,
            lambda m: m.register_buffer("mask", nb.ones(3)),
            ModuleAttributeError, "NoInit.__init__", r"register_buffer\('mask', \.\.\.\) came "
            r"before super\(\)\.__init__\(\)", r"call super\(\)\.__init__\(\) first"),
    mistake("a layer without super().__init__() in a Sequential", NoInit,
            lambda m: nn.Sequential(m),
            ModuleAttributeError, "Sequential", r"the NoInit assigned to self\.0 was never "
            r"initialised", r"add super\(\)\.__init__\(\) as the first line of NoInit\.__init__"),
]

LOSSES = [
    mistake("cross_entropy with its arguments swapped", scores_and_labels,
            lambda sl: F.cross_entropy(sl[1], sl[0]),
            DTypeError, "cross_entropy", r"float class scores as input and integer class "
            r"indices as target, got an int64 input and a float32 target",
            r"these look swapped.*F\.cross_entropy\(scores, labels\)"),
    mistake("CrossEntropyLoss with its arguments swapped",
            lambda: (nn.CrossEntropyLoss(), *scores_and_labels()),
            lambda lsl: lsl[0](lsl[2], lsl[1]),
            DTypeError, "CrossEntropyLoss, in cross_entropy", r"int64 input and a float32 target",
            r"these look swapped"),
    mistake("nll_loss with its arguments swapped", scores_and_labels,
            lambda sl: F.nll_loss(sl[1], sl[0]),
            DTypeError, "nll_loss", r"int64 input and a float32 target",
            r"F\.nll_loss\(scores, labels\)"),
    mistake("float labels, swapped", lambda: (nb.randn(5, 3), nb.tensor([0.0, 2, 1, 1, 0])),
            lambda sl: F.cross_entropy(sl[1], sl[0]),
            DTypeError, "cross_entropy", r"float32 of shape \(5, 3\), one dimension more",
            r"these look swapped"),
    mistake("float labels", lambda: (nb.randn(5, 3), nb.tensor([0.0, 2, 1, 1, 0])),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            DTypeError, "cross_entropy", r"class indices as integers, got float32",
            r"target\.long\(\)"),
    mistake("one-hot labels",
            lambda: (nb.randn(5, 3), nb.tensor(np.eye(3, dtype=np.int64)[[0, 2, 1, 1, 0]])),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            ShapeError, "cross_entropy", r"target of shape \(5,\).*got \(5, 3\)",
            r"one-hot.*target\.argmax\(1\)"),
    mistake("labels of shape (N, 1)", lambda: (nb.randn(5, 3), nb.zeros(5, 1, dtype=nb.int64)),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            ShapeError, "cross_entropy", r"target of shape \(5,\).*got \(5, 1\)",
            r"target\.reshape\(5,\)"),
    mistake("labels that count from 1", lambda: (nb.randn(5, 3), nb.tensor([1, 2, 3, 1, 2])),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            DimError, "cross_entropy",
            r"target value 3 at position 2 is out of range for 3 classes",
            r"count from 1; use target - 1"),
    mistake("a batch and labels of different lengths",
            lambda: (nb.randn(5, 3), nb.tensor([0, 1, 2, 1])),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            ShapeError, "cross_entropy", r"input has 5 samples but target has 4",
            r"same first dimension"),
    mistake("a misspelt reduction", scores_and_labels,
            lambda sl: F.cross_entropy(sl[0], sl[1], reduction="average"),
            InputError, "cross_entropy", r"reduction='average' is not one of", r"'mean'"),
    mistake("a misspelt reduction in the layer", None, lambda: nn.MSELoss(reduction="avg"),
            InputError, "MSELoss", r"reduction='avg' is not one of", r"'mean'"),
    mistake("label smoothing above 1", scores_and_labels,
            lambda sl: F.cross_entropy(sl[0], sl[1], label_smoothing=1.5),
            InputError, "cross_entropy", r"label_smoothing=1\.5", r"0\.1"),
    mistake("mse_loss of (N, 1) against (N,)", lambda: (nb.randn(5, 1), nb.randn(5)),
            lambda pt: F.mse_loss(pt[0], pt[1]),
            ShapeError, "mse_loss", r"same shape, got \(5, 1\) and \(5,\).*\(5, 5\)",
            r"input\.squeeze\(-1\)"),
    mistake("mse_loss against integer targets", lambda: (nb.randn(5), nb.arange(5)),
            lambda pt: F.mse_loss(pt[0], pt[1]),
            DTypeError, "mse_loss", r"floating point target, got int64", r"target\.float\(\)"),
    mistake("mse_loss against a list", lambda: nb.randn(3),
            lambda p: F.mse_loss(p, [1.0, 2.0, 3.0]),
            DTypeError, "F.mse_loss", r"target must be an nnbook Tensor or a numpy array, "
            r"got a list", r"nb\.tensor\(target\)"),
    mistake("backward of an unreduced loss", scores_and_labels,
            lambda sl: F.cross_entropy(sl[0], sl[1], reduction="none").backward(),
            BackwardError, "Tensor.backward", r"one element.*\(5,\)",
            r"y\.sum\(\)\.backward\(\)"),
    mistake("one_hot of float labels", lambda: nb.tensor([0.0, 2.0, 1.0]),
            lambda y: F.one_hot(y, num_classes=3),
            DTypeError, "one_hot", r"class indices of dtype int64, got float32",
            r"F\.one_hot\(y\.long\(\), num_classes\)"),
    mistake("one_hot with too few classes", lambda: nb.tensor([0, 3, 1]),
            lambda y: F.one_hot(y, num_classes=3),
            InputError, "one_hot", r"smaller than num_classes=3.*largest label 3",
            r"at least 4"),
    mistake("one_hot of labels counted from -1", lambda: nb.tensor([-1, 0, 1]),
            lambda y: F.one_hot(y),
            InputError, "one_hot", r"must not be negative.*smallest label -1",
            r"labels count from 0"),
    mistake("softmax without dim", lambda: nb.randn(5, 3), lambda x: F.softmax(x),
            InputError, "F.softmax", r"dim must be given", r"dim=1"),
    mistake("log_softmax over a dim that does not exist", lambda: nb.randn(5, 3),
            lambda x: F.log_softmax(x, dim=2),
            DimError, "log_softmax", r"dim=2 is out of range", r"between -2 and 1"),
    mistake("F.linear with a transposed weight", lambda: (nb.randn(5, 4), nb.randn(4, 3)),
            lambda xw: F.linear(xw[0], xw[1]),
            ShapeError, "linear", r"3 features.*got 4", r"looks transposed.*weight\.T"),
    mistake("F.pad with a single number", lambda: nb.randn(2, 3), lambda x: F.pad(x, 1),
            InputError, "F.pad", r"pad must be a tuple of ints, got 1", r"pad=\(1, 1\)"),
    mistake("reflect padding wider than the input", lambda: nb.randn(1, 2, 3),
            lambda x: F.pad(x, (3, 3), mode="reflect"),
            InputError, "F.pad", r"smaller than the dimension.*\(3, 3\).*size 3",
            r"mode='replicate'"),
    mistake("dropout with a negative p", lambda: nb.randn(5, 3),
            lambda x: F.dropout(x, p=-0.1),
            InputError, "dropout", r"p=-0\.1 must be a probability between 0 and 1",
            r"p=0\.5 drops half"),
]


def trained_net():
    """Net with gradients, as after loss.backward()."""
    model = Net()
    model(nb.randn(5, 4)).sum().backward()
    return model


def shape_of(module, args, output):  # a forward hook
    print(output.shape)


UTILITIES = [
    mistake("clip_grad_norm_ given the model instead of its parameters", trained_net,
            lambda model: nn.utils.clip_grad_norm_(model, 1.0),
            ArgumentError, "nn.utils.clip_grad_norm_", r"expects parameters.*got Net",
            r"model\.parameters\(\)"),
    mistake("a vector of the wrong length into vector_to_parameters", Net,
            lambda model: nn.utils.vector_to_parameters(nb.zeros(12), model.parameters()),
            ShapeError, "nn.utils.vector_to_parameters", r"1-D vector of 15 values.*\(12,\)",
            r"parameters_to_vector"),
    mistake("eye_ on a convolution weight", lambda: nn.Conv2d(3, 3, 3),
            lambda conv: nn.init.eye_(conv.weight),
            InputError, "nn.init.eye_", r"2-D tensor, got shape \(3, 3, 3, 3\)", r"dirac_"),
    mistake("a hook's result registered instead of the hook", Net,
            lambda model: model.register_forward_hook(shape_of(model, None, nb.zeros(2))),
            ArgumentError, "Net.register_forward_hook", r"needs a function to call, got "
            r"NoneType", r"pass the function itself"),
    mistake("LazyConv2d with groups that do not divide the input's channels",
            lambda: (nn.LazyConv2d(4, 3, groups=2), nb.randn(2, 5, 7, 9)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "LazyConv2d", r"groups=2 must divide the input's 5 channels",
            r"pick groups dividing"),
]

MISTAKES = LAYERS + MODULES + NO_SUPER_INIT + LOSSES + UTILITIES


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)


# -- model(x, y): only the call itself is translated ---------------------------------------

def one_argument(x):
    return x


class TypeErrorInsideForward(nn.Module):
    def forward(self, x):
        return one_argument(x, x)  # Python's TypeError, raised inside forward


class AnyInputs(nn.Module):
    def forward(self, *inputs, **options):
        return inputs[0]


@pytest.mark.parametrize("watched", [False, True], ids=["plain", "under infer_shapes"])
def test_a_type_error_raised_inside_forward_stays_pythons(watched):
    """Only a call that does not fit forward's signature becomes an ArgumentError; a
    TypeError from the code inside forward is the user's own bug, shown as Python gives it."""
    model, x = TypeErrorInsideForward(), nb.randn(2, 4)
    with pytest.raises(TypeError) as info:
        if watched:
            nb.infer_shapes(model, (2, 4))
        else:
            model(x)
    assert not isinstance(info.value, nb.NnbookError)
    assert "one_argument() takes 1 positional argument but 2 were given" in str(info.value)
    assert context.module_stack == []


def test_a_forward_that_takes_anything_is_called_as_given():
    x = nb.randn(2, 4)
    assert AnyInputs()(x, x, scale=2) is x


def test_the_wrong_call_is_found_under_shape_inference_too():
    trace = nb.infer_shapes(Net(), [(2, 4), (2, 4)])
    assert isinstance(trace.error, ArgumentError)
    assert "Net.forward(x) takes 1 input (x)" in str(trace.error)
