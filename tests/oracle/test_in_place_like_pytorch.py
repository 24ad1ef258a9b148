"""In-place changes against PyTorch: where PyTorch refuses (a leaf that requires grad, a
value a backward saved, a shape that would grow), nnbook refuses with its own error; where
PyTorch computes, nnbook gives the same gradient, zeros included (x.zero_() and x.fill_()
pass zeros back to x, not nothing)."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import NnbookError

torch = pytest.importorskip("torch")

CASES = {
    "add_ on a leaf": lambda L, x: x.add_(1),
    "mul_ on a result": lambda L, x: (x * 1).mul_(2),
    "add_ on a view of a result": lambda L, x: _after(L, x * 1, lambda h: h[0].add_(1)),
    "mul_ on a view of a saved output": lambda L, x: _after(L, x.exp(), lambda h: h[0].mul_(2)),
    "sigmoid_": lambda L, x: (x * 1).sigmoid_(),
    "clamp_": lambda L, x: (x * 1).clamp_(0.2, 1.0),
    "add_ through a transpose": lambda L, x: _after(L, x * 1, lambda h: h.t().add_(1)),
    "add_ on an expanded view": lambda L, x: (x * 1)[:1].expand(3, 4).add_(1),
    "setitem a number": lambda L, x: _after(L, x * 1, lambda h: h.__setitem__((0, 0), 5.0)),
    "setitem a tensor": lambda L, x: _after(L, x * 1, lambda h: h.__setitem__(
        slice(0, 1), x[1:2] * 3)),
    "setitem on a leaf": lambda L, x: _after(L, x, lambda h: h.__setitem__((0, 0), 5.0)),
    "add_ on a detached copy": lambda L, x: _after(L, x * 1, lambda h: x.detach().add_(1)),
    "relu_": lambda L, x: (x - 0.8).relu_(),
    "pow_ on a saved input": lambda L, x: (lambda h: _after(L, h * h, lambda y: h.pow_(2)))(
        x * 1),
    "add_ that would grow the shape": lambda L, x: (x[0] * 1).add_(x),
    "zero_": lambda L, x: (x * 1).zero_(),
    "fill_": lambda L, x: (x * 1).fill_(2.0),
    "fill_ on a view": lambda L, x: _after(L, x * 1, lambda h: h[:, 0].fill_(3.0)),
    "masked_fill_": lambda L, x: (x * 1).masked_fill_(x > 1, 0.0),
    "copy_ into a result": lambda L, x: (x * 1).copy_(x.detach() * 2),
    "copy_ from a result": lambda L, x: L.zeros(3, 4, dtype=L.float64).copy_(x * 2),
    "scatter_": lambda L, x: (x * 1).scatter_(1, L.tensor([[0], [1], [2]]), 9.0),
    "addcmul_ on a leaf": lambda L, x: x.addcmul_(x * 1, x * 2),
    "addcmul_ on a result": lambda L, x: (x * 1).addcmul_(x, x.exp(), value=0.5),
    "addcdiv_ on a result": lambda L, x: (x * 1).addcdiv_(x.sin(), x + 1, value=-2),
    "addcmul_ on a saved input": lambda L, x: (lambda h: _after(
        L, h * h, lambda y: h.addcmul_(x, x)))(x * 1),
    "addcdiv_ that would grow the shape": lambda L, x: (x[0] * 1).addcdiv_(x, x + 1),
    "addmm_ on a result": lambda L, x: (x * 1).addmm_(x[:, :2] * 1, x[:2] * 3, beta=0.5,
                                                      alpha=2),
    "addmm_ with beta 0": lambda L, x: (x * 1).addmm_(x[:, :2] * 1, x[:2] * 1, beta=0),
    "addr_ that would grow the shape": lambda L, x: (x[0] * 1).addr_(x[:, 0], x[0]),
    "addr_ on a view of a result": lambda L, x: _after(
        L, x * 1, lambda h: h[1:].addr_(x[:2, 0] * 1, x[0] * 1, alpha=-1)),
}


def _after(L, tensor, change):
    change(tensor)
    return tensor


def run(L, case):
    """The leaf's gradient after ``case`` and a backward of the sum, or 'refused'."""
    x = L.tensor(np.arange(1, 13, dtype=np.float64).reshape(3, 4) / 7, requires_grad=True)
    try:
        CASES[case](L, x).sum().backward()
    except NnbookError:
        assert L is nb
        return "refused"
    except RuntimeError:
        assert L is torch
        return "refused"
    return None if x.grad is None else x.grad.numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_in_place_change_is_refused_or_differentiated_as_in_pytorch(case):
    ours, theirs = run(nb, case), run(torch, case)
    if isinstance(theirs, str) or theirs is None:
        assert ours is theirs or ours == theirs, (ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
