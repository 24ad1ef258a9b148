"""F.conv1d / nn.Conv1d, F.max_pool1d / nn.MaxPool1d and F.avg_pool1d / nn.AvgPool1d
against PyTorch in float64 on odd lengths: outputs, every gradient, state_dict keys,
default initialisation's bounds, reprs; and gradcheck of the reference ops.
(The oracle: required in CI, skipped without torch locally.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from like_pytorch import agree, both  # noqa: E402

tF = torch.nn.functional

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError, ShapeError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

CONV_CASES = [  # (C_in, C_out, k, L, keyword arguments)
    (3, 5, 3, 11, dict()),
    (4, 6, 3, 13, dict(stride=2, padding=1, dilation=2, groups=2)),
    (3, 3, 2, 7, dict(padding="same", dilation=3)),
    (3, 6, 4, 9, dict(padding="valid", groups=3)),
    (5, 2, 5, 7, dict(stride=3, padding=(2,))),
]


@pytest.mark.parametrize("c_in,c_out,k,length,kw", CONV_CASES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning")  # PyTorch's own note
def test_conv1d_like_pytorch(rng, c_in, c_out, k, length, kw, batched):
    x_shape = (2, c_in, length) if batched else (c_in, length)
    groups = kw.get("groups", 1)
    ours, theirs = both(rng, x_shape, (c_out, c_in // groups, k), (c_out,))
    agree(F.conv1d(*ours, **kw), tF.conv1d(*theirs, **kw), rng, ours, theirs)


@pytest.mark.parametrize("c_in,c_out,k,length,kw", CONV_CASES[:3])
def test_conv1d_gradcheck(rng, c_in, c_out, k, length, kw):
    groups = kw.get("groups", 1)
    (x, w, b), _ = both(rng, (2, c_in, length), (c_out, c_in // groups, k), (c_out,))
    assert nb.gradcheck(lambda x, w, b: F.conv1d(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv1d_layer_like_pytorch(rng, mode):
    ours = nn.Conv1d(3, 5, 3, stride=2, padding=2, padding_mode=mode, dtype=nb.float64)
    theirs = torch.nn.Conv1d(3, 5, 3, stride=2, padding=2, padding_mode=mode,
                             dtype=torch.float64)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    (x,), (xt,) = both(rng, (2, 3, 9))
    agree(ours(x), theirs(xt), rng, [x, ours.weight, ours.bias],
          [xt, theirs.weight, theirs.bias])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("k, dilation", [(4, 1), (3, 2)])
def test_conv1d_same_padding_of_any_mode_like_pytorch(rng, mode, k, dilation):
    ours = nn.Conv1d(3, 5, k, padding="same", dilation=dilation, padding_mode=mode,
                     dtype=nb.float64)
    theirs = torch.nn.Conv1d(3, 5, k, padding="same", dilation=dilation, padding_mode=mode,
                             dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    (x,), (xt,) = both(rng, (2, 3, 9))
    assert ours(x).shape == (2, 5, 9)
    agree(ours(x), theirs(xt), rng, [x, ours.weight, ours.bias],
          [xt, theirs.weight, theirs.bias])


def test_conv1d_default_initialisation_has_pytorchs_bounds():
    layer = nn.Conv1d(6, 40, 5, groups=2)  # fan_in = 3 * 5
    bound = 1 / np.sqrt(15)  # kaiming_uniform(a=sqrt(5)) and the bias: both 1/sqrt(fan_in)
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy()
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.8 * bound
    assert layer.weight.shape == (40, 3, 5) and layer.weight.dtype == nb.float32


POOL_CASES = [  # (kernel_size, stride, padding <= kernel_size / 2, ceil_mode, length)
    (3, None, 0, False, 11), (3, 2, 1, False, 10), (2, 2, 1, True, 7), (4, 3, 2, True, 13),
]


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,length", POOL_CASES)
@pytest.mark.parametrize("dilation", [1, 2])
def test_max_pool1d_like_pytorch(rng, kernel, stride, padding, ceil_mode, length, dilation):
    ours, theirs = both(rng, (2, 3, length))
    args = (kernel, stride, padding, dilation, ceil_mode)
    agree(F.max_pool1d(ours[0], *args), tF.max_pool1d(theirs[0], *args), rng, ours, theirs)
    agree_layer = nn.MaxPool1d(*args[:4], ceil_mode=ceil_mode)
    assert repr(agree_layer) == repr(torch.nn.MaxPool1d(*args[:4], ceil_mode=ceil_mode))


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,length", POOL_CASES)
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool1d_like_pytorch(rng, kernel, stride, padding, ceil_mode, length,
                                 count_include_pad):
    ours, theirs = both(rng, (3, length))  # unbatched (C, L)
    args = (kernel, stride, padding, ceil_mode, count_include_pad)
    agree(nn.AvgPool1d(*args)(ours[0]), tF.avg_pool1d(theirs[0], *args), rng, ours, theirs)
    assert repr(nn.AvgPool1d(*args)) == repr(torch.nn.AvgPool1d(*args))


def test_pool1d_gradcheck(rng):
    (x,), _ = both(rng, (2, 3, 11))
    assert nb.gradcheck(lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True), (x,))
    assert nb.gradcheck(lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2), (x,))


@pytest.mark.parametrize("call,cls,said", [
    (lambda: nn.Conv1d(3, 4, 0), InputError, r"kernel_size must be an int >= 1.*got 0"),
    (lambda: nn.Conv1d(3, 4, (3, 3)), InputError, r"kernel_size.*tuple of one.*\(3, 3\)"),
    (lambda: nn.Conv1d(3, 4, 3, stride=2, padding="same"), InputError,
     r"padding='same' needs stride 1"),
    (lambda: nn.Conv1d(3, 4, 3, groups=2), InputError, r"groups=2 must divide in_channels"),
    (lambda: nn.Conv1d(3, 4, 3, padding_mode="zero"), InputError, r"padding_mode must be"),
    (lambda: nn.Conv1d(3, 4, 3)(nb.randn(2, 5, 9)), ShapeError,
     r"expects input with 3 channels, got 5"),
    (lambda: F.conv1d(nb.randn(2, 3, 4, 9), nb.randn(4, 3, 3)), ShapeError,
     r"expects a 2-D or 3-D input \(N, C_in, L\), got 4-D"),
    (lambda: F.conv1d(nb.randn(2, 3, 9), nb.randn(4, 3, 3, 3)), ShapeError,
     r"expects a 3-D weight"),
    (lambda: nn.MaxPool1d(3, stride=0), InputError, r"stride must be an int >= 1"),
    (lambda: F.max_pool1d(nb.randn(2, 3, 4, 9), 2), ShapeError, r"2-D or 3-D input"),
    (lambda: F.avg_pool1d(nb.randn(2, 3, 9), (2, 2)), InputError, r"tuple of one"),
])
def test_wrong_arguments_get_four_part_errors(call, cls, said):
    with pytest.raises(cls) as info:
        call()
    text = str(info.value)
    assert __file__.rsplit("/", 1)[1] in text, text  # where: the user's line
    assert "\n  hint: " in text, text
    assert __import__("re").search(said, text), text


def test_conv1d_hint_names_conv1d(rng):
    with pytest.raises(ShapeError) as info:
        F.conv1d(nb.randn(2, 5, 9), nb.randn(4, 3, 3))
    assert "use Conv1d(5, 4, 3)" in str(info.value)


def test_formula_speaks_of_l(rng):
    from nnbook.ops.base import Spec
    from nnbook.ops.onedim import Conv1d, MaxPool1d

    assert Conv1d(2, 1, 2).formula(Spec((2, 6, 11)), Spec((4, 6, 3))) == [
        "L_out = floor((11 + 2·1 − 2·(3 − 1) − 1) / 2) + 1 = 5"]
    assert MaxPool1d(3, 2, 1).formula(Spec((2, 6, 11)))[0].startswith("L_out = ")
