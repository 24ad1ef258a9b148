"""Looking rows up by index: embedding (a table of learned vectors) and one_hot.

    y[..., :] = weight[index[...], :]
    dL/dweight[r] = sum of dL/dy over every position whose index is r

An index is a whole number in [0, num_embeddings); anything else is refused with the
position of the first bad one.
"""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, fmt_shape
from .base import Op, check_float


def check_indices(op: Op, indices, what="input") -> None:
    """Refuse indices that are not integers (the shape rule's part of the check)."""
    if indices.dtype.kind not in "iu":
        op.fail(f"expects integer indices as {what}, got dtype {indices.dtype.name}.",
                values=f"{what} {fmt_shape(indices.shape)} {indices.dtype.name}",
                hint=f"indices must be whole numbers: pass {what}.long().", cls=DTypeError)


def first_bad(mask: np.ndarray):
    """The position of the first True in ``mask``, as an int or a tuple."""
    pos = tuple(int(i) for i in np.argwhere(mask)[0])
    return pos[0] if len(pos) == 1 else pos


def check_rows(op: Op, indices, weight) -> None:
    """Refuse an index that names no row of ``weight``, with the position of the first."""
    rows = weight.shape[0]
    bad = (indices < 0) | (indices >= rows)
    if bad.any():
        value = int(indices.reshape(-1)[np.argmax(bad.reshape(-1))])
        op.fail(f"index {value} at position {first_bad(bad)} "
                f"is out of range for an embedding of {rows} rows (valid: 0 to "
                f"{rows - 1}).",
                values=f"input {fmt_shape(indices.shape)}   min {int(indices.min())}   "
                f"max {int(indices.max())}   weight {fmt_shape(weight.shape)}",
                hint=f"make num_embeddings at least {int(indices.max()) + 1} (the "
                "vocabulary size), or check how the indices were made." if value >= 0
                else "indices count from 0; a negative index has no row.",
                cls=DimError)


class Embedding(Op):
    """Inputs: (indices, weight); weight is (num_embeddings, embedding_dim)."""

    name = "embedding"

    def __init__(self, padding_idx=None, scale_grad_by_freq=False):
        self.padding_idx, self.scale_grad_by_freq = padding_idx, bool(scale_grad_by_freq)

    def infer(self, indices, weight):
        check_indices(self, indices)
        check_float(self, weight, "weight")
        if weight.ndim != 2:
            self.fail(f"weight must be 2-D (num_embeddings, embedding_dim), got shape "
                      f"{fmt_shape(weight.shape)}.", hint="F.embedding(indices, weight) "
                      "takes the indices first and the table second.")
        return tuple(indices.shape) + (weight.shape[1],)

    def forward(self, indices, weight):
        check_rows(self, indices, weight)
        self.indices, self.rows = indices, weight.shape[0]
        return weight[indices]

    def backward(self, grad_out):  # dL/dweight[r] = sum of grad_out where index == r
        flat = self.indices.reshape(-1)
        grads = grad_out.reshape(flat.size, -1)
        if self.scale_grad_by_freq:  # each row's gradient divided by how often it occurs
            counts = np.bincount(flat, minlength=self.rows)
            grads = grads / counts[flat, None]
        grad_w = np.zeros((self.rows, grads.shape[1]), dtype=grad_out.dtype)
        np.add.at(grad_w, flat, grads)
        if self.padding_idx is not None:
            grad_w[self.padding_idx] = 0  # the padding row never learns
        return None, grad_w

