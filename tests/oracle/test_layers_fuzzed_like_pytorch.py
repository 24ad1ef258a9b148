"""Conv2d (every padding mode), MaxPool2d, AvgPool2d, the adaptive pools and
ConvTranspose2d against PyTorch on fuzzed, seeded arguments and odd input sizes: the
same outputs and gradients where PyTorch computes, an nnbook error where PyTorch raises
(and where docs/pytorch.md says nnbook refuses: a max-pool window of padding only)."""
import contextlib
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import NnbookError

torch = pytest.importorskip("torch")


def outcome(lib, build, x):
    """((output, input gradient, weight gradient or None), or 'refused'; the layer)."""
    layer = None
    try:
        with warnings.catch_warnings() if lib is torch else contextlib.nullcontext():
            if lib is torch:  # e.g. its note on padding='same' with an even kernel
                warnings.simplefilter("ignore", UserWarning)
            layer = build(lib)
            xt = lib.tensor(x, requires_grad=True)
            y = layer(xt)
            y.sum().backward()
    except (NnbookError, RuntimeError) as error:
        assert isinstance(error, NnbookError) == (lib is nb), repr(error)
        return "refused", layer
    weight = getattr(layer, "weight", None)
    return (y.detach().numpy(), xt.grad.numpy(),
            None if weight is None else weight.grad.numpy()), layer


def agree(build, x, padding_only=False):
    theirs, their_layer = outcome(torch, build, x)
    def ours_build(lib):
        layer = build(lib)
        if their_layer is not None and their_layer.state_dict():
            layer.load_state_dict({k: nb.tensor(v.detach().numpy())
                                   for k, v in their_layer.state_dict().items()})
        return layer
    ours, _ = outcome(nb, ours_build, x)
    if theirs == "refused" or ours == "refused":
        # nnbook also refuses a max-pool window of padding only, where PyTorch gives -inf
        assert ours == "refused" and (theirs == "refused" or padding_only and np.isinf(
            theirs[0]).any()), (ours if ours == "refused" else "nnbook ran", theirs)
        return
    for a, b in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


def draw(seed):
    rng = np.random.default_rng(seed)
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    return rng, r


@pytest.mark.parametrize("seed", range(60))
def test_conv2d_with_every_padding_mode(seed):
    rng, r = draw(seed)
    g = [1, 1, 2, 3][r(0, 3)]
    c_in, c_out = g * r(1, 3), g * r(1, 3)
    padding = [0, 1, (r(0, 2), r(0, 2)), "same", "valid"][r(0, 4)]
    args = dict(kernel_size=(r(1, 4), r(1, 4)), dilation=(r(1, 2), r(1, 2)), groups=g,
                stride=(1, 1) if padding == "same" else (r(1, 3), r(1, 3)), padding=padding,
                padding_mode=["zeros", "reflect", "replicate", "circular"][r(0, 3)])
    x = rng.standard_normal((r(1, 3), c_in, r(1, 11), r(1, 11)))
    agree(lambda lib: lib.nn.Conv2d(c_in, c_out, dtype=lib.float64, **args), x)


@pytest.mark.parametrize("seed", range(60))
def test_pools_and_transposed_convolutions(seed):
    rng, r = draw(1000 + seed)
    x = rng.standard_normal((r(1, 2), r(1, 3), r(1, 10), r(1, 10)))
    k, p = (r(1, 4), r(1, 4)), (r(0, 2), r(0, 2))
    s = [None, (r(1, 3), r(1, 3))][r(0, 1)]
    d, ceil = (r(1, 2), r(1, 2)), bool(r(0, 1))
    agree(lambda lib: lib.nn.MaxPool2d(k, s, p, d, ceil_mode=ceil), x, padding_only=True)
    include_pad, divisor = bool(r(0, 1)), [None, r(1, 5)][r(0, 1)]
    agree(lambda lib: lib.nn.AvgPool2d(k, s, p, ceil, include_pad, divisor), x)
    size = (r(1, 5), r(1, 5))
    agree(lambda lib: lib.nn.AdaptiveMaxPool2d(size), x)
    agree(lambda lib: lib.nn.AdaptiveAvgPool2d(size), x)
    stride, dil = (r(1, 3), r(1, 3)), (r(1, 2), r(1, 2))
    out_pad = (r(0, max(stride[0], dil[0]) - 1), r(0, max(stride[1], dil[1]) - 1))
    c, c_out, pad = x.shape[1], r(1, 2), (r(0, 1), r(0, 1))
    agree(lambda lib: lib.nn.ConvTranspose2d(c, c_out, k, stride, pad, out_pad, dilation=dil,
                                             dtype=lib.float64), x)
