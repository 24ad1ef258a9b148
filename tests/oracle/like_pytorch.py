"""What the oracle tests share: run a thing in nnbook and in PyTorch, and compare.

An outcome is either a result or the exception raised.  Where PyTorch raises, nnbook must
raise one of its own errors (an ``nb.NnbookError``), of the builtin class a user would catch
for PyTorch's (PyTorch's RuntimeError and NotImplementedError have no nnbook twin: any
nnbook error answers them).  Where PyTorch computes, nnbook must compute the same values,
dtype and shape.
"""
from __future__ import annotations

import numpy as np
import torch

import nnbook as nb

# Where PyTorch raises one of these, nnbook's error must be one too
_BUILTINS = (IndexError, ValueError, TypeError)


def outcome(fn):
    """(result, None) or (None, the exception)."""
    try:
        return fn(), None
    except Exception as error:  # noqa: BLE001  (comparing who raises is the point)
        return None, error


def same_failure(nb_error, torch_error, what) -> bool:
    """Both raised (True), neither did (False); anything else fails the test."""
    if torch_error is None and nb_error is None:
        return False
    assert torch_error is not None, f"{what}: nnbook raised, PyTorch did not: {nb_error!r}"
    assert nb_error is not None, f"{what}: PyTorch raised, nnbook did not: {torch_error!r}"
    assert isinstance(nb_error, nb.NnbookError), \
        f"{what}: PyTorch raised {torch_error!r}; nnbook's error is not an nnbook one: {nb_error!r}"
    for builtin in _BUILTINS:
        if isinstance(torch_error, builtin):
            assert isinstance(nb_error, builtin), \
                f"{what}: PyTorch raised {torch_error!r}; nnbook's {nb_error!r} is no {builtin}"
    return True


def array(t) -> np.ndarray:
    """The values of an nnbook or PyTorch tensor (or a number) as a numpy array."""
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    if isinstance(t, nb.Tensor):
        return t.detach().numpy()
    return np.asarray(t)


def tolerance(dtype) -> float:
    return {np.float16: 2e-3, np.float32: 2e-6}.get(np.dtype(dtype).type, 1e-12)


def assert_same(nb_value, torch_value, what, signed_zeros=False, tol=None):
    """Same dtype, shape and values (NaN where PyTorch has NaN; infinities equal)."""
    got, want = array(nb_value), array(torch_value)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, PyTorch {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    tol = tolerance(got.dtype) if tol is None else tol
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: NaN at other places"
    if signed_zeros:
        zeros = (got == 0) & (want == 0)
        assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros])), \
            f"{what}: the sign of a zero differs:\n{got}\nPyTorch:\n{want}"


def both(rng, *shapes, dtype=np.float64):
    """The same random arrays as nnbook and as PyTorch leaves that require gradients."""
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return ([nb.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def agree(ours, theirs, rng, inputs_b, inputs_t, tol=1e-10):
    """The same output, then the same gradients of sum(out * r) for a random r."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                               rtol=tol, atol=tol * 1e-2)
    r = rng.standard_normal(tuple(theirs.shape)).astype(ours.detach().numpy().dtype)
    ours.backward(nb.tensor(r))
    theirs.backward(torch.tensor(r))
    for b, t in zip(inputs_b, inputs_t):
        np.testing.assert_allclose(b.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol * 1e-2)
