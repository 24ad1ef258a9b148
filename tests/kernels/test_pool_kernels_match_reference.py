"""The pooling kernels (nnbook/kernels/pool.py) compute what the reference ops compute.

Fuzzed, seeded configurations: odd and non-square sizes, kernel sizes, strides,
paddings, dilations, ceil_mode, count_include_pad and divisor_override, unbatched
inputs and empty batches, float32 and float64.  Max pooling is also run on small
integers (many ties: the first maximum must get the gradient) and with NaNs, and with
return_indices=True (the same indices).
"""
import collections
import contextlib
import functools

import numpy as np
import pytest
from kernel_check import assert_close, kernel_matches_reference, run

import nnbook as nb
from nnbook.errors import ShapeError
from nnbook.kernels.pool import (
    AdaptiveAvgPool2dKernel,
    AvgPool1dKernel,
    AvgPool2dKernel,
    MaxPool1dKernel,
    MaxPool2dKernel,
    max_pool_path,
)
from nnbook.ops import Spec
from nnbook.ops.onedim import AvgPool1d, MaxPool1d
from nnbook.ops.pool import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from nnbook.tensor import apply


def random_window(rng):
    """kernel_size, stride, padding and ceil_mode of one fuzzed pool."""
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    kernel = r(1, 4) if rng.random() < 0.4 else (r(1, 4), r(1, 3))
    k = (kernel, kernel) if isinstance(kernel, int) else kernel
    stride = [None, r(1, 3), (r(1, 3), r(1, 2))][r(0, 2)]
    padding = [0, min(k) // 2, (k[0] // 2, 0)][r(0, 2)]
    return kernel, stride, padding, bool(rng.random() < 0.4)


def random_input(rng, dtype, ties=False, nans=False):
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    batch = [(), (0,), (1,), (2,), (3,)][r(0, 4)]  # () is an unbatched (C, H, W) input
    if rng.random() < 0.3:  # many channels, narrow images
        shape = batch + (r(6, 13), r(1, 9), r(1, 5))
    else:
        shape = batch + (r(1, 3), r(1, 11), r(1, 11))
    x = rng.integers(0, 3, shape) if ties else rng.standard_normal(shape)
    x = x.astype(dtype)
    if nans and x.size:
        x.flat[rng.integers(0, x.size, size=max(1, x.size // 20))] = np.nan
    return x


def fitting(make_op, rng, dtype, **kinds):
    """An op and an input it accepts (drawn again until the window fits)."""
    while True:
        op_args, x = make_op(rng), random_input(rng, dtype, **kinds)
        try:
            op_args[0]().infer(Spec(x.shape))
        except ShapeError:
            continue
        return op_args, x


def max_pool(rng):
    kernel, stride, padding, ceil_mode = random_window(rng)
    dilation = 1 if rng.random() < 0.6 else (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    args = (kernel, stride, padding, dilation, ceil_mode)
    return (lambda: MaxPool2d(*args)), args


def avg_pool(rng):
    kernel, stride, padding, ceil_mode = random_window(rng)
    override = None if rng.random() < 0.7 else int(rng.integers(1, 5))
    args = (kernel, stride, padding, ceil_mode, bool(rng.random() < 0.5), override)
    return (lambda: AvgPool2d(*args)), args


SEEDS = range(80)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", SEEDS)
def test_max_pool_kernel_matches_reference(seed, dtype):
    rng = np.random.default_rng(seed)
    kinds = [{}, {"ties": True}, {"nans": True}][seed % 3]
    (make, _), x = fitting(max_pool, rng, dtype, **kinds)
    assert kernel_matches_reference(make, [x], [True], seed) is MaxPool2dKernel


@pytest.mark.parametrize("seed", range(40))
def test_max_pool_kernel_gives_the_reference_s_indices(seed):
    """return_indices=True: every layout numbers each maximum in its plane as the
    reference does (an input with NaN goes to the reference)."""
    rng = np.random.default_rng(3000 + seed)
    kinds = [{}, {"ties": True}, {"nans": True}][seed % 3]
    (_, args), x = fitting(max_pool, rng, np.float64, **kinds)
    make = lambda: MaxPool2d(*args, return_indices=True)  # noqa: E731
    assert kernel_matches_reference(make, [x], [True], seed) is MaxPool2dKernel
    indices = []
    for switch in (contextlib.nullcontext, nb.reference_ops):
        with switch():
            op = make()
        apply(op, nb.tensor(x))
        indices.append(op.indices)
    np.testing.assert_array_equal(indices[0], indices[1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", SEEDS)
def test_avg_pool_kernel_matches_reference(seed, dtype):
    rng = np.random.default_rng(seed)
    (make, _), x = fitting(avg_pool, rng, dtype)
    assert kernel_matches_reference(make, [x], [True], seed) is AvgPool2dKernel


def pool_1d(rng, dtype, kind):
    """A 1-D pool (MaxPool1d or AvgPool1d) and a signal it accepts."""
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    while True:
        k = r(1, 4)
        stride, padding, ceil_mode = [None, r(1, 3)][r(0, 1)], [0, k // 2][r(0, 1)], r(0, 1) == 1
        if kind == "max":
            args = (k, stride, padding, r(1, 2), ceil_mode)
            make = functools.partial(MaxPool1d, *args)
        else:
            args = (k, stride, padding, ceil_mode, r(0, 1) == 1)
            make = functools.partial(AvgPool1d, *args)
        shape = [(), (0,), (1,), (2,), (3,)][r(0, 4)] + (r(1, 7), r(1, 13))
        x = (rng.integers(0, 3, shape) if kind == "max" and r(0, 1) else
             rng.standard_normal(shape)).astype(dtype)
        try:
            make().infer(Spec(x.shape))
        except ShapeError:
            continue
        return make, x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind,kernel", [("max", MaxPool1dKernel), ("avg", AvgPool1dKernel)])
@pytest.mark.parametrize("seed", range(30))
def test_1d_pools_run_on_the_2d_kernels_and_match_their_reference(seed, kind, kernel, dtype):
    rng = np.random.default_rng(2000 + seed)
    make, x = pool_1d(rng, dtype, kind)
    assert kernel_matches_reference(make, [x], [True], seed) is kernel


def test_the_fuzzed_configurations_reach_every_case():
    seen = collections.Counter()
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        (make, args), x = fitting(max_pool, rng, np.float64)
        seen[max_pool_path(make(), (1,) * (4 - x.ndim) + x.shape)] += 1
        seen["ceil_mode"] += args[4]
        seen["dilated"] += args[3] != 1
        seen["unbatched"] += x.ndim == 3
        seen["empty batch"] += x.ndim == 4 and x.shape[0] == 0
        rng = np.random.default_rng(seed)
        (make, args), x = fitting(avg_pool, rng, np.float64)
        seen["no pad counted"] += not args[4] and args[2] != 0
        seen["divisor_override"] += args[5] is not None
    for case in ("tiled", "planes", "channels last", "ceil_mode", "dilated", "unbatched",
                 "empty batch", "no pad counted", "divisor_override"):
        assert seen[case] >= 4, (case, seen)


@pytest.mark.parametrize("shape,kernel", [((2, 3, 8, 6), 2), ((2, 3, 7, 5), 2),
                                          ((1, 2, 9, 8), (3, 2)), ((3, 7, 5), (2, 1))])
def test_tiling_max_pool_matches_reference_with_ties(shape, kernel):
    """Windows that tile the input take the kernel's strided-view path."""
    rng = np.random.default_rng(11)
    data = rng.integers(0, 3, size=shape).astype(np.float64)  # many ties
    assert max_pool_path(MaxPool2d(kernel), (1,) * (4 - len(shape)) + shape) == "tiled"
    kernel_matches_reference(lambda: MaxPool2d(kernel), [data], [True])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,output_size", [
    ((2, 3, 7, 5), 1), ((2, 3, 9, 4), (3, 2)), ((3, 8, 6), (None, 2)), ((0, 3, 4, 4), 2),
    ((2, 3, 7, 5), (3, 2)), ((2, 3, 5, 11), (4, None)), ((10, 512, 4, 2), 1)])
def test_adaptive_avg_pool_kernel_matches_reference(shape, output_size, dtype):
    """Output sizes that divide the input's take the kernel's reshape-and-mean path; the
    others (7 → 3, 5 → 4) its fallback to the reference."""
    x = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    make = lambda: AdaptiveAvgPool2d(output_size)  # noqa: E731
    kernel = kernel_matches_reference(make, [x], [True])
    assert kernel is AdaptiveAvgPool2dKernel


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_pool_channels_last_with_windows_of_minus_inf_and_nan(dtype):
    """Windows of -inf (their first tap in the padding, or not) and of NaN: the
    channels-last backward (one bincount) drops what the reference drops."""
    x = np.random.default_rng(5).standard_normal((3, 12, 7, 5)).astype(dtype)
    x[0, :, :2, :] = -np.inf       # top rows: windows of -inf, the first tap in the padding
    x[1, 4, 3:, 2:] = -np.inf      # an inner corner: the first tap inside the image
    x[1, 9, 3:6, :2] = -np.inf     # at the left edge: the first tap in the left padding
    x[2, 7, 4, 1] = np.nan
    make = lambda: MaxPool2d(3, 2, 1)  # noqa: E731
    assert max_pool_path(make(), x.shape) == "channels last"
    kernel_cls, y_k, (grad_k,) = run(make, [x], [True], 0, reference=False)
    _, y_r, (grad_r,) = run(make, [x], [True], 0, reference=True)
    assert kernel_cls is MaxPool2dKernel
    np.testing.assert_array_equal(y_k, y_r)  # -inf and NaN where the reference has them
    assert_close(grad_k, grad_r, "gradient")
    assert np.all(grad_k[0, :, 0, :] == 0) and np.any(grad_k[1, 4, 3:, 2:] != 0)
