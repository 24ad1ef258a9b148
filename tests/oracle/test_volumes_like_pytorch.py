"""The layers and functions for volumes (N, C, D, H, W) against PyTorch in float64:
F.conv3d, F.conv_transpose3d, the 3-D pools (with their indices), BatchNorm3d,
InstanceNorm3d, the 3-D padding layers, LazyConv3d and F.interpolate on volumes.
Weights go from one library to the other through state_dict; outputs and every gradient
must agree; reprs and state_dict keys too; where PyTorch raises, nnbook raises an nnbook
error.  Then the layers on fuzzed, seeded arguments and odd sizes.
(The oracle: required in CI, skipped without torch locally.)"""
import contextlib
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

from like_pytorch import agree as agree_on  # noqa: E402
from like_pytorch import both, outcome, same_failure  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import NnbookError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

X_SHAPE = (2, 3, 5, 7, 4)  # N=2, C=3, D=5, H=7, W=4


def same_weights(ours, theirs):
    """PyTorch's layer gets nnbook's parameters and buffers (so both start alike)."""
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(np.asarray(v.numpy()))
                            for k, v in ours.state_dict().items()})


CONV_CASES = [  # (weight shape, keyword arguments)
    ((4, 3, 3, 2, 1), dict()),
    ((6, 1, 3, 2, 1), dict(stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=3)),
    ((2, 3, 2, 3, 2), dict(padding="same", dilation=(2, 1, 1))),
    ((6, 3, 1, 3, 3), dict(padding="valid", stride=3)),
]


@pytest.mark.parametrize("w_shape, kw", CONV_CASES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning")  # PyTorch's own note
def test_conv3d_like_pytorch(rng, w_shape, kw, batched):
    x_shape = X_SHAPE if batched else X_SHAPE[1:]
    ours, theirs = both(rng, x_shape, w_shape, w_shape[:1])
    agree_on(F.conv3d(*ours, **kw), tF.conv3d(*theirs, **kw), rng, ours, theirs)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_layer_like_pytorch(rng, mode):
    args = (3, 6, (3, 2, 1))
    kw = dict(stride=(1, 2, 1), padding=(1, 2, 0), groups=3, padding_mode=mode)
    ours = nn.Conv3d(*args, **kw, dtype=nb.float64)
    theirs = torch.nn.Conv3d(*args, **kw, dtype=torch.float64)
    assert repr(ours) == repr(theirs)
    same_weights(ours, theirs)
    (x,), (xt,) = both(rng, X_SHAPE)
    agree_on(ours(x), theirs(xt), rng, [x, ours.weight, ours.bias],
             [xt, theirs.weight, theirs.bias])


@pytest.mark.parametrize("kw", [
    dict(stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 1), groups=3,
         dilation=(1, 2, 1)),
    dict(stride=2, padding=1, output_padding=1),
])
def test_conv_transpose3d_like_pytorch(rng, kw):
    groups = kw.get("groups", 1)
    ours, theirs = both(rng, X_SHAPE, (3, 6 // groups, 3, 2, 1), (6,))
    agree_on(F.conv_transpose3d(*ours, **kw), tF.conv_transpose3d(*theirs, **kw), rng, ours,
             theirs)
    layer = nn.ConvTranspose3d(3, 6, (3, 2, 1), **kw, dtype=nb.float64)
    twin = torch.nn.ConvTranspose3d(3, 6, (3, 2, 1), **kw, dtype=torch.float64)
    assert repr(layer) == repr(twin)
    same_weights(layer, twin)
    (x,), (xt,) = both(rng, X_SHAPE[1:])  # one unbatched volume
    agree_on(layer(x), twin(xt), rng, [x, layer.weight], [xt, twin.weight])


def test_conv3d_default_initialisation_has_pytorchs_bounds():
    for layer in (nn.Conv3d(6, 40, (3, 2, 1), groups=2), nn.ConvTranspose3d(40, 6, (3, 2, 1),
                                                                           groups=2)):
        fan_in = layer.weight.shape[1] * 6  # PyTorch's fan_in: weight.shape[1] · kd·kh·kw
        bound = 1 / np.sqrt(fan_in)
        for p in (layer.weight, layer.bias):
            values = np.abs(p.detach().numpy())
            assert 0.8 * bound < values.max() <= bound


def test_lazy_conv3d_like_pytorch(rng):
    ours, theirs = nn.LazyConv3d(4, (3, 2, 1), padding=1), torch.nn.LazyConv3d(4, (3, 2, 1),
                                                                             padding=1)
    assert repr(ours) == repr(theirs)
    x = rng.standard_normal(X_SHAPE).astype(np.float32)
    ours(nb.tensor(x)), theirs(torch.tensor(x))
    assert repr(ours) == repr(theirs) and type(ours).__name__ == type(theirs).__name__
    same_weights(ours, theirs)
    np.testing.assert_allclose(ours(nb.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args", [
    ((3, 2, 1), (2, 1, 1), (1, 1, 0), (1, 2, 1), True),
    (2, None, 0, 1, False),
    ((2, 3, 2), (2, 2, 3), 1, 1, True),
])
@pytest.mark.parametrize("batched", [True, False])
def test_max_pool3d_and_its_indices_like_pytorch(rng, args, batched):
    ours, theirs = both(rng, X_SHAPE if batched else X_SHAPE[1:])
    (y, i), (yt, it) = (F.max_pool3d(ours[0], *args, return_indices=True),
                        tF.max_pool3d(theirs[0], *args, return_indices=True))
    np.testing.assert_array_equal(i.numpy(), it.numpy())
    agree_on(y, yt, rng, ours, theirs)
    layer, twin = nn.MaxPool3d(*args[:4], ceil_mode=args[4]), torch.nn.MaxPool3d(
        *args[:4], ceil_mode=args[4])
    assert repr(layer) == repr(twin)


@pytest.mark.parametrize("count_include_pad, divisor_override", [
    (True, None), (False, None), (True, 5)])
def test_avg_pool3d_like_pytorch(rng, count_include_pad, divisor_override):
    args = ((3, 2, 2), (2, 1, 3), (1, 1, 1), True, count_include_pad, divisor_override)
    ours, theirs = both(rng, X_SHAPE)
    agree_on(nn.AvgPool3d(*args)(ours[0]), tF.avg_pool3d(theirs[0], *args), rng, ours, theirs)
    assert repr(nn.AvgPool3d(*args)) == repr(torch.nn.AvgPool3d(*args))


@pytest.mark.parametrize("size", [(2, 3, 3), 1, (None, 4, 3), (5, 2, None)])
def test_adaptive_pools3d_like_pytorch(rng, size):
    ours, theirs = both(rng, X_SHAPE)
    agree_on(nn.AdaptiveAvgPool3d(size)(ours[0]), torch.nn.AdaptiveAvgPool3d(size)(theirs[0]),
             rng, ours, theirs)
    ours, theirs = both(rng, X_SHAPE)
    (y, i), (yt, it) = (nn.AdaptiveMaxPool3d(size, True)(ours[0]),
                        torch.nn.AdaptiveMaxPool3d(size, True)(theirs[0]))
    np.testing.assert_array_equal(i.numpy(), it.numpy())
    agree_on(y, yt, rng, ours, theirs)
    assert repr(nn.AdaptiveMaxPool3d(size)) == repr(torch.nn.AdaptiveMaxPool3d(size))


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm3d_like_pytorch_in_training_and_evaluation(rng, momentum):
    ours = nn.BatchNorm3d(3, momentum=momentum, dtype=nb.float64)
    theirs = torch.nn.BatchNorm3d(3, momentum=momentum, dtype=torch.float64)
    assert repr(ours) == repr(theirs)
    for _ in range(2):
        (x,), (xt,) = both(rng, X_SHAPE)
        agree_on(ours(x), theirs(xt), rng, [x], [xt])
    for name, buffer in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), buffer.numpy(), rtol=1e-12)
    ours.eval(), theirs.eval()
    (x,), (xt,) = both(rng, X_SHAPE)
    agree_on(ours(x), theirs(xt), rng, [x, ours.weight], [xt, theirs.weight])


@pytest.mark.parametrize("batched", [True, False])
def test_instance_norm3d_like_pytorch(rng, batched):
    kw = dict(affine=True, track_running_stats=True, dtype=torch.float64)
    ours, theirs = nn.InstanceNorm3d(3, **{**kw, "dtype": nb.float64}), \
        torch.nn.InstanceNorm3d(3, **kw)
    assert repr(ours) == repr(theirs)
    same_weights(ours, theirs)
    (x,), (xt,) = both(rng, X_SHAPE if batched else X_SHAPE[1:])
    agree_on(ours(x), theirs(xt), rng, [x, ours.weight], [xt, theirs.weight])
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("name, extra", [("ZeroPad3d", ()), ("ConstantPad3d", (1.5,)),
                                         ("ReflectionPad3d", ()), ("ReplicationPad3d", ()),
                                         ("CircularPad3d", ())])
def test_padding_layers_3d_like_pytorch(rng, name, extra):
    padding = (2, 1, 0, 3, 1, 2)
    ours, theirs = getattr(nn, name)(padding, *extra), getattr(torch.nn, name)(padding, *extra)
    assert repr(ours) == repr(theirs)
    for shape in (X_SHAPE, X_SHAPE[1:]):
        (x,), (xt,) = both(rng, shape)
        agree_on(ours(x), theirs(xt), rng, [x], [xt])


INTERPOLATIONS = [
    dict(size=(9, 4, 6), mode="trilinear"),
    dict(size=(3, 10, 5), mode="trilinear", align_corners=True),
    dict(scale_factor=(1.5, 0.6, 2.0), mode="trilinear"),
    dict(scale_factor=1.7, mode="trilinear", recompute_scale_factor=True),
    dict(scale_factor=(2, 1, 3)), dict(size=(3, 9, 7)), dict(scale_factor=0.6),
    dict(size=(4, 10, 3), mode="nearest-exact"), dict(scale_factor=1.3, mode="nearest-exact"),
    dict(size=(2, 3, 3), mode="area"), dict(size=(6, 9, 5), mode="area"),
]


@pytest.mark.parametrize("kw", INTERPOLATIONS)
def test_interpolate_volumes_like_pytorch(rng, kw):
    ours, theirs = both(rng, X_SHAPE)
    agree_on(F.interpolate(ours[0], **kw), tF.interpolate(theirs[0], **kw), rng, ours, theirs)
    up, twin = nn.Upsample(**kw), torch.nn.Upsample(**kw)
    assert repr(up) == repr(twin)


def test_nearest_backward_on_an_axis_that_keeps_its_size_is_a_listed_difference(rng):
    """docs/pytorch.md: PyTorch's backward of 'nearest' on volumes copies the gradient
    straight through an axis whose size a scale_factor keeps (1.05 on 7 voxels), though
    its forward moved the voxels; nnbook's backward is its forward's derivative."""
    ours, theirs = both(rng, X_SHAPE)
    y, yt = F.interpolate(ours[0], scale_factor=(2, 1.05, 1)), \
        tF.interpolate(theirs[0], scale_factor=(2, 1.05, 1))
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    y.sum().backward(), yt.sum().backward()
    assert not np.allclose(ours[0].grad.numpy(), theirs[0].grad.numpy())
    assert nb.gradcheck(lambda x: F.interpolate(x, scale_factor=(2, 1.05, 1)), (ours[0],))


REFUSED = [  # calls PyTorch refuses, as (name, function of the library)
    ("conv3d of an image batch", lambda lib, F: F.conv3d(lib.ones(2, 3, 7, 4, 1),
                                                          lib.ones(4, 2, 1, 1, 1))),
    ("conv3d with a weight of an image", lambda lib, F: F.conv3d(lib.ones(2, 3, 5, 7, 4),
                                                                  lib.ones(4, 3, 3, 3))),
    ("conv3d kernel deeper than the input", lambda lib, F: F.conv3d(lib.ones(2, 3, 2, 7, 4),
                                                                     lib.ones(4, 3, 3, 1, 1))),
    ("conv3d same padding with a stride", lambda lib, F: F.conv3d(
        lib.ones(2, 3, 5, 7, 4), lib.ones(4, 3, 1, 1, 1), stride=(2, 1, 1), padding="same")),
    ("conv3d groups not dividing", lambda lib, F: F.conv3d(lib.ones(2, 3, 5, 7, 4),
                                                           lib.ones(4, 1, 1, 1, 1), groups=2)),
    ("conv_transpose3d output_padding too big", lambda lib, F: F.conv_transpose3d(
        lib.ones(2, 3, 5, 7, 4), lib.ones(3, 2, 1, 1, 1), stride=2, output_padding=2)),
    ("max_pool3d padding over half the kernel", lambda lib, F: F.max_pool3d(
        lib.ones(2, 3, 5, 7, 4), 3, padding=2)),
    ("max_pool3d of a 3-D input", lambda lib, F: F.max_pool3d(lib.ones(3, 7, 4), 2)),
    ("avg_pool3d window larger than the input", lambda lib, F: F.avg_pool3d(
        lib.ones(2, 3, 1, 7, 4), 2)),
    ("adaptive_avg_pool3d to a pair", lambda lib, F: F.adaptive_avg_pool3d(
        lib.ones(2, 3, 5, 7, 4), (2, 2))),
    ("trilinear on an image", lambda lib, F: F.interpolate(lib.ones(2, 3, 7, 4), size=(3, 3),
                                                            mode="trilinear")),
    ("bilinear on a volume", lambda lib, F: F.interpolate(lib.ones(2, 3, 5, 7, 4),
                                                          size=(3, 3, 3), mode="bilinear")),
    ("BatchNorm3d of images", lambda lib, F: lib.nn.BatchNorm3d(3)(lib.ones(2, 3, 7, 4))),
    ("Conv3d with a pair of kernel sizes", lambda lib, F: lib.nn.Conv3d(3, 4, (3, 3))(
        lib.ones(2, 3, 5, 7, 4))),  # (PyTorch refuses it in the call, nnbook when built)
    ("avg_pool3d kernel deeper than the input, padded", lambda lib, F: F.avg_pool3d(
        lib.ones(2, 3, 2, 7, 4), (3, 1, 1), padding=(1, 0, 0))),
    ("ReflectionPad3d wider than the volume", lambda lib, F: lib.nn.ReflectionPad3d(5)(
        lib.ones(2, 3, 5, 7, 4))),
]


@pytest.mark.parametrize("name, call", REFUSED, ids=[name for name, _ in REFUSED])
def test_what_pytorch_refuses_nnbook_refuses_with_its_own_errors(name, call):
    _, torch_error = outcome(lambda: call(torch, tF))
    _, nb_error = outcome(lambda: call(nb, F))
    assert same_failure(nb_error, torch_error, name)


# ---------------------------------------------------------------------------
# Fuzzed: the layers on seeded random arguments and odd sizes
# ---------------------------------------------------------------------------

def run(lib, build, x):
    """(output, input gradient, weight gradient or None) of build(lib) on x, or 'refused';
    and the layer."""
    layer = None
    try:
        with warnings.catch_warnings() if lib is torch else contextlib.nullcontext():
            if lib is torch:  # its note on padding='same' with an even kernel
                warnings.filterwarnings("ignore", "Using padding='same'", UserWarning)
            layer = build(lib)
            xt = lib.tensor(x, requires_grad=True)
            y = layer(xt)
            y = y[0] if isinstance(y, tuple) else y
            (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum() \
                .backward()
    except (NnbookError, RuntimeError, ValueError, UserWarning) as error:
        # (a warning is an error here: PyTorch's InstanceNorm warns where nnbook refuses)
        assert isinstance(error, NnbookError) == (lib is nb), repr(error)
        return "refused", layer
    weight = getattr(layer, "weight", None)
    grad = None if weight is None or weight.grad is None else weight.grad.numpy()
    return (y.detach().numpy(), xt.grad.numpy(), grad), layer


def agree(build, x, what, padding_only=False):
    """nnbook's layer gets PyTorch's weights; both compute alike, or both refuse (or
    nnbook refuses a max-pool window of padding only, where PyTorch gives -inf)."""
    theirs, their_layer = run(torch, build, x)

    def ours_build(lib):
        layer = build(lib)
        if their_layer is not None and their_layer.state_dict():
            layer.load_state_dict({k: nb.tensor(v.detach().numpy())
                                   for k, v in their_layer.state_dict().items()})
        return layer
    ours, _ = run(nb, ours_build, x)
    if theirs == "refused" or ours == "refused":
        assert ours == "refused" and (theirs == "refused" or padding_only and np.isinf(
            theirs[0]).any()), (what, ours if ours == "refused" else "nnbook ran", theirs)
        return
    for a, b in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=what)


def draw(seed):
    rng = np.random.default_rng(seed)
    return rng, lambda low, high: int(rng.integers(low, high + 1))


def sizes(r, low, high):
    return tuple(r(low, high) for _ in range(3))


@pytest.mark.parametrize("seed", range(40))
def test_conv3d_with_every_padding_mode_fuzzed(seed):
    rng, r = draw(5000 + seed)
    g = [1, 1, 2, 3][r(0, 3)]
    c_in, c_out = g * r(1, 2), g * r(1, 2)
    padding = [0, 1, sizes(r, 0, 2), "same", "valid"][r(0, 4)]
    args = dict(kernel_size=sizes(r, 1, 3), dilation=sizes(r, 1, 2), groups=g,
                stride=1 if padding == "same" else sizes(r, 1, 3), padding=padding,
                padding_mode=["zeros", "reflect", "replicate", "circular"][r(0, 3)],
                bias=bool(r(0, 1)))
    x = rng.standard_normal((r(1, 2), c_in, *sizes(r, 1, 6))[r(0, 1):])
    agree(lambda lib: lib.nn.Conv3d(c_in, c_out, dtype=lib.float64, **args), x,
          f"Conv3d({c_in}, {c_out}, {args}) on {x.shape}")


@pytest.mark.parametrize("seed", range(40))
def test_pools_and_transposed_convolution_3d_fuzzed(seed):
    rng, r = draw(6000 + seed)
    x = rng.standard_normal((r(1, 2), r(1, 3), *sizes(r, 1, 6))[r(0, 1):])
    k, p, d = sizes(r, 1, 3), sizes(r, 0, 1), sizes(r, 1, 2)
    s, ceil = [None, sizes(r, 1, 3)][r(0, 1)], bool(r(0, 1))
    agree(lambda lib: lib.nn.MaxPool3d(k, s, p, d, ceil_mode=ceil), x,
          f"MaxPool3d({k}, {s}, {p}, {d}, ceil_mode={ceil}) on {x.shape}", padding_only=True)
    include_pad, divisor = bool(r(0, 1)), [None, r(1, 5)][r(0, 1)]
    agree(lambda lib: lib.nn.AvgPool3d(k, s, p, ceil, include_pad, divisor), x,
          f"AvgPool3d({k}, {s}, {p}, {ceil}, {include_pad}, {divisor}) on {x.shape}")
    out = sizes(r, 1, 4)
    agree(lambda lib: lib.nn.AdaptiveMaxPool3d(out), x, f"AdaptiveMaxPool3d({out}) {x.shape}")
    agree(lambda lib: lib.nn.AdaptiveAvgPool3d(out), x, f"AdaptiveAvgPool3d({out}) {x.shape}")
    stride, dil = sizes(r, 1, 3), sizes(r, 1, 2)
    out_pad = tuple(r(0, max(a, b) - 1) for a, b in zip(stride, dil))
    c, c_out, pad = x.shape[-4], r(1, 2), sizes(r, 0, 1)
    agree(lambda lib: lib.nn.ConvTranspose3d(c, c_out, k, stride, pad, out_pad, dilation=dil,
                                             dtype=lib.float64), x,
          f"ConvTranspose3d({c}, {c_out}, {k}, {stride}, {pad}, {out_pad}, {dil}) {x.shape}")


PADS = ["ZeroPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d"]


@pytest.mark.parametrize("seed", range(30))
def test_norms_and_padding_3d_fuzzed(seed):
    rng, r = draw(7000 + seed)
    c = r(1, 3)
    x = rng.standard_normal((r(1, 3), c + r(0, 1) * r(0, 1), *sizes(r, 1, 4)))
    args = dict(eps=[1e-5, 1e-2][r(0, 1)], momentum=[0.1, 0.5, None][r(0, 2)])
    agree(lambda lib: lib.nn.BatchNorm3d(c, dtype=lib.float64, **args), x,
          f"BatchNorm3d({c}, {args}) on {x.shape}")
    args.update(affine=bool(r(0, 1)), track_running_stats=bool(r(0, 1)))
    unbatched = x[0] if r(0, 1) else x

    def instance_norm(lib):
        layer = lib.nn.InstanceNorm3d(c, dtype=lib.float64, **args)
        return layer.eval() if seed % 3 == 0 else layer
    agree(instance_norm, unbatched, f"InstanceNorm3d({c}, {args}) on {unbatched.shape}")
    kind, padding = PADS[r(0, 4)], tuple(r(-1, 3) for _ in range(6))
    if kind == "CircularPad3d":
        left = [n - max(-padding[2 * i], 0) - max(-padding[2 * i + 1], 0)
                for i, n in enumerate(reversed(x.shape[2:]))]
        if any(max(padding[2 * i:2 * i + 2]) > n for i, n in enumerate(left)):
            return  # PyTorch reads memory it never wrote there (docs/pytorch.md)
    extra = (float(rng.standard_normal()),) if kind == "ConstantPad3d" else ()
    agree(lambda lib: getattr(lib.nn, kind)(padding, *extra), x, f"{kind}{padding} {x.shape}")
