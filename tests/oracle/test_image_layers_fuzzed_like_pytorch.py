"""Unfold, Fold, the padding layers, PixelShuffle/Unshuffle, InstanceNorm, ConvTranspose1d
and the adaptive 1-D pools against PyTorch on fuzzed, seeded arguments and odd input sizes:
the same outputs and gradients where PyTorch computes, an nnbook error where it raises
(and where docs/pytorch.md says nnbook refuses: circular padding wider than what a
negative padding leaves)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from like_pytorch import outcome, same_failure  # noqa: E402

import nnbook as nb  # noqa: E402


def run(lib, build, x):
    """(output, input gradient, parameter gradients) of build(lib) on x."""
    layer = build(lib)
    xt = lib.tensor(x, requires_grad=True)
    y = layer(xt)
    y = y[0] if isinstance(y, tuple) else y
    (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum().backward()
    return ([y.detach().numpy(), xt.grad.numpy()] +
            [p.grad.numpy() for p in layer.parameters() if p.grad is not None])


def agree(build, x, what, seed=0):
    """nnbook's layer gets PyTorch's weights (and buffers); both run, or both refuse."""
    def ours(lib):
        layer = build(lib)
        torch.manual_seed(seed)
        theirs = build(torch)  # the weights PyTorch's run starts from
        if theirs.state_dict():
            layer.load_state_dict({k: nb.tensor(v.numpy()) for k, v in
                                   theirs.state_dict().items()})
        return layer

    def reference(lib):
        torch.manual_seed(seed)
        return build(lib)

    mine, nb_error = outcome(lambda: run(nb, ours, x))
    theirs, torch_error = outcome(lambda: run(torch, reference, x))
    if same_failure(nb_error, torch_error, what):
        return
    assert len(mine) == len(theirs), what
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=what)


def draw(seed):
    rng = np.random.default_rng(seed)
    return rng, lambda low, high: int(rng.integers(low, high + 1))


@pytest.mark.parametrize("seed", range(40))
def test_unfold_and_fold(seed):
    rng, r = draw(seed)
    args = dict(kernel_size=(r(1, 4), r(1, 4)), dilation=(r(1, 2), r(1, 2)),
                padding=(r(0, 2), r(0, 2)), stride=(r(1, 3), r(1, 3)))
    image = (r(1, 9), r(1, 9))
    x = rng.standard_normal((r(1, 2), r(1, 3), *image))
    agree(lambda lib: lib.nn.Unfold(**args), x, f"Unfold {args} on {x.shape}")
    windows = [(size + 2 * p - d * (k - 1) - 1) // s + 1 for size, k, d, p, s in zip(
        image, args["kernel_size"], args["dilation"], args["padding"], args["stride"])]
    length = max(windows[0], 0) * max(windows[1], 0) + r(0, 1)  # sometimes one too many
    cols = rng.standard_normal((r(1, 2), r(1, 2) * np.prod(args["kernel_size"]), length))
    agree(lambda lib: lib.nn.Fold(image, **args), cols, f"Fold {image} {args} on {cols.shape}")


PADS = ["ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"]


@pytest.mark.parametrize("seed", range(80))
def test_padding_layers(seed):
    rng, r = draw(100 + seed)
    kind, dims = PADS[r(0, 4)], r(1, 2)
    padding = tuple(r(-2, 4) for _ in range(2 * dims))
    size = tuple(r(1, 6) for _ in range(dims))
    x = rng.standard_normal((r(1, 2), r(1, 3), *size)[r(0, 1):])
    if kind == "CircularPad":
        left = [s - max(-padding[2 * i], 0) - max(-padding[2 * i + 1], 0)
                for i, s in enumerate(reversed(size))]
        if any(max(padding[2 * i:2 * i + 2]) > n for i, n in enumerate(left)):
            return  # PyTorch reads memory it never wrote there (docs/pytorch.md)
    extra = (float(rng.standard_normal()),) if kind == "ConstantPad" else ()
    name = f"{kind}{dims}d"
    agree(lambda lib: getattr(lib.nn, name)(padding, *extra), x, f"{name}{padding} on {x.shape}")


@pytest.mark.parametrize("seed", range(30))
def test_pixel_shuffle_and_unshuffle(seed):
    rng, r = draw(200 + seed)
    factor = r(1, 3)
    shape = (r(1, 2), r(1, 3) * factor ** 2 + r(0, 1) * r(0, 1), r(1, 4), r(1, 4))[r(0, 1):]
    x = rng.standard_normal(shape)
    agree(lambda lib: lib.nn.PixelShuffle(factor), x, f"PixelShuffle({factor}) on {shape}")
    shape = (r(1, 2), r(1, 3), r(1, 3) * factor + r(0, 1), r(1, 3) * factor)
    x = rng.standard_normal(shape)
    agree(lambda lib: lib.nn.PixelUnshuffle(factor), x, f"PixelUnshuffle({factor}) on {shape}")


@pytest.mark.parametrize("seed", range(30))
def test_instance_norms(seed):
    rng, r = draw(300 + seed)
    dims, c = r(1, 2), r(1, 3)
    args = dict(affine=bool(r(0, 1)), track_running_stats=bool(r(0, 1)), eps=[1e-5, 1e-2][r(0, 1)],
                momentum=[0.1, 0.5, None][r(0, 2)])
    shape = (r(1, 3), c + r(0, 1) * r(0, 1), *(r(1, 5) for _ in range(dims)))[r(0, 1):]
    x = rng.standard_normal(shape)
    name = f"InstanceNorm{dims}d"

    def build(lib):
        layer = getattr(lib.nn, name)(c, dtype=lib.float64, **args)
        return layer.eval() if seed % 3 == 0 else layer
    agree(build, x, f"{name}({c}, {args}) on {shape}")


@pytest.mark.parametrize("seed", range(40))
def test_conv_transpose1d_and_adaptive_pools_1d(seed):
    rng, r = draw(400 + seed)
    g = [1, 1, 2][r(0, 2)]
    c_in, c_out = g * r(1, 2), g * r(1, 2)
    stride, dilation = r(1, 3), r(1, 2)
    args = dict(stride=stride, padding=r(0, 2), output_padding=r(0, max(stride, dilation) - 1),
                groups=g, dilation=dilation, bias=bool(r(0, 1)))
    k = r(1, 4)
    x = rng.standard_normal((r(1, 2), c_in, r(1, 8))[r(0, 1):])
    agree(lambda lib: lib.nn.ConvTranspose1d(c_in, c_out, k, dtype=lib.float64, **args), x,
          f"ConvTranspose1d({c_in}, {c_out}, {k}, {args}) on {x.shape}", seed)
    size = r(1, 9)
    x = rng.standard_normal((r(1, 2), r(1, 3), r(1, 9))[r(0, 1):])
    agree(lambda lib: lib.nn.AdaptiveAvgPool1d(size), x, f"AdaptiveAvgPool1d({size}) {x.shape}")
    agree(lambda lib: lib.nn.AdaptiveMaxPool1d(size), x, f"AdaptiveMaxPool1d({size}) {x.shape}")
