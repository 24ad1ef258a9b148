"""Run an op as its kernel and as its reference, on the same data, and compare."""
from __future__ import annotations

import contextlib

import numpy as np

import nnbook as nb
from nnbook.tensor import apply

# Tolerances relative to the largest value compared: the two sum in different orders.
TOLERANCE = {np.dtype(np.float64): 1e-11, np.dtype(np.float32): 2e-5}


def run(make_op, arrays, needs_grad, grad_out_seed: int, reference: bool):
    """(class of the op built, output, gradient of each input or None)."""
    with nb.reference_ops() if reference else contextlib.nullcontext():
        op = make_op()
    tensors = [nb.tensor(a, requires_grad=need) for a, need in zip(arrays, needs_grad)]
    out = apply(op, *tensors)
    y = out.detach().numpy()
    if any(needs_grad):
        rng = np.random.default_rng(grad_out_seed)
        out.backward(nb.tensor(rng.standard_normal(y.shape).astype(y.dtype)))
    grads = [t.grad.numpy() if need else None for t, need in zip(tensors, needs_grad)]
    return type(op), y, grads


def assert_close(kernel, reference, what: str):
    assert kernel.dtype == reference.dtype and kernel.shape == reference.shape, what
    scale = max(1.0, float(np.nanmax(np.abs(reference), initial=0.0)))
    tol = TOLERANCE[reference.dtype]
    np.testing.assert_allclose(kernel, reference, rtol=tol, atol=tol * scale, err_msg=what)


def kernel_matches_reference(make_op, arrays, needs_grad, seed: int = 0):
    """Compare forward and every gradient; return the kernel class that ran."""
    kernel_cls, y_k, grads_k = run(make_op, arrays, needs_grad, seed, reference=False)
    reference_cls, y_r, grads_r = run(make_op, arrays, needs_grad, seed, reference=True)
    assert kernel_cls is not reference_cls and issubclass(kernel_cls, reference_cls)
    assert_close(y_k, y_r, "forward")
    for i, (g_k, g_r) in enumerate(zip(grads_k, grads_r)):
        assert (g_k is None) == (g_r is None)
        if g_r is not None:
            assert_close(g_k, g_r, f"gradient of input {i}")
    return kernel_cls
