"""The Conv2d kernel (nnbook/kernels/conv.py) computes what the reference op computes.

Fuzzed, seeded configurations: odd and non-square sizes, strides, paddings (ints, pairs,
'same', 'valid'), dilations, groups (depthwise, depth multiplier 2, one input channel),
1×1 kernels, unbatched inputs and empty batches, float32 and float64, each input with
or without a gradient.  Forward and every gradient must agree to rounding.
"""
import collections

import numpy as np
import pytest
from kernel_check import assert_close, kernel_matches_reference, run

from nnbook.errors import ShapeError
from nnbook.kernels.conv import Conv1dKernel, Conv2dKernel, choose_path
from nnbook.ops import Spec
from nnbook.ops.conv import Conv2d, conv_pads
from nnbook.ops.onedim import Conv1d

KINDS = ["ordinary", "grouped", "depthwise", "multiplier 2", "one channel", "1x1"]


def channels(kind, rng):
    """(C_in, C_out, groups) of one kind of convolution."""
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    if kind == "grouped":
        g = r(2, 3)
        return g * r(1, 2), g * r(1, 3), g
    if kind == "depthwise":
        c = r(2, 5)
        return c, c, c
    if kind == "multiplier 2":
        c = r(2, 4)
        return c, 2 * c, c
    if kind == "one channel":
        return 1, r(1, 4), 1
    return r(1, 4), r(1, 5), 1


def random_config(seed):
    """(x shape, weight shape, op arguments, with bias) of one fuzzed convolution."""
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]  # every kind, in turn
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    while True:
        c_in, c_out, groups = channels("ordinary" if kind == "1x1" else kind, rng)
        kernel = (1, 1) if kind == "1x1" else (r(1, 4), r(1, 4))
        stride = r(1, 3) if rng.random() < 0.3 else (r(1, 3), r(1, 3))
        dilation = r(1, 2) if rng.random() < 0.5 else (r(1, 2), r(1, 3))
        padding = [r(0, 2), (r(0, 2), r(0, 1)), "valid", "same"][r(0, 3)]
        if kind == "1x1" and rng.random() < 0.7:
            padding = 0
        if padding == "same":
            stride = 1
        batch = [(), (0,), (1,), (2,), (3,)][r(0, 4)]  # () is an unbatched (C, H, W) input
        x_shape = batch + (c_in, r(1, 11), r(1, 11))
        w_shape = (c_out, c_in // groups) + kernel
        args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        try:
            Conv2d(**args).infer(Spec(x_shape), Spec(w_shape))
        except ShapeError:
            continue  # the kernel does not fit this input: draw again
        return x_shape, w_shape, args, bool(rng.random() < 0.7), rng


def path_of(x_shape, w_shape, args):
    pads = conv_pads(Conv2d(**args).padding, w_shape[2:], Conv2d(**args).dilation)
    return choose_path(x_shape[-3], w_shape, args["groups"], pads)


SEEDS = range(90)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", SEEDS)
def test_conv_kernel_matches_reference(seed, dtype):
    x_shape, w_shape, args, with_bias, rng = random_config(seed)
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape)]
    if with_bias:
        arrays.append(rng.standard_normal(w_shape[0]))
    arrays = [a.astype(dtype) for a in arrays]
    needs = [bool(rng.random() < 0.8) for _ in arrays]
    kernel = kernel_matches_reference(lambda: Conv2d(**args), arrays, needs, seed)
    assert kernel is Conv2dKernel


def random_config_1d(seed):
    """(x shape, weight shape, op arguments) of one fuzzed 1-D convolution."""
    rng = np.random.default_rng(1000 + seed)
    kind = KINDS[seed % len(KINDS)]
    r = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    while True:
        c_in, c_out, groups = channels("ordinary" if kind == "1x1" else kind, rng)
        k = 1 if kind == "1x1" else r(1, 4)
        args = dict(stride=r(1, 3), padding=[r(0, 2), "valid", "same"][r(0, 2)],
                    dilation=r(1, 2), groups=groups)
        if args["padding"] == "same":
            args["stride"] = 1
        x_shape = [(), (0,), (1,), (2,), (3,)][r(0, 4)] + (c_in, r(1, 13))
        w_shape = (c_out, c_in // groups, k)
        try:
            Conv1d(**args).infer(Spec(x_shape), Spec(w_shape))
        except ShapeError:
            continue
        return x_shape, w_shape, args, rng


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", range(30))
def test_conv1d_runs_on_the_conv2d_kernel_and_matches_its_reference(seed, dtype):
    x_shape, w_shape, args, rng = random_config_1d(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in (x_shape, w_shape, w_shape[:1])]
    needs = [bool(rng.random() < 0.8) for _ in arrays]
    kernel = kernel_matches_reference(lambda: Conv1d(**args), arrays, needs, seed)
    assert kernel is Conv1dKernel


def test_the_fuzzed_configurations_reach_every_algorithm_and_case():
    """The configurations above are worth their names: each algorithm, and each case the
    kernels treat apart, comes up several times."""
    seen = collections.Counter()
    for seed in SEEDS:
        x_shape, w_shape, args, _, _ = random_config(seed)
        seen[path_of(x_shape, w_shape, args)] += 1
        seen["unbatched"] += len(x_shape) == 3
        seen["empty batch"] += x_shape[0] == 0 and len(x_shape) == 4
        seen["same"] += args["padding"] == "same"
        seen["valid"] += args["padding"] == "valid"
        seen["strided"] += args["stride"] not in (1, (1, 1))
        seen["dilated"] += args["dilation"] not in (1, (1, 1))
        seen["multiplier 2"] += w_shape[0] == 2 * x_shape[-3] and args["groups"] == x_shape[-3]
    for case in ("pointwise", "depthwise", "im2col", "unbatched", "empty batch", "same",
                 "valid", "strided", "dilated", "multiplier 2"):
        assert seen[case] >= 4, (case, seen)


@pytest.mark.parametrize("x_shape,w_shape,args", [
    ((2, 3, 7, 5), (4, 3, 1, 1), dict(stride=2)),
    ((2, 4, 7, 5), (4, 2, 1, 1), dict(groups=2)),
    ((2, 3, 7, 5), (4, 3, 1, 1), dict(padding=1)),      # 1×1 with padding
    ((2, 4, 7, 5), (4, 1, 3, 2), dict(groups=4)),
    ((2, 4, 7, 5), (8, 1, 3, 2), dict(groups=4)),       # depth multiplier 2
    ((2, 1, 7, 5), (4, 1, 3, 2), dict()),               # one input channel
    ((10, 64, 8, 4), (64, 1, 3, 3), dict(padding=1, groups=64)),  # the swapped height and width
])
def test_conv_kernel_matches_reference_on_named_cases(x_shape, w_shape, args):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape),
              rng.standard_normal(w_shape[0])]
    kernel_matches_reference(lambda: Conv2d(**args), arrays, [True, True, True])


@pytest.mark.parametrize("x_shape,w_shape,args", [
    ((2, 3, 7, 5), (5, 3, 3, 2), dict(stride=2, padding=1, dilation=(1, 2))),  # im2col
    ((2, 4, 7, 5), (4, 1, 3, 3), dict(padding=1, groups=4)),                   # depthwise
    ((2, 3, 7, 5), (4, 3, 1, 1), dict(stride=(2, 1))),                         # pointwise
])
def test_a_nan_in_the_input_spreads_as_in_the_reference(x_shape, w_shape, args):
    """NaN pixels make NaN outputs at the same places both ways, and the weight's
    gradient NaN where the reference's is (assert_allclose compares NaN places)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal(x_shape)
    x[0, 0, 3, 3] = x[1, -1, 4, 2] = np.nan  # each convolution reads at least one
    arrays = [x, rng.standard_normal(w_shape), rng.standard_normal(w_shape[0])]
    kernel_matches_reference(lambda: Conv2d(**args), arrays, [True, True, True])
    y = run(lambda: Conv2d(**args), arrays, [False, False, False], 0, reference=False)[1]
    assert np.isnan(y).any() and not np.isnan(y).all()


@pytest.mark.parametrize("bad", [np.inf, np.nan])
@pytest.mark.parametrize("args", [dict(padding=1), dict(stride=2, padding=(1, 0))])
def test_an_inf_or_nan_weight_reaches_the_reference_pixels_only(bad, args):
    """The input's gradient is computed in columns that include spare ones (where dL/dy
    is 0); inf · 0 there must not reach pixels the reference leaves finite."""
    rng = np.random.default_rng(17)
    w = rng.standard_normal((4, 3, 3, 3))
    w[1, 2, 0, 0] = bad  # the top-left tap: its spare columns touch the last pixel column
    arrays = [rng.standard_normal((2, 3, 7, 5)), w, rng.standard_normal(4)]
    kernel, reference = (run(lambda: Conv2d(**args), arrays, [True, False, False], 0, ref)[2][0]
                         for ref in (False, True))
    finite = np.isfinite(reference)
    assert finite.any() and not finite.all()
    np.testing.assert_array_equal(np.isfinite(kernel), finite)
    assert_close(kernel[finite], reference[finite], "finite gradients")
