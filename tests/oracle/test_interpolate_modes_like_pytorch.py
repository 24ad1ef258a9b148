"""The resizing modes nearest-exact, area and bicubic, recompute_scale_factor, PyTorch's
shortcuts for unchanged and doubled sizes, and the old names upsample_nearest /
upsample_bilinear against PyTorch: outputs and input gradients in float64 on odd,
non-square sizes, by size and by scale factor.  (Oracle: skipped without torch locally,
required in CI.)"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError, ShapeError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

TF = torch.nn.functional

CASES = [
    ((2, 3, 7, 5), dict(size=(11, 4), mode="bicubic")),
    ((2, 3, 7, 5), dict(size=(11, 4), mode="bicubic", align_corners=True)),
    ((2, 3, 7, 5), dict(size=(3, 2), mode="bicubic")),
    ((2, 3, 7, 5), dict(size=(1, 1), mode="bicubic", align_corners=True)),
    ((2, 3, 7, 5), dict(scale_factor=(1.7, 0.6), mode="bicubic")),
    ((2, 3, 7, 5), dict(scale_factor=1.05, mode="bicubic", align_corners=False), "forward"),
    ((3, 7, 5), dict(scale_factor=2.3, mode="bicubic")),           # one image (C, H, W)?
    ((2, 3, 7, 5), dict(size=(3, 4), mode="area")),
    ((2, 3, 7, 5), dict(scale_factor=(0.5, 1.5), mode="area")),
    ((2, 3, 9), dict(size=4, mode="area")),
    ((0, 3, 7, 5), dict(size=(3, 2), mode="area")),                # an empty batch
    ((2, 3, 7, 5), dict(size=(11, 4), mode="nearest-exact")),
    ((2, 3, 7, 5), dict(scale_factor=(0.3, 2.3), mode="nearest-exact")),
    ((2, 3, 9), dict(scale_factor=1.7, mode="nearest-exact")),
    ((2, 3, 7, 5), dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
    ((2, 3, 7, 5), dict(scale_factor=2.3, mode="nearest", recompute_scale_factor=True)),
    ((2, 3, 9), dict(scale_factor=0.7, mode="linear", recompute_scale_factor=False)),
    # PyTorch's shortcuts: the linear modes keep an axis whose size does not change, and
    # nearest keeps (or doubles) an image's axis that keeps (or doubles) its size
    ((2, 3, 7, 5), dict(scale_factor=1.05, mode="bilinear")),
    ((2, 3, 9), dict(scale_factor=1.05, mode="linear")),
    ((2, 3, 7, 5), dict(scale_factor=(1.05, 2.04), mode="nearest")),
    ((2, 3, 9), dict(scale_factor=1.05, mode="nearest"), "forward"),  # (none for signals)
]


@pytest.mark.parametrize("case", CASES)
def test_the_new_modes_match_pytorch(rng, case):
    shape, kwargs, *compared = case
    if len(shape) == 3 and kwargs["mode"] == "bicubic":  # PyTorch takes no (C, H, W) here
        with pytest.raises((ValueError, RuntimeError, NotImplementedError)):
            TF.interpolate(torch.ones(shape, dtype=torch.float64), **kwargs)
        with pytest.raises(nb.ShapeError, match="4-D input"):
            F.interpolate(nb.ones(*shape), **kwargs)
        return
    x = rng.standard_normal(shape)
    mine, theirs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = F.interpolate(mine, **kwargs), TF.interpolate(theirs, **kwargs)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    if compared == ["forward"]:
        # a listed difference: where the size does not change, PyTorch's backward of
        # 'bicubic' and of 1-D 'nearest' copies the gradient, which its forward does not
        # do; nnbook's gradient is its forward's derivative
        assert nb.gradcheck(lambda x: F.interpolate(x, **kwargs), (mine,))
        return
    g = rng.standard_normal(y.shape)
    y.backward(nb.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_bicubic_in_float32_matches_pytorch_within_float32_rounding(rng):
    x = rng.standard_normal((2, 3, 7, 5)).astype(np.float32)
    y = F.interpolate(nb.tensor(x), size=(13, 4), mode="bicubic")
    ty = TF.interpolate(torch.tensor(x), size=(13, 4), mode="bicubic")
    assert y.dtype == nb.float32
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-5, atol=1e-5)


def test_the_old_names_and_layers_match_pytorch(rng):
    x = rng.standard_normal((2, 3, 7, 5))
    for call in (lambda F, x: F.upsample_nearest(x, scale_factor=2),  # (they warn)
                 lambda F, x: F.upsample_nearest(x, size=(9, 4)),
                 lambda F, x: F.upsample_bilinear(x, size=(9, 4)),
                 lambda F, x: F.upsample_bilinear(x, scale_factor=1.5),
                 lambda F, x: F.upsample(x, size=(9, 4), mode="bicubic")):
        with pytest.warns(UserWarning, match="deprecated"):
            mine = call(F, nb.tensor(x))
        with pytest.warns(UserWarning, match="deprecated"):
            theirs = call(TF, torch.tensor(x))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    for make in (lambda m: m.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True),
                 lambda m: m.Upsample(size=(4, 3), mode="area"),
                 lambda m: m.Upsample(scale_factor=0.7, mode="nearest-exact",
                                      recompute_scale_factor=True),
                 lambda m: m.UpsamplingNearest2d(scale_factor=3),
                 lambda m: m.UpsamplingBilinear2d(size=(9, 4))):
        mine, theirs = make(nn), make(torch.nn)
        assert repr(mine) == repr(theirs)
        np.testing.assert_allclose(mine(nb.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs", [
    dict(size=(3, 3), mode="area", align_corners=True),
    dict(size=(3, 3), mode="nearest-exact", align_corners=False),
    dict(size=(3, 3), recompute_scale_factor=True),
])
def test_arguments_pytorch_refuses_are_refused(kwargs):
    with pytest.raises((ValueError, NotImplementedError, RuntimeError)):
        TF.interpolate(torch.ones(1, 2, 4, 5), **kwargs)
    with pytest.raises(InputError):
        F.interpolate(nb.ones(1, 2, 4, 5), **kwargs)


def test_trilinear_on_an_image_is_refused_as_pytorch_refuses_it():
    with pytest.raises(NotImplementedError, match="trilinear mode needs 5D input"):
        TF.interpolate(torch.ones(1, 2, 4, 5), size=(3, 3), mode="trilinear")
    with pytest.raises(ShapeError, match="5-D input"):
        F.interpolate(nb.ones(1, 2, 4, 5), size=(3, 3), mode="trilinear")
