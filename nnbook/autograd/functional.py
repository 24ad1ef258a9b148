"""``nb.autograd.grad`` and ``nb.autograd.backward``: PyTorch's functional forms."""
from __future__ import annotations

from ..errors import BackwardError, message
from ..tensor import Tensor, _wrap, gradients
from ..tensor import backward as _backward


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``nb.autograd.backward([a, b], [ga, gb])``: the backward of several outputs at once."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    _backward(tensors, grad_tensors, retain_graph=retain_graph, create_graph=create_graph,
              inputs=inputs, where="nb.autograd.backward")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (no ``.grad`` changes).

        dx, = nb.autograd.grad(y.sum(), [x])
    """
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outputs)
    found = gradients(outputs, list(grad_outputs), retain_graph=retain_graph,
                      create_graph=create_graph, capture=inputs)
    result = []
    for i, t in enumerate(inputs):
        g = found.get(id(t), (t, None))[1]
        if g is None:
            if not (allow_unused or materialize_grads):
                raise BackwardError(message(
                    f"input {i} was not used to compute the outputs, so it has no gradient.",
                    where="nb.autograd.grad",
                    hint="pass allow_unused=True to get None for it (or "
                    "materialize_grads=True for zeros)."))
            result.append(_wrap(t._array * 0) if materialize_grads else None)
        else:
            result.append(_wrap(g.copy()))
    return tuple(result)
