"""Conv2d and the pools against torch.nn.functional: values and every gradient, random configs."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

import nnbook as nb  # noqa: E402
from nnbook.errors import ShapeError  # noqa: E402
from nnbook.ops import Spec  # noqa: E402
from nnbook.ops.conv import Conv2d  # noqa: E402
from nnbook.ops.pool import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d  # noqa: E402
from nnbook.tensor import apply  # noqa: E402

# torch warns that 'same' with an even kernel copies the input; that is its business
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning")

SEEDS = range(40)
DTYPES = [np.float64, np.float32]


def close(ours, theirs, dtype):
    """Tight in float64; in float32 relative to the largest value (sums of many terms)."""
    theirs = theirs.detach().numpy()
    assert ours.dtype == dtype and ours.shape == theirs.shape
    if dtype == np.float64:
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
    else:
        scale = max(1.0, float(np.abs(theirs).max()))
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=2e-5 * scale)


def both(rng, shape, dtype, requires_grad=True):
    data = rng.standard_normal(shape).astype(dtype)
    return nb.tensor(data, requires_grad=requires_grad), torch.tensor(data,
                                                                       requires_grad=requires_grad)


def random_conv(rng):
    """A random valid configuration: (input shape, weight shape, op arguments, has bias)."""
    kind = rng.choice(["plain", "grouped", "depthwise", "pointwise"])
    groups = {"plain": 1, "pointwise": int(rng.integers(1, 3)),
              "grouped": int(rng.integers(2, 4)), "depthwise": int(rng.integers(2, 6))}[kind]
    c_in = groups * (1 if kind == "depthwise" else int(rng.integers(1, 4)))
    c_out = groups * int(rng.integers(1, 4))
    kernel = (1, 1) if kind == "pointwise" else tuple(int(k) for k in rng.integers(1, 5, 2))
    args = dict(stride=tuple(int(s) for s in rng.integers(1, 4, 2)),
                padding=0 if kind == "pointwise" else tuple(int(p) for p in rng.integers(0, 4, 2)),
                dilation=tuple(int(d) for d in rng.integers(1, 4, 2)), groups=groups)
    if kind != "pointwise" and rng.random() < 0.2:
        args.update(padding=str(rng.choice(["same", "valid"])), stride=1)
    batch = () if rng.random() < 0.15 else (int(rng.integers(1, 4)),)
    shape = batch + (c_in,) + tuple(int(s) for s in rng.integers(1, 13, 2))
    return shape, (c_out, c_in // groups) + kernel, args, bool(rng.random() < 0.7)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("seed", SEEDS)
def test_conv2d_random_configs(seed, dtype):
    rng = np.random.default_rng(seed)
    for _ in range(10):
        shape, w_shape, args, has_bias = random_conv(rng)
        try:
            Conv2d(**args).infer(Spec(shape, dtype), Spec(w_shape, dtype))
        except ShapeError:
            continue  # the kernel does not fit; torch raises too
        x, tx = both(rng, shape, dtype, requires_grad=bool(rng.random() < 0.8))
        w, tw = both(rng, w_shape, dtype)
        b, tb = both(rng, w_shape[:1], dtype) if has_bias else (None, None)
        y = apply(Conv2d(**args), x, w, *([b] if has_bias else []))
        ty = TF.conv2d(tx, tw, tb, **args)
        close(y.detach().numpy(), ty, dtype)
        g = rng.standard_normal(y.shape).astype(dtype)
        y.backward(g)
        ty.backward(torch.tensor(g))
        close(w.grad.numpy(), tw.grad, dtype)
        if has_bias:
            close(b.grad.numpy(), tb.grad, dtype)
        if x.requires_grad:
            close(x.grad.numpy(), tx.grad, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("case", [
    # (input, weight, args): the benchmark layers and the seed's Xception block
    ((8, 1, 28, 28), (16, 1, 3, 3), dict(padding=1)),
    ((8, 16, 14, 14), (32, 16, 3, 3), dict(padding=1)),
    ((4, 32, 32, 32), (32, 1, 3, 3), dict(padding=1, groups=32)),
    ((4, 32, 32, 32), (32, 32, 1, 1), dict()),
    ((10, 3, 16, 8), (64, 3, 3, 3), dict(stride=2, padding=1)),
    ((10, 64, 8, 4), (64, 1, 3, 3), dict(padding=1, groups=64)),
    ((10, 64, 8, 4), (128, 1, 3, 3), dict(padding=1, groups=64)),
    ((10, 64, 8, 4), (512, 64, 1, 1), dict(stride=2)),
], ids=["mnist1", "mnist2", "dw32", "pw32", "seed-in", "seed-dw", "seed-dw-m2", "seed-skip"])
def test_conv2d_network_sized_layers(case, dtype):
    rng = np.random.default_rng(0)
    shape, w_shape, args = case
    x, tx = both(rng, shape, dtype)
    w, tw = both(rng, w_shape, dtype)
    b, tb = both(rng, w_shape[:1], dtype)
    y = apply(Conv2d(**args), x, w, b)
    ty = TF.conv2d(tx, tw, tb, **args)
    close(y.detach().numpy(), ty, dtype)
    g = rng.standard_normal(y.shape).astype(dtype)
    y.backward(g)
    ty.backward(torch.tensor(g))
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        close(ours.grad.numpy(), theirs.grad, dtype)


def random_pool(rng):
    k = tuple(int(v) for v in rng.integers(1, 5, 2))
    return dict(kernel_size=k,
                stride=None if rng.random() < 0.3 else tuple(int(v) for v in rng.integers(1, 4, 2)),
                padding=tuple(int(rng.integers(0, v // 2 + 1)) for v in k),
                ceil_mode=bool(rng.random() < 0.5))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("seed", SEEDS)
def test_pools_random_configs(seed, dtype):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(6):
        batch = () if rng.random() < 0.15 else (int(rng.integers(1, 4)),)
        shape = batch + tuple(int(v) for v in rng.integers(1, 4, 1)) + tuple(
            int(v) for v in rng.integers(1, 12, 2))
        # integer-valued inputs make ties, which both must break the same way
        ties = rng.random() < 0.4
        args = random_pool(rng)
        max_args = dict(args, dilation=tuple(int(v) for v in rng.integers(1, 4, 2)))
        avg_args = dict(args, count_include_pad=bool(rng.random() < 0.5),
                        divisor_override=None if rng.random() < 0.7 else int(rng.integers(1, 5)))
        out = (int(rng.integers(1, shape[-2] + 3)),
               None if rng.random() < 0.3 else int(rng.integers(1, shape[-1] + 3)))
        for op, fn, kwargs in ((MaxPool2d(**max_args), TF.max_pool2d, max_args),
                               (AvgPool2d(**avg_args), TF.avg_pool2d, avg_args),
                               (AdaptiveAvgPool2d(out), TF.adaptive_avg_pool2d,
                                dict(output_size=out))):
            try:
                op.infer(Spec(shape, dtype))
            except ShapeError:
                continue  # nnbook refuses it (torch too, or torch misbehaves on it)
            data = (rng.integers(0, 3, shape) if ties else rng.standard_normal(shape)).astype(dtype)
            x, tx = nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
            y, ty = apply(op, x), fn(tx, **kwargs)
            close(y.detach().numpy(), ty, dtype)
            g = rng.standard_normal(y.shape).astype(dtype)
            y.backward(g)
            ty.backward(torch.tensor(g))
            close(x.grad.numpy(), tx.grad, dtype)


def test_shape_rules_match_torch_meta_shapes():
    """Data-free shapes against torch's meta tensors, including ceil_mode and dilation."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        shape, w_shape, args, _ = random_conv(rng)
        if len(shape) == 3:
            continue
        try:
            ours = Conv2d(**args).infer(Spec(shape), Spec(w_shape))
        except ShapeError:
            continue
        theirs = TF.conv2d(torch.empty(shape, device="meta"), torch.empty(w_shape, device="meta"),
                           **args).shape
        assert ours == tuple(theirs)
        pool_args = dict(random_pool(rng), dilation=tuple(int(v) for v in rng.integers(1, 3, 2)))
        try:
            ours = MaxPool2d(**pool_args).infer(Spec(shape))
        except ShapeError:
            continue
        theirs = TF.max_pool2d(torch.empty(shape, device="meta"), **pool_args).shape
        assert ours == tuple(theirs)
