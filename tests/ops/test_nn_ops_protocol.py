"""The op protocol for softmax, the losses, batch, instance and RMS norm, dropout, unfold
and fold, the shrinks, conv_transpose1d, the adaptive 1-D pools, max pooling with indices,
max unpooling, resizing, rrelu, the spatial transformer's affine_grid and grid_sample, and
the 3-D convolutions and pools (nnbook/ops/base.py):
arguments are checked once, when the op is built; the shape rule stores nothing; an
op whose backward reads its output refuses an in-place change to it."""
import numpy as np
import pytest
from shared import changed_in_place_is_caught_or_harmless

import nnbook as nb
import nnbook.nn.functional as F
from nnbook import nn
from nnbook.errors import BackwardError, InputError
from nnbook.ops.activations import Hardshrink, Rrelu, Softshrink
from nnbook.ops.base import Spec
from nnbook.ops.dropout import Dropout
from nnbook.ops.embedding_bag import EmbeddingBag
from nnbook.ops.interpolate import Interpolate
from nnbook.ops.losses import CrossEntropy, MseLoss, NllLoss
from nnbook.ops.margin_losses import MultilabelMarginLoss, MultiMarginLoss
from nnbook.ops.norm import BatchNorm, InstanceNorm, RMSNorm
from nnbook.ops.onedim import (
    AdaptiveAvgPool1d,
    AdaptiveMaxPool1d,
    ConvTranspose1d,
    MaxPool1d,
    MaxUnpool1d,
)
from nnbook.ops.pool import MaxPool2d
from nnbook.ops.sampling import AffineGrid, GridSample
from nnbook.ops.softmax import LogSoftmax, Softmax
from nnbook.ops.threedim import (
    AdaptiveAvgPool3d,
    AdaptiveMaxPool3d,
    AvgPool3d,
    Conv3d,
    ConvTranspose3d,
    MaxPool3d,
)
from nnbook.ops.unfold import Fold, Unfold
from nnbook.ops.unpool import MaxUnpool2d
from nnbook.tensor import apply

# (op, input specs): every op named in the docstring, with odd, non-square shapes
OPS = [
    (lambda: Softmax(1), [((3, 5, 4), np.float64)]),
    (lambda: LogSoftmax(-1), [((7, 5), np.float32)]),
    (lambda: NllLoss(np.ones(5), reduction="none"), [((3, 5, 4), np.float64),
                                                     ((3, 4), np.int64)]),
    (lambda: CrossEntropy(label_smoothing=0.1), [((7, 5), np.float64), ((7,), np.int64)]),
    (lambda: CrossEntropy(), [((3, 5, 4), np.float64), ((3, 5, 4), np.float64)]),
    (lambda: MseLoss("sum"), [((7, 5), np.float64)] * 3),
    (lambda: MultiMarginLoss(2, 0.5, np.ones(5), "none"), [((7, 5), np.float64),
                                                          ((7,), np.int64)]),
    (lambda: MultilabelMarginLoss("sum"), [((7, 5), np.float64), ((7, 5), np.int64)]),
    (lambda: EmbeddingBag(np.array([0, 3, 3]), "sum", 2),
     [((7,), np.int64), ((5, 3), np.float64), ((7,), np.float64)]),
    (lambda: EmbeddingBag(None, "max"), [((3, 7), np.int64), ((5, 3), np.float64)]),
    (lambda: BatchNorm(True, None, 1e-5, np.zeros(5), np.ones(5), np.array(0)),
     [((3, 5, 4), np.float64), ((5,), np.float64), ((5,), np.float64)]),
    (lambda: BatchNorm(False, 0.1, 1e-5, np.zeros(5), np.ones(5)), [((7, 5), np.float32)]),
    (lambda: Dropout(np.random.default_rng(5), 0.3), [((7, 5), np.float64)]),
    (lambda: Unfold((3, 2), 1, (1, 0), (2, 1)), [((2, 3, 7, 5), np.float64)]),
    (lambda: Fold((7, 5), (3, 2), 1, 0, (2, 1)), [((2, 18, 12), np.float64)]),
    (lambda: InstanceNorm(1e-5, 0.1, np.zeros(3), np.ones(3)),
     [((2, 3, 7, 5), np.float64), ((3,), np.float64), ((3,), np.float64)]),
    (lambda: RMSNorm((7, 5)), [((3, 7, 5), np.float64), ((7, 5), np.float64)]),
    (lambda: Hardshrink(0.3), [((7, 5), np.float64)]),
    (lambda: Softshrink(0.3), [((7, 5), np.float32)]),
    (lambda: AdaptiveAvgPool1d(4), [((2, 3, 7), np.float64)]),
    (lambda: AdaptiveMaxPool1d(4), [((2, 3, 7), np.float64)]),
    (lambda: ConvTranspose1d(2, 1, 1, 2), [((2, 4, 7), np.float64), ((4, 3, 3), np.float64),
                                           ((6,), np.float64)]),
    (lambda: MaxPool2d((3, 2), (2, 1), 1, return_indices=True), [((2, 3, 7, 5), np.float64)]),
    (lambda: MaxPool1d(3, 2, return_indices=True), [((2, 3, 11), np.float32)]),
    (lambda: MaxUnpool2d((3, 2), (2, 1), 1, (7, 5)), [((2, 3, 4, 6), np.float64),
                                                      ((2, 3, 4, 6), np.int64)]),
    (lambda: MaxUnpool1d(3, 2), [((2, 3, 5), np.float64), ((2, 3, 5), np.int64)]),
    (lambda: Interpolate((9, 4), None, "bicubic", True), [((2, 3, 7, 5), np.float64)]),
    (lambda: Interpolate(None, 1.7, "area", None, True), [((2, 3, 7), np.float32)]),
    (lambda: Rrelu(np.random.default_rng(5), 0.1, 0.3, True), [((7, 5), np.float64)]),
    (lambda: AffineGrid((2, 3, 4, 6), False), [((2, 2, 3), np.float64)]),
    (lambda: GridSample("bicubic", "reflection", True), [((2, 3, 7, 5), np.float64),
                                                          ((2, 4, 6, 2), np.float64)]),
    (lambda: Interpolate((4, 9, 3), None, "trilinear"), [((2, 3, 5, 7, 4), np.float64)]),
    (lambda: Conv3d((2, 1, 1), 1, (1, 2, 1), 3), [((2, 3, 5, 7, 4), np.float64),
                                                  ((6, 1, 3, 2, 1), np.float64),
                                                  ((6,), np.float64)]),
    (lambda: ConvTranspose3d(2, 1, 1, 3), [((2, 3, 5, 7, 4), np.float64),
                                           ((3, 2, 3, 2, 1), np.float64)]),
    (lambda: MaxPool3d((3, 2, 1), (2, 1, 1), (1, 1, 0), return_indices=True),
     [((3, 5, 7, 4), np.float64)]),
    (lambda: AvgPool3d(2, None, 1, True, False), [((2, 3, 5, 7, 4), np.float32)]),
    (lambda: AdaptiveAvgPool3d((2, None, 3)), [((2, 3, 5, 7, 4), np.float64)]),
    (lambda: AdaptiveMaxPool3d((2, 3, 3)), [((2, 3, 5, 7, 4), np.float64)]),
]


@pytest.mark.parametrize("make,specs", OPS)
def test_the_shape_rule_stores_nothing_on_the_op(make, specs):
    op = make()
    before = dict(vars(op))
    op.infer(*[Spec(shape, dtype) for shape, dtype in specs])
    assert vars(op).keys() == before.keys()
    assert all(vars(op)[k] is before[k] for k in before)


@pytest.mark.parametrize("build,message", [
    (lambda: NllLoss(reduction="avg"), r"reduction='avg' is not one of 'none', 'mean', 'sum'"),
    (lambda: MseLoss(reduction=None), r"reduction=None is not one of"),
    (lambda: MultiMarginLoss(p=3), r"p must be 1 or 2, got 3"),
    (lambda: MultiMarginLoss(margin="wide"), r"margin must be a number, got 'wide'"),
    (lambda: MultilabelMarginLoss("avg"), r"reduction='avg' is not one of"),
    (lambda: EmbeddingBag(mode="avg"), r"mode='avg' is not one of 'sum', 'mean', 'max'"),
    (lambda: EmbeddingBag(mode="max", scale_grad_by_freq=True), r"max mode does not support"),
    (lambda: NllLoss(ignore_index=1.5), r"ignore_index must be an int, got 1.5"),
    (lambda: CrossEntropy(label_smoothing=1.2), r"label_smoothing=1.2 must be a number between"),
    (lambda: BatchNorm(True, 0.1, -1e-3), r"eps=-0.001 must be a number >= 0"),
    (lambda: BatchNorm(True, "fast"), r"momentum='fast' must be a float or None"),
    (lambda: BatchNorm(False), r"evaluation mode needs running_mean and running_var"),
    (lambda: Dropout(np.random.default_rng(0), 1.5), r"p=1.5 must be a probability"),
    (lambda: Unfold((3, 2, 1)), r"kernel_size must be an int or a pair of ints"),
    (lambda: Fold(7.5, 3), r"output_size must be an int or a pair of ints"),
    (lambda: InstanceNorm(-1.0), r"eps=-1.0 must be a number >= 0"),
    (lambda: InstanceNorm(1e-5, "fast", np.zeros(3), np.ones(3)), r"momentum='fast' must be"),
    (lambda: RMSNorm((5,), eps="small"), r"eps='small' must be a number >= 0"),
    (lambda: Hardshrink("half"), r"lambd must be a number, got 'half'"),
    (lambda: ConvTranspose1d(stride=(2, 2)), r"stride must be an int or a tuple of one"),
    (lambda: AdaptiveMaxPool1d(None), r"output_size must be an int or a tuple of one"),
    (lambda: Rrelu(None, 0.5, 0.1), r"lower=0.5 must be at most upper=0.1"),
    (lambda: AffineGrid((2, 3, 4)), r"\(N, C, H, W\) for an image .* got 3 numbers"),
    (lambda: GridSample("trilinear"), r"mode='trilinear' is not one of"),
    (lambda: GridSample(padding_mode="circular"), r"padding_mode='circular' is not one of"),
    (lambda: Conv3d(stride=(2, 1)), r"stride must be an int or a triple of ints \(d, h, w\)"),
    (lambda: Conv3d(padding=(1, 1)), r"padding must be an int or a triple of ints"),
    (lambda: Conv3d(groups=1.5), r"groups must be an int, got 1.5"),
    (lambda: ConvTranspose3d(output_padding=(1, 0)), r"output_padding must be an int or a "
                                                     r"triple"),
    (lambda: MaxPool3d((2, 2)), r"kernel_size must be an int or a triple of ints"),
    (lambda: AvgPool3d(2, divisor_override=0), r"divisor_override must be a nonzero int"),
    (lambda: AdaptiveAvgPool3d((2, 2)), r"output_size must be an int or a triple of ints"),
])
def test_bad_arguments_are_refused_when_the_op_is_built(build, message):
    with pytest.raises(InputError, match=message):
        build()


def test_class_weights_of_the_wrong_kind_are_refused_when_the_op_is_built():
    with pytest.raises(TypeError, match=r"weight must hold numbers, got dtype str32"):
        NllLoss(np.array(["a", "b"]))


@pytest.mark.parametrize("layer,function", [
    (lambda: nn.Dropout(1.5), lambda x: F.dropout(x, 1.5)),
    (lambda: nn.MSELoss(reduction="avg"), lambda x: F.mse_loss(x, x, reduction="avg")),
    (lambda: nn.MultiMarginLoss(p=3), lambda x: F.multi_margin_loss(x, nb.tensor([0, 1, 0]), 3)),
    (lambda: nn.EmbeddingBag(5, 2, mode="avg"),
     lambda x: F.embedding_bag(nb.tensor([[0, 1]]), x, mode="avg")),
    (lambda: nn.CrossEntropyLoss(reduction="avg"),
     lambda x: F.cross_entropy(x, nb.tensor([0, 1, 0]), reduction="avg")),
])
def test_a_layer_and_its_function_refuse_an_argument_in_the_same_words(layer, function):
    x = nb.randn(3, 2, dtype=np.float64)
    with pytest.raises(InputError) as by_layer:
        layer()
    with pytest.raises(InputError) as by_function:
        function(x)
    assert str(by_layer.value).split(": ", 1)[1].splitlines()[0] == \
        str(by_function.value).split(": ", 1)[1].splitlines()[0]


@pytest.mark.parametrize("fn", [lambda x: F.softmax(x, dim=1), lambda x: F.log_softmax(x, 1)])
def test_changing_a_softmax_output_in_place_stops_the_backward(fn):
    x = nb.tensor(np.random.default_rng(7).standard_normal((7, 5)), requires_grad=True)
    y = fn(x)
    loss = (y * y).sum()
    with nb.no_grad():
        y.mul_(2)
    with pytest.raises(BackwardError, match="changed in place"):
        loss.backward()


def test_weighted_mse_gradient_survives_an_in_place_change_of_the_loss():
    rng = np.random.default_rng(11)
    x, t = nb.tensor(rng.standard_normal((7, 5))), nb.tensor(rng.standard_normal((7, 5)))
    w = nb.tensor(rng.random((7, 5)) + 0.5, requires_grad=True)
    F.mse_loss(x, t, weight=w).backward()
    expected = w.grad.numpy() * 3
    w.grad = None
    loss = F.mse_loss(x, t, weight=w)
    loss *= 3  # recorded; d(3 L)/dw = 3 dL/dw whatever the loss now holds
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("make,specs", OPS)
def test_a_value_changed_in_place_after_the_op_never_gives_a_wrong_gradient(make, specs):
    rng = np.random.default_rng(12)
    arrays = [rng.integers(0, 5, shape) if dtype == np.int64 else  # 5 classes in each
              rng.standard_normal(shape).astype(dtype) for shape, dtype in specs]
    changed_in_place_is_caught_or_harmless(lambda *t: apply(make(), *t), arrays)
