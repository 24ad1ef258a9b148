"""All the parameters as one flat vector, and back (PyTorch's order: parameters() order,
each flattened row-major)."""
from __future__ import annotations

from ...context import no_grad
from ...creation import cat
from ...errors import ArgumentError, ShapeError, fmt_shape, message
from ...tensor import Tensor
from .clip_grad import _tensors


def parameters_to_vector(parameters) -> Tensor:
    """One 1-D tensor holding every parameter's values, in order (it stays in the graph)."""
    params = _tensors(parameters, "parameters_to_vector")
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters) -> None:
    """Write the values of the 1-D ``vec`` into the parameters, in order (the inverse of
    parameters_to_vector).  Its length must be the parameters' total size; nothing is
    written otherwise."""
    if not isinstance(vec, Tensor):
        raise ArgumentError(message(
            f"expects vec to be a Tensor, got {type(vec).__name__}.",
            where="nn.utils.vector_to_parameters",
            hint="wrap it first: nb.tensor(values)."))
    params = _tensors(parameters, "vector_to_parameters")
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() != total:
        raise ShapeError(message(
            f"expects a 1-D vector of {total} values (the parameters' total size), got "
            f"shape {fmt_shape(vec.shape)}.", where="nn.utils.vector_to_parameters",
            hint="make it with parameters_to_vector(model.parameters()) from the same "
            "model."))
    start = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[start:start + n].reshape(p.shape))
            start += n
