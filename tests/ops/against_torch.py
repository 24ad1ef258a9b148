"""Run one computation in nnbook and in PyTorch on the same inputs and compare everything:
values, shapes, dtypes, index results and the gradients of every float input.

A case is a function ``fn(m, *inputs)`` written once for both libraries: ``m`` is the
module (``nb`` or ``torch``), so ``lambda m, x: m.sin(x)`` and ``lambda m, x: x.sin()``
run the same code in both, which is what porting by changing the import means.

Input makers take the test's generator and return a numpy array (float arrays become
tensors that require grad) or any other value (passed to both as it is).
"""
from __future__ import annotations

import numpy as np

import nnbook as nb


def normal(*shape):
    return lambda rng: rng.standard_normal(shape)


def positive(*shape):
    """Away from 0: for log, sqrt, division."""
    return lambda rng: np.abs(rng.standard_normal(shape)) + 0.5


def unit(*shape):
    """Inside (-1, 1), away from the ends: for asin, atanh."""
    return lambda rng: rng.uniform(-0.9, 0.9, shape)


def above_one(*shape):
    return lambda rng: np.abs(rng.standard_normal(shape)) + 1.1


def ints(low, high, *shape):
    return lambda rng: rng.integers(low, high, shape)


def bools(*shape):
    return lambda rng: rng.random(shape) < 0.4


def permutations(n, count, *shape_before, dim_last=True):
    """Indices with no repeats along the last dim: ``count`` of range(n) in each row."""
    def make(rng):
        rows = [rng.permutation(n)[:count] for _ in range(int(np.prod(shape_before)))]
        return np.array(rows, dtype=np.int64).reshape(shape_before + (count,))
    return make


def value(v):
    return lambda rng: v


def _leaves(result) -> list:
    if isinstance(result, (tuple, list)):
        return [leaf for item in result for leaf in _leaves(item)]
    return [result]


def _as_tensors(lib, arrays, requires_grad):
    import torch

    made = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            grad = requires_grad and a.dtype.kind == "f"
            made.append(nb.tensor(a, requires_grad=grad) if lib is nb
                        else torch.tensor(a, requires_grad=grad))
        else:
            made.append(a)
    return made


def check(fn, makers, rng, tol=1e-10, grads=True):
    """Compare ``fn`` in nnbook and in PyTorch on inputs from ``makers``."""
    import torch

    arrays = [make(rng) for make in makers]
    nb_in, torch_in = _as_tensors(nb, arrays, grads), _as_tensors(torch, arrays, grads)
    nb_out, torch_out = _leaves(fn(nb, *nb_in)), _leaves(fn(torch, *torch_in))
    assert len(nb_out) == len(torch_out), (nb_out, torch_out)
    nb_loss, torch_loss = [], []
    for mine, theirs in zip(nb_out, torch_out):
        if not isinstance(theirs, torch.Tensor):
            assert mine == theirs
            continue
        assert isinstance(mine, nb.Tensor), type(mine)
        assert mine.dtype.name == str(theirs.dtype).removeprefix("torch."), \
            (mine.dtype, theirs.dtype)
        assert mine.shape == tuple(theirs.shape), (mine.shape, theirs.shape)
        close = tol if mine.dtype != nb.float32 else max(tol, 2e-6)  # float32's rounding
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(),
                                   rtol=close, atol=close)
        if grads and theirs.requires_grad and theirs.is_floating_point():
            assert mine.requires_grad, "PyTorch's result carries a gradient, nnbook's not"
            weights = rng.standard_normal(mine.shape)
            nb_loss.append((mine * nb.tensor(weights)).sum())
            torch_loss.append((theirs * torch.tensor(weights)).sum())
    if nb_loss:
        sum(nb_loss).backward()
        sum(torch_loss).backward()
    for mine, theirs in zip(nb_in, torch_in):
        if isinstance(theirs, torch.Tensor) and theirs.requires_grad:
            if theirs.grad is None:
                assert mine.grad is None or not mine.grad.numpy().any()
            else:
                assert mine.grad is not None, "PyTorch has a gradient here, nnbook none"
                np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(),
                                           rtol=tol, atol=tol)
