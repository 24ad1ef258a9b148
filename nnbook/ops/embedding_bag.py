"""Bags of embeddings: the rows of several indices looked up and pooled into one vector
per bag, without the (bags, length, dim) tensor in between.

    bag b holds the entries e of one row of a 2-D input, or from offsets[b] up to the
    next offset of a 1-D input; entries equal to padding_idx are left out
    sum:   y[b] = sum_e  psw[e] * weight[i_e]      (psw: per_sample_weights, else 1)
    mean:  y[b] = sum_e weight[i_e] / n_b          (n_b entries; an empty bag gives 0)
    max:   y[b, d] = max_e weight[i_e, d]

    dL/dweight[r]  = sum over the entries e with i_e = r of psw[e] dL/dy[b_e]  (/ n_b)
    dL/dpsw[e]     = dL/dy[b_e] . weight[i_e]
    max: dL/dy[b, d] goes to the row whose value was the maximum (the first, on a tie)
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_float
from .embedding import check_indices, check_rows

MODES = ("sum", "mean", "max")


def count_bags(op: Op, offsets, include_last_offset: bool, length: int) -> int:
    """The number of bags of a 1-D input of ``length``, checking the offsets."""
    if offsets is None or offsets.ndim != 1 or offsets.dtype.kind not in "iu":
        got = "None" if offsets is None else \
            f"shape {fmt_shape(offsets.shape)} {offsets.dtype.name}"
        op.fail(f"a 1-D input needs offsets, a 1-D tensor of integers, got {got}.",
                cls=InputError, hint="offsets[b] is where bag b starts in the input: "
                "for bags of 3 and 2 indices, offsets = nb.tensor([0, 3]).")
    bags = len(offsets) - include_last_offset
    if bags < 0:
        op.fail("include_last_offset=True needs at least one offset (the end).",
                cls=InputError, hint="offsets then end with the input's length.")
    where = f"offsets {list(offsets.tolist())}   input of length {length}"
    if len(offsets) and offsets[0] != 0:
        op.fail(f"offsets[0] must be 0 (the first bag starts at the first index), got "
                f"{offsets[0]}.", values=where, cls=InputError,
                hint="offsets[b] is where bag b starts, so they begin with 0; from "
                "the bags' lengths, offsets = lengths.cumsum(0) - lengths.")
    if (np.diff(offsets) < 0).any() or (len(offsets) and offsets[-1] > length):
        op.fail("offsets must not decrease nor pass the input's length.", values=where,
                cls=InputError, hint="offsets are the starts of the bags, in order: "
                "the running sum of the bags' lengths, beginning with 0.")
    if include_last_offset and offsets[-1] != length:
        op.fail(f"with include_last_offset=True the last offset ends the last bag, so "
                f"it must be the input's length {length}, got {offsets[-1]}.",
                values=where, cls=InputError,
                hint=f"append {length} to offsets, or drop include_last_offset.")
    return bags


class EmbeddingBag(Op):
    """Inputs: (indices, weight) or (indices, weight, per_sample_weights); ``offsets``
    (for a 1-D input) is a constant of the op, as it fixes the number of bags."""

    name = "embedding_bag"

    def __init__(self, offsets=None, mode="mean", padding_idx=None, scale_grad_by_freq=False,
                 include_last_offset=False):
        if mode not in MODES:
            self.fail(f"mode={mode!r} is not one of 'sum', 'mean', 'max'.", cls=InputError,
                      hint="mode='mean' (the default) averages each bag's vectors.")
        if mode == "max" and scale_grad_by_freq:
            self.fail("max mode does not support scaling the gradient by the frequency "
                      "(scale_grad_by_freq=True).", cls=InputError,
                      hint="use scale_grad_by_freq=False, or mode='sum' / 'mean'.")
        self.offsets = None if offsets is None else np.asarray(offsets)
        self.mode, self.padding_idx = mode, padding_idx
        self.scale_grad_by_freq = bool(scale_grad_by_freq)
        self.include_last_offset = bool(include_last_offset)

    # -- shape rule ----------------------------------------------------------
    def infer(self, indices, weight, per_sample_weights=None):
        check_indices(self, indices)
        check_float(self, weight, "weight")
        if weight.ndim != 2:
            self.fail(f"weight must be 2-D (num_embeddings, embedding_dim), got shape "
                      f"{fmt_shape(weight.shape)}.", hint="F.embedding_bag(input, weight) "
                      "takes the indices first and the table second.")
        if per_sample_weights is not None:
            self._check_sample_weights(indices, weight, per_sample_weights)
        if indices.ndim == 2:
            if self.offsets is not None:
                self.fail("offsets must be None for a 2-D input: each row is one bag.",
                          values=f"input {fmt_shape(indices.shape)}   offsets "
                          f"{fmt_shape(self.offsets.shape)}", cls=InputError,
                          hint="give bags of one length as rows (B, L), or bags of any "
                          "length as one 1-D input with offsets.")
            return (indices.shape[0], weight.shape[1])
        if indices.ndim != 1:
            self.fail(f"input must be 1-D (with offsets) or 2-D (B, L), got shape "
                      f"{fmt_shape(indices.shape)}.",
                      hint="put the indices of all bags one after another in a 1-D tensor "
                      "and mark where each bag starts with offsets.")
        bags = count_bags(self, self.offsets, self.include_last_offset, indices.shape[0])
        return (bags, weight.shape[1])

    def _check_sample_weights(self, indices, weight, psw):
        if self.mode != "sum":
            self.fail(f"per_sample_weights are only supported for mode='sum', got "
                      f"mode={self.mode!r}.", cls=InputError,
                      hint="use mode='sum' (a weighted mean: weights that sum to 1 per bag).")
        if tuple(psw.shape) != tuple(indices.shape):
            self.fail(f"per_sample_weights must have the input's shape "
                      f"{fmt_shape(indices.shape)}, got {fmt_shape(psw.shape)}.",
                      hint="give one weight per index of the input.")
        if np.dtype(psw.dtype) != np.dtype(weight.dtype):
            self.fail(f"per_sample_weights must have weight's dtype "
                      f"{np.dtype(weight.dtype).name}, got {np.dtype(psw.dtype).name}.",
                      cls=DTypeError, hint=f"convert them: per_sample_weights.to("
                      f"{np.dtype(weight.dtype).name}).")

    # -- forward and backward ------------------------------------------------
    def forward(self, indices, weight, per_sample_weights=None):
        check_rows(self, indices, weight)
        bags, dim = self.infer(indices, weight)
        if indices.ndim == 2:  # each row a bag
            bag = np.repeat(np.arange(bags), indices.shape[1])
        else:
            starts = self.offsets[:bags]
            ends = np.append(starts[1:], indices.size)
            bag = np.repeat(np.arange(bags), ends - starts)
        index = indices.reshape(-1)
        kept = np.full(index.shape, True) if self.padding_idx is None else \
            index != self.padding_idx  # padding entries belong to no bag
        self.index, self.bag, self.kept = index[kept], bag[kept], kept
        self.rows, self.bags = weight.shape[0], bags
        vectors = weight[self.index]  # (kept entries, dim)
        self.psw = None
        if per_sample_weights is not None:
            self.psw = per_sample_weights.reshape(-1)[kept]
            self.psw_shape = per_sample_weights.shape
            if self.needs_input_grad[2]:  # d/dpsw reads the looked-up rows
                self.weight = weight
            vectors = vectors * self.psw[:, None]
        out = np.zeros((bags, dim), dtype=weight.dtype)
        self.count = np.bincount(self.bag, minlength=bags)
        if self.mode == "max":
            out[:] = -np.inf
            np.maximum.at(out, self.bag, vectors)
            out[self.count == 0] = 0
            self.winner = self._first_winner(vectors, out)
            return out
        np.add.at(out, self.bag, vectors)
        if self.mode == "mean":
            out /= np.maximum(self.count, 1)[:, None]
        return out

    def _first_winner(self, vectors, out):
        """For each bag and dimension, the first kept entry holding the maximum (bags x dim)."""
        entry = np.arange(len(self.bag))[:, None]
        best = out[self.bag]
        holds = (vectors == best) | (np.isnan(vectors) & np.isnan(best))  # a NaN wins a max
        first = np.full(out.shape, len(self.bag))
        np.minimum.at(first, self.bag, np.where(holds, entry, len(self.bag)))
        return first

    def backward(self, grad_out):
        grad_w = np.zeros((self.rows, grad_out.shape[1]), dtype=grad_out.dtype)
        if self.mode == "max":  # each maximum passes its gradient to its own row
            b, d = np.nonzero(self.winner < len(self.bag))  # an empty bag has no winner
            np.add.at(grad_w, (self.index[self.winner[b, d]], d), grad_out[b, d])
            return None, grad_w
        per_entry = grad_out[self.bag]  # dL/dy of each entry's bag
        if self.mode == "mean":
            per_entry = per_entry / self.count[self.bag, None]
        if self.psw is not None:
            per_entry = per_entry * self.psw[:, None]
        if self.scale_grad_by_freq:  # divided by how often the row occurs in the input
            per_entry = per_entry / np.bincount(self.index, minlength=self.rows)[self.index,
                                                                                   None]
        np.add.at(grad_w, self.index, per_entry)
        if self.psw is None or not self.needs_input_grad[2]:
            return (None, grad_w) if self.psw is None else (None, grad_w, None)
        grad_psw = np.zeros(self.kept.shape, dtype=grad_out.dtype)  # padding entries get 0
        grad_psw[self.kept] = (grad_out[self.bag] * self.weight[self.index]).sum(axis=1)
        return None, grad_w, grad_psw.reshape(self.psw_shape)
