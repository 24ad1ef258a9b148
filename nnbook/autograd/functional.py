"""``nb.autograd.grad`` and ``nb.autograd.backward``: PyTorch's functional forms; and the
derivatives of a whole function, ``nb.autograd.functional.jacobian``, ``vjp`` and ``jvp``
(as ``torch.autograd.functional``)."""
from __future__ import annotations

import numpy as np

from .. import context
from ..errors import (
    ArgumentError,
    BackwardError,
    DTypeError,
    InputError,
    ShapeError,
    fmt_shape,
    message,
)
from ..tensor import Tensor, _wrap, gradients
from ..tensor import backward as _backward
from ..unsupported import UnsupportedError


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


# ---------------------------------------------------------------------------
# Derivatives of a function: torch.autograd.functional
# ---------------------------------------------------------------------------
#
# Each runs ``func`` on copies of the inputs that require grad (the inputs given are left
# as they are), then asks the engine for the gradients it needs: a Jacobian is one
# backward per output element, each seeded with a one-hot gradient, so row k holds
# d out[k] / d in.  The results are plain tensors outside any graph.


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d func(inputs) / d inputs: for an output of shape (m...) and an input of shape (n...),
    a tensor of shape (m..., n...).  With a tuple of inputs (or of outputs) the answer is a
    tuple over them; with both, a tuple of tuples ``[output][input]``.

        nb.autograd.functional.jacobian(lambda x: x ** 2, nb.tensor([1.0, 2.0]))
        # tensor([[2., 0.], [0., 4.]])
    """
    where = "nb.autograd.functional.jacobian"
    if strategy not in ("reverse-mode", "forward-mode"):
        raise InputError(message(
            f"strategy must be 'reverse-mode' or 'forward-mode', got {strategy!r}.",
            where=where, hint="both give the same numbers; leave it out."))
    if strategy == "forward-mode" and not vectorize:
        raise InputError(message(
            "strategy='forward-mode' needs vectorize=True (as in PyTorch).", where=where,
            hint="pass vectorize=True, or leave strategy out."))
    inputs, inputs_tuple, outputs, outputs_tuple = _run(func, inputs, where)
    rows = _blocks(inputs, outputs, strict, create_graph, where)
    return _shaped(rows, inputs_tuple, outputs_tuple)


def _blocks(inputs, outputs, strict, create_graph, where) -> list:
    """[output][input] -> d output / d input, of shape output.shape + input.shape."""
    rows = []
    for i, out in enumerate(outputs):
        per_input = [np.zeros((out.numel(),) + x.shape, dtype=x._array.dtype) for x in inputs]
        for k in range(out.numel()):  # row k: d out[k] / d inputs, one backward
            seed = np.zeros(out.numel(), dtype=out._array.dtype)
            seed[k] = 1
            grads = _seeded(out, seed.reshape(out.shape), inputs, i, strict, create_graph,
                            where)
            for j, grad in enumerate(grads):
                per_input[j][k] = grad
        rows.append(tuple(_wrap(g.reshape(out.shape + x.shape))
                          for g, x in zip(per_input, inputs)))
    return rows


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product, a backward from each output
    seeded with its part of ``v`` (shaped as the outputs; it may be left out when the
    output is one number), summed over the outputs."""
    where = "nb.autograd.functional.vjp"
    inputs, inputs_tuple, outputs, outputs_tuple = _run(func, inputs, where)
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise InputError(message(
                "v can only be left out when the function returns one tensor with one "
                "element; it returned shape(s) "
                f"{', '.join(fmt_shape(o.shape) for o in outputs)}.",
                where=where, hint="pass v, one tensor of each output's shape (a gradient "
                "flowing back into the outputs)."))
        v = (_wrap(np.ones(outputs[0].shape, dtype=outputs[0]._array.dtype)),)
    vs = _vectors(v, outputs, "outputs", where)
    total = [np.zeros(x.shape, dtype=x._array.dtype) for x in inputs]
    for i, (out, seed) in enumerate(zip(outputs, vs)):
        for j, grad in enumerate(_seeded(out, seed, inputs, i, strict, create_graph, where)):
            total[j] += grad
    result = tuple(_wrap(g) for g in total)
    return _values(outputs, outputs_tuple), result if inputs_tuple else result[0]


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, the change of the outputs when the
    inputs move along ``v`` (shaped as the inputs; it may be left out when the input is one
    number).  Computed here from the Jacobian, row by row."""
    where = "nb.autograd.functional.jvp"
    inputs, inputs_tuple, outputs, outputs_tuple = _run(func, inputs, where)
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise InputError(message(
                "v can only be left out when the input is one tensor with one element.",
                where=where, hint="pass v, one tensor of each input's shape (a direction "
                "to move the inputs in)."))
        v = (_wrap(np.ones(inputs[0].shape, dtype=inputs[0]._array.dtype)),)
    vs = _vectors(v, inputs, "inputs", where)
    for i, out in enumerate(outputs):
        if out._array.dtype.kind != "f":
            raise DTypeError(message(
                f"output {i} of the function is {out.dtype.name}: a change of the inputs "
                "moves only floating point outputs (PyTorch refuses it too).", where=where,
                hint="return floating point outputs (out.float()), or use vjp or jacobian."))
    result = []
    for out, row in zip(outputs, _blocks(inputs, outputs, strict, create_graph, where)):
        # (J v)_k = sum_n J[k, n] v[n], summed over every input
        change = sum((block._array.reshape(out.numel(), -1) @ d.reshape(-1)).reshape(out.shape)
                     for block, d in zip(row, vs))
        result.append(_wrap(np.asarray(change, dtype=out._array.dtype)))
    result = tuple(result)
    return _values(outputs, outputs_tuple), result if outputs_tuple else result[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Refused: a Hessian is a second derivative, which nnbook does not record."""
    _second_derivatives("hessian")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Refused: a vector-Hessian product is a second derivative."""
    _second_derivatives("vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Refused: a Hessian-vector product is a second derivative."""
    _second_derivatives("hvp")


def _second_derivatives(name):
    raise UnsupportedError(message(
        f"{name} needs second derivatives (the derivative of a backward), and nnbook "
        "records none: its backward rules compute with numpy.",
        where=f"nb.autograd.functional.{name}",
        hint="nnbook stops at first derivatives (jacobian, vjp, jvp); compute second "
        "derivatives with PyTorch, or numerically from differences of gradients."))


def _as_tuple(value, what, where) -> tuple:
    """(a tuple of tensors, whether it was given as a tuple); anything else is refused."""
    if isinstance(value, Tensor):
        return (value,), False
    if isinstance(value, tuple) and all(isinstance(t, Tensor) for t in value):
        return value, True
    kinds = (f"a {type(value).__name__}" if not isinstance(value, tuple) else
             "a tuple holding " + ", ".join(sorted({type(t).__name__ for t in value})))
    raise ArgumentError(message(
        f"the {what} must be a tensor or a tuple of tensors, got {kinds}.", where=where,
        hint="give several as a tuple: (x, y), not [x, y] (as PyTorch)."))


def _run(func, inputs, where) -> tuple:
    """Run func on copies of the inputs that require grad: (copies, whether inputs was a
    tuple, outputs, whether func returned a tuple)."""
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", where)
    copies = tuple(x.detach()._set_requires_grad(True, where) for x in inputs)
    with context.enable_grad():
        outputs = func(*copies)
    outputs, outputs_tuple = _as_tuple(outputs, "outputs of the function", where)
    return copies, inputs_tuple, outputs, outputs_tuple


def _seeded(out, seed, inputs, i, strict, create_graph, where) -> list:
    """The gradient arrays of ``out`` seeded with ``seed`` for each input (zeros for an
    input out does not depend on; under ``strict`` that is an error)."""
    zeros = [np.zeros(x.shape, dtype=x._array.dtype) for x in inputs]
    if not out.requires_grad:
        if strict:
            raise BackwardError(message(
                f"output {i} of the function does not depend on the inputs (it does not "
                "require grad), which strict=True does not allow.", where=where,
                hint="compute the output from the inputs, or leave strict out (its "
                "derivative is then 0)."))
        return zeros
    found = gradients([out], [seed], retain_graph=True, create_graph=create_graph,
                      capture=inputs, where=where)
    grads = []
    for j, x in enumerate(inputs):
        grad = found.get(id(x), (x, None))[1]
        if grad is None and strict:
            raise BackwardError(message(
                f"output {i} of the function does not depend on input {j}, which strict=True "
                "does not allow.", where=where, hint="leave strict out: its derivative is "
                "then 0."))
        grads.append(zeros[j] if grad is None else grad.astype(x._array.dtype, copy=False))
    return grads


def _vectors(v, like, what, where) -> tuple:
    """``v`` as a tuple of arrays, one of each shape in ``like``."""
    vs, _ = _as_tuple(v, "v", where)
    if len(vs) != len(like) or any(a.shape != b.shape for a, b in zip(vs, like)):
        raise ShapeError(message(
            f"v must have the shapes of the {what}: "
            f"{', '.join(fmt_shape(t.shape) for t in like)}; got "
            f"{', '.join(fmt_shape(t.shape) for t in vs)}.", where=where,
            hint=f"give one tensor per {what[:-1]}, of its shape."))
    return tuple(np.asarray(a._array, dtype=b._array.dtype) for a, b in zip(vs, like))


def _values(outputs, outputs_tuple):
    values = tuple(out.detach() for out in outputs)
    return values if outputs_tuple else values[0]


def _shaped(rows, inputs_tuple, outputs_tuple):
    """Jacobian blocks [output][input] as PyTorch nests them."""
    if not inputs_tuple:
        rows = [row[0] for row in rows]
    return tuple(rows) if outputs_tuple else rows[0]
