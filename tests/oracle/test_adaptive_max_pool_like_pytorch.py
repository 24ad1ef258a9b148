"""F.adaptive_max_pool2d / nn.AdaptiveMaxPool2d against PyTorch in float64, on odd,
non-square inputs and output sizes that divide them or not (overlapping windows), with
ties and gradcheck.  (The oracle: required in CI, skipped without torch locally.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import DTypeError, InputError, ShapeError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

CASES = [((2, 3, 7, 5), (3, 2)), ((3, 7, 5), 4), ((2, 3, 7, 5), (None, 3)),
         ((2, 3, 5, 7), (5, 7)), ((1, 2, 7, 5), 1), ((2, 1, 9, 4), (4, 3))]


@pytest.mark.parametrize("shape,output_size", CASES)
@pytest.mark.parametrize("ties", [False, True])
def test_adaptive_max_pool2d_like_pytorch(rng, shape, output_size, ties):
    x = rng.integers(0, 3, shape).astype(np.float64) if ties else rng.standard_normal(shape)
    ours, theirs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = nn.AdaptiveMaxPool2d(output_size)(ours)
    yt = torch.nn.functional.adaptive_max_pool2d(theirs, output_size)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=0, atol=0)
    g = rng.standard_normal(tuple(yt.shape))
    y.backward(nb.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert repr(nn.AdaptiveMaxPool2d(output_size)) == \
        repr(torch.nn.AdaptiveMaxPool2d(output_size))


def test_adaptive_max_pool2d_gradcheck(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.adaptive_max_pool2d(x, (3, 2)), (x,))


def test_a_nan_window_outputs_nan_and_passes_no_gradient(rng):
    x = rng.standard_normal((1, 1, 7, 5))
    x[0, 0, 0, 0] = np.nan
    ours = nb.tensor(x, requires_grad=True)
    y = F.adaptive_max_pool2d(ours, (3, 2))
    y.sum().backward()
    assert np.isnan(y.detach().numpy()[0, 0, 0, 0])
    assert np.isfinite(y.detach().numpy().flat[1:]).all()
    assert ours.grad.numpy()[0, 0, :3, :3].sum() == 0  # window (0, 0) gave nothing


@pytest.mark.parametrize("call,cls,said", [
    (lambda: F.adaptive_max_pool2d(nb.randn(2, 3, 7, 5), (2, 2, 2)), InputError,
     r"output_size must be an int or a pair"),
    (lambda: F.adaptive_max_pool2d(nb.randn(2, 3, 7, 5), 0), ShapeError,
     r"output_size must be at least 1"),
    (lambda: F.adaptive_max_pool2d(nb.tensor(np.zeros((2, 3, 7, 5), np.int64)), 2),
     DTypeError, r"floating point"),
])
def test_wrong_arguments_get_four_part_errors(call, cls, said):
    with pytest.raises(cls) as info:
        call()
    text = str(info.value)
    assert "adaptive_max_pool2d" in text and "test_adaptive_max_pool_like_pytorch.py" in text
    assert "\n  hint: " in text and __import__("re").search(said, text), text
