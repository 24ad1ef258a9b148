"""The ReLU kernel (nnbook/kernels/elementwise.py) gives the reference's bits, special
values included, with PyTorch's semantics (checked with torch 2.13): relu(-1) is 0.0,
relu(-0.0) stays -0.0, relu(-inf) is 0, NaN stays NaN; the gradient passes where x > 0 and
where x is NaN (PyTorch's mask is "not x <= 0"), and is 0 elsewhere."""
import numpy as np
import pytest
from kernel_check import run

import nnbook as nb
from nnbook.kernels import threads
from nnbook.kernels.elementwise import ReluKernel
from nnbook.ops.elementwise import Relu

SPECIAL = [-1.0, -0.0, 0.0, 2.5, -np.inf, np.inf, np.nan, -1e-45, 1e-45]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(9,), (3, 7, 5), (5, 7, 61, 53)])  # the last one splits
def test_relu_kernel_is_the_reference_bit_for_bit(shape, dtype, monkeypatch):
    monkeypatch.setattr(threads, "MIN_CHUNK", 1 << 14)  # so that the last shape splits
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:len(SPECIAL)] = SPECIAL
    before = nb.get_num_threads()
    nb.set_num_threads(2)
    try:
        kernel = run(Relu, [x], [True], 1, reference=False)
        reference = run(Relu, [x], [True], 1, reference=True)
    finally:
        nb.set_num_threads(before)
    assert kernel[0] is ReluKernel and reference[0] is Relu
    for a, b in zip((kernel[1], kernel[2][0]), (reference[1], reference[2][0])):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b)
        assert (np.signbit(a) == np.signbit(b)).all()  # 0.0 and -0.0 told apart


@pytest.mark.parametrize("reference", [False, True], ids=["kernel", "reference"])
def test_relu_special_values(reference):
    _, y, (grad,) = run(Relu, [np.array(SPECIAL)], [True], 0, reference)
    expected = [0.0, -0.0, 0.0, 2.5, 0.0, np.inf, np.nan, 0.0, 1e-45]
    np.testing.assert_array_equal(y, expected)
    assert np.signbit(y).tolist() == [False, True] + [False] * 7  # relu(-0.0) is -0.0
    g = np.random.default_rng(0).standard_normal(len(SPECIAL))  # run's grad_out for seed 0
    open_ = np.array([False, False, False, True, False, True, True, False, True])  # x > 0, NaN
    np.testing.assert_array_equal(grad, np.where(open_, g, 0.0))


def test_relu_keeps_integer_dtypes():
    x = np.array([-3, 0, 4], dtype=np.int8)
    for reference in (False, True):
        y = run(Relu, [x], [False], 0, reference)[1]
        assert y.dtype == np.int8 and y.tolist() == [0, 0, 4]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu_backward_closes_special_gradients_bit_for_bit(dtype):
    """Where the input was closed, inf, NaN and -0.0 in dL/dy all become +0.0; where open
    they pass unchanged (the kernel ANDs the gradient's bits with its mask)."""
    x = np.array([-1.0, 2.0, -0.0, np.nan, 3.0, -np.inf, 0.5], dtype=dtype)
    g = np.array([np.nan, np.nan, np.inf, -0.0, -np.inf, -0.0, 1.5], dtype=dtype)
    grads = []
    for kernel in (ReluKernel, Relu):
        op = kernel.__new__(kernel)
        op.forward(x)
        grads.append(op.backward(g)[0])
    for grad in grads:
        np.testing.assert_array_equal(grad, [0.0, np.nan, 0.0, -0.0, -np.inf, 0.0, 1.5])
        assert grad.dtype == dtype
    assert np.array_equal(grads[0].view(np.uint8), grads[1].view(np.uint8))  # same bits
