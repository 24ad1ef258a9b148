"""The BatchNorm kernel (nnbook/kernels/norm.py) computes what the reference op computes:
output, every gradient and the running statistics, in training and evaluation, with and
without weight and bias, on (N, C), (N, C, L) and (N, C, H, W) inputs."""
import numpy as np
import pytest
from kernel_check import assert_close, kernel_matches_reference

import nnbook as nb
from nnbook.kernels import threads as kernel_threads
from nnbook.kernels.norm import BatchNormKernel
from nnbook.ops.norm import BatchNorm

# the last has rows of 4757 values: per-channel values broadcast, not written out
SHAPES = [(7, 5), (3, 5, 11), (4, 3, 7, 5), (2, 37, 9, 7), (5, 3, 61, 53), (2, 3, 67, 71)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("affine", ["weight and bias", "weight", "none"])
def test_batch_norm_kernel_matches_reference(shape, training, affine, dtype):
    rng = np.random.default_rng(len(shape) + shape[1])
    c = shape[1]
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    params = {"weight and bias": 2, "weight": 1, "none": 0}[affine]
    arrays = [x] + [rng.standard_normal(c).astype(dtype) for _ in range(params)]
    stats = {}

    def make():  # fresh running statistics each time, kept to compare afterwards
        mean, var = np.linspace(-1, 1, c).astype(dtype), np.linspace(0.5, 2, c).astype(dtype)
        stats.setdefault("runs", []).append((mean, var))
        return BatchNorm(training, 0.1, 1e-5, mean, var)

    kernel = kernel_matches_reference(make, arrays, [True] * len(arrays))
    assert kernel is BatchNormKernel
    (mean_k, var_k), (mean_r, var_r) = stats["runs"]
    assert_close(mean_k, mean_r, "running_mean")
    assert_close(var_k, var_r, "running_var")


def test_batch_norm_is_the_same_with_threads(monkeypatch):
    monkeypatch.setattr(kernel_threads, "MIN_CHUNK", 1 << 14)  # chunks of a block or two
    rng = np.random.default_rng(9)
    x = rng.standard_normal((13, 37, 29, 23)).astype(np.float32)  # 13 samples: 4, 4, 5
    w, b = rng.standard_normal(37).astype(np.float32), rng.standard_normal(37).astype(np.float32)
    results = []
    before = nb.get_num_threads()
    try:
        for threads in (1, 2, 3):
            nb.set_num_threads(threads)
            tensors = [nb.tensor(a, requires_grad=True) for a in (x, w, b)]
            rm, rv = nb.zeros(37), nb.ones(37)
            y = nb.nn.functional.batch_norm(*tensors[:1], rm, rv, *tensors[1:], training=True)
            y.backward(nb.tensor(np.cos(np.arange(y.numel())).reshape(y.shape)
                                 .astype(np.float32)))
            results.append([y.detach().numpy(), rm.numpy(), rv.numpy()]
                           + [t.grad.numpy() for t in tensors])
    finally:
        nb.set_num_threads(before)
    for other in results[1:]:
        for a, b_ in zip(results[0], other):
            np.testing.assert_array_equal(a, b_)


def test_batch_statistics_merged_over_blocks_are_exact_for_a_large_mean(monkeypatch):
    """The kernel merges each block's mean and squared deviations (Chan's formula); with
    a mean 1000 times the spread, float32 E[x^2] - mean^2 would have lost every digit of
    the variance, while the merge keeps it to float32 rounding."""
    from nnbook.kernels import norm

    monkeypatch.setattr(norm, "BLOCK_VALUES", 1 << 10)  # five blocks of 9 samples or fewer
    rng = np.random.default_rng(3)
    x = (1000 + rng.standard_normal((37, 3, 7, 5))).astype(np.float32)
    x3 = x.reshape(37, 3, -1)
    mean, var = norm._mean_and_var(x3, norm._blocks(x3))
    assert len(norm._blocks(x3)) == 5
    exact = x.astype(np.float64)
    np.testing.assert_allclose(mean, exact.mean(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(var, exact.var(axis=(0, 2, 3)), rtol=1e-4)


def test_row_dots_without_numpy_vecdot_match(monkeypatch):
    """numpy 1.x has no vecdot: the einsum the kernel falls back on gives the same sums."""
    from nnbook.kernels import norm

    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 3, 5, 11))
    with_vecdot = norm._row_dots(a, b)
    monkeypatch.setattr(norm, "_vecdot", None)
    np.testing.assert_allclose(norm._row_dots(a, b), with_vecdot, rtol=1e-12)
    np.testing.assert_allclose(with_vecdot, (a * b).sum(axis=2), rtol=1e-12)
