"""F.interpolate and nn.Upsample against PyTorch: outputs and input gradients in float64 on
odd, non-square sizes, upsampling and downsampling, by size and by scale factor.  (Oracle:
skipped without torch locally, required in CI.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

CASES = [
    ((2, 3, 7, 5), dict(size=(11, 4), mode="nearest")),
    ((2, 3, 7, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 7, 5), dict(scale_factor=(1.5, 0.6), mode="nearest")),
    ((2, 3, 7, 5), dict(size=(11, 4), mode="bilinear", align_corners=False)),
    ((2, 3, 7, 5), dict(size=(11, 4), mode="bilinear", align_corners=True)),
    ((2, 3, 7, 5), dict(scale_factor=1.7, mode="bilinear")),
    ((2, 3, 7, 5), dict(size=(3, 2), mode="bilinear")),
    ((2, 3, 7, 5), dict(size=(1, 1), mode="bilinear", align_corners=True)),
    ((2, 3, 9), dict(size=13, mode="linear")),
    ((2, 3, 9), dict(scale_factor=0.5, mode="linear", align_corners=True)),
    ((2, 3, 9), dict(size=4, mode="nearest")),
]


@pytest.mark.parametrize("shape,kwargs", CASES)
def test_interpolate_matches_pytorch(rng, shape, kwargs):
    x = rng.standard_normal(shape)
    mine = nb.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, ty = F.interpolate(mine, **kwargs), torch.nn.functional.interpolate(theirs, **kwargs)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(y.shape)
    y.backward(nb.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_upsample_layers_print_and_compute_as_pytorch(rng):
    x = rng.standard_normal((1, 2, 5, 3))
    for make in (lambda m: m.Upsample(scale_factor=2, mode="bilinear"),
                 lambda m: m.Upsample(size=(4, 7)),
                 lambda m: m.UpsamplingBilinear2d(scale_factor=2),
                 lambda m: m.UpsamplingNearest2d(size=(6, 4))):
        mine, theirs = make(nb.nn), make(torch.nn)
        assert repr(mine) == repr(theirs)
        np.testing.assert_allclose(mine(nb.tensor(x)).numpy(),
                                   theirs(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-12)
