"""F.conv_transpose2d / nn.ConvTranspose2d against PyTorch in float64 on odd, non-square
inputs: stride, padding, output_padding, groups, dilation, unbatched input; state_dict keys,
default initialisation, repr; gradcheck; four-part errors.
(The oracle: required in CI, skipped without torch locally.)"""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError, ShapeError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

CASES = [  # (x shape, weight shape, keyword arguments)
    ((2, 4, 7, 5), (4, 3, 3, 2), dict()),
    ((2, 4, 7, 5), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ((2, 6, 5, 4), (6, 2, 3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                      groups=3, dilation=(1, 2))),
    ((3, 5, 4), (3, 1, 2, 3), dict(padding=1, dilation=2, output_padding=1)),
    ((1, 4, 3, 5), (4, 5, 1, 1), dict(stride=3, output_padding=2, groups=2)),
]


@pytest.mark.parametrize("x_shape,w_shape,kw", CASES)
def test_conv_transpose2d_like_pytorch(rng, x_shape, w_shape, kw):
    out_channels = w_shape[1] * kw.get("groups", 1)
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape),
              rng.standard_normal(out_channels)]
    ours = [nb.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, yt = F.conv_transpose2d(*ours, **kw), torch.nn.functional.conv_transpose2d(*theirs, **kw)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(yt.shape))
    y.backward(nb.tensor(g))
    yt.backward(torch.tensor(g))
    for b, t in zip(ours, theirs):
        np.testing.assert_allclose(b.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("x_shape,w_shape,kw", CASES[1:3])
def test_conv_transpose2d_gradcheck(rng, x_shape, w_shape, kw):
    x, w = (nb.tensor(rng.standard_normal(s), requires_grad=True) for s in (x_shape, w_shape))
    b = nb.tensor(rng.standard_normal(w_shape[1] * kw.get("groups", 1)), requires_grad=True)
    assert nb.gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), (x, w, b))


def test_the_layer_like_pytorch(rng):
    args = dict(stride=2, padding=(1, 0), output_padding=(1, 0), groups=2, dilation=(1, 2))
    ours = nn.ConvTranspose2d(4, 6, (3, 2), dtype=nb.float64, **args)
    theirs = torch.nn.ConvTranspose2d(4, 6, (3, 2), dtype=torch.float64, **args)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]
    assert ours.weight.shape == tuple(theirs.weight.shape) == (4, 3, 3, 2)
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = rng.standard_normal((2, 4, 7, 5))
    np.testing.assert_allclose(ours(nb.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    assert repr(nn.ConvTranspose2d(3, 5, 3, bias=False)) == \
        repr(torch.nn.ConvTranspose2d(3, 5, 3, bias=False))


def test_default_initialisation_has_pytorchs_bounds():
    layer = nn.ConvTranspose2d(40, 6, (3, 2), groups=2)  # fan_in = weight.shape[1] * 3 * 2
    bound = 1 / np.sqrt(3 * 3 * 2)
    weight, bias = (np.abs(p.detach().numpy()).max() for p in (layer.weight, layer.bias))
    assert 0.95 * bound < weight <= bound  # 720 values from U(-bound, bound)
    assert 0 < bias <= bound                # 6 values: only the bound is sure


@pytest.mark.parametrize("call,cls,said", [
    (lambda: F.conv_transpose2d(nb.randn(2, 4, 7, 5), nb.randn(4, 3, 3, 3), stride=2,
                                output_padding=2), InputError,
     r"output_padding must be smaller than stride or dilation"),
    (lambda: F.conv_transpose2d(nb.randn(2, 5, 7, 5), nb.randn(4, 3, 3, 3)), ShapeError,
     r"expects input with 4 channels.*got 5"),
    (lambda: F.conv_transpose2d(nb.randn(2, 4, 2, 2), nb.randn(4, 3, 1, 1), padding=1),
     ShapeError, r"padding crops more"),
    (lambda: F.conv_transpose2d(nb.randn(4, 7), nb.randn(4, 3, 3, 3)), ShapeError,
     r"3-D or 4-D input"),
    (lambda: nn.ConvTranspose2d(4, 3, 3, groups=2), InputError, r"groups=2 must divide"),
    (lambda: nn.ConvTranspose2d(4, 3, 0), InputError, r"kernel_size must be an int >= 1"),
    (lambda: nn.ConvTranspose2d(4, 3, 3, padding_mode="reflect"), InputError,
     r"padding_mode must be 'zeros'"),
    (lambda: nn.ConvTranspose2d(4, 3, 3)(nb.randn(1, 4, 5, 5), output_size=(7, 7)),
     InputError, r"output_size is not supported"),
])
def test_wrong_arguments_get_four_part_errors(call, cls, said):
    with pytest.raises(cls) as info:
        call()
    text = str(info.value)
    assert "test_conv_transpose_like_pytorch.py" in text and "\n  hint: " in text, text
    assert re.search(said, text), text
