"""AdaptiveLogSoftmaxWithLoss: a log-softmax over a large vocabulary that spends little on
the rare classes (Grave et al., "Efficient softmax approximation for GPUs", 2017).

The classes are numbered from the most frequent down and cut into a *shortlist* and
*clusters*: ``cutoffs=[10, 100]`` with 1000 classes gives the shortlist 0-9 and the
clusters 10-99 and 100-999.  The head scores every shortlist class and one token per
cluster; each cluster has a softmax of its own, behind a projection to fewer features
(in_features // div_value**(i + 1)), that picks a class inside it:

    log p(c) = log p_head(c)                                  c in the shortlist
    log p(c) = log p_head(cluster i) + log p_cluster_i(c)     c in cluster i

In ``forward`` a batch pays for a cluster only with the rows whose target is in it.
"""
from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from ...creation import cat
from ...errors import (
    ArgumentError,
    DimError,
    DTypeError,
    InputError,
    ShapeError,
    current_layer,
    fmt_shape,
    message,
)
from ...tensor import _wrap
from .. import functional as F
from ..arguments import _data
from ..module import Module
from .containers import ModuleList, Sequential
from .linear import Linear

# forward's result: output[n] = log p(target[n] | input[n]), and loss = -output.mean()
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])  # PyTorch's name for the pair

NAME = "AdaptiveLogSoftmaxWithLoss"


def _check_cutoffs(cutoffs, n_classes) -> list:
    cutoffs = list(cutoffs)
    if not cutoffs:
        raise InputError(message("cutoffs must hold at least one class index, got [].",
                                 where=NAME, hint="e.g. cutoffs=[n_classes // 10]: a "
                                 "shortlist of the most frequent tenth, one cluster after."))
    if not all(isinstance(c, numbers.Integral) and not isinstance(c, bool)
               for c in [*cutoffs, n_classes]):
        raise ArgumentError(message(
            f"cutoffs and n_classes must be ints, got cutoffs={cutoffs!r}, "
            f"n_classes={n_classes!r}.", where=NAME,
            hint="cutoffs are the class indices where the clusters start: e.g. [10, 100]."))
    if cutoffs != sorted(set(cutoffs)) or cutoffs[0] <= 0 or cutoffs[-1] > n_classes - 1:
        if cutoffs[-1] == n_classes:
            hint = (f"leave n_classes out: the last cluster ends at n_classes by itself, "
                    f"cutoffs={cutoffs[:-1]}.")
        else:
            hint = (f"e.g. cutoffs={sorted(c for c in set(cutoffs) if 0 < c < n_classes)}, "
                    "with the classes numbered from the most frequent down.")
        raise InputError(message(
            f"cutoffs must be unique ints in increasing order, each from 1 to n_classes - 1 "
            f"= {n_classes - 1}; got {cutoffs}.", where=NAME, hint=hint))
    return [int(c) for c in cutoffs]


class AdaptiveLogSoftmaxWithLoss(Module):
    """log p(class | input) through a head over the frequent classes and a small softmax per
    cluster of rare ones (module docstring).  ``forward(input, target)`` gives the pair
    (output, loss); ``log_prob(input)`` every class' log-probability; ``predict(input)``
    the most likely class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None):
        super().__init__()
        cutoffs = _check_cutoffs(cutoffs, n_classes)
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]  # where each cluster starts, and the end
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters  # classes, then cluster tokens
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            features = int(in_features // div_value ** (i + 1))
            classes = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(in_features, features, bias=False, device=device, dtype=dtype),
                Linear(features, classes, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection in self.tail:
            for linear in projection:
                linear.reset_parameters()

    def forward(self, input, target):
        batched = self._check_pair(input, target)
        target = _data(NAME, "target", target)
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        labels = self._labels(target)
        # 0 for a class of the shortlist, i + 1 for a class of cluster i (tail[i])
        cluster = np.searchsorted(self.cutoffs, labels, side="right")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        # the head's column for each row: its own class, or the token of its cluster
        column = np.where(cluster == 0, labels, self.shortlist_size + cluster - 1)
        output = head_logprob.gather(1, _wrap(column[:, None])).squeeze(1)
        for i, projection in enumerate(self.tail):
            rows = np.flatnonzero(cluster == i + 1)
            if rows.size:  # + log p_cluster_i(c), for the rows whose class is in cluster i
                cluster_logprob = F.log_softmax(projection(input[rows]), dim=1)
                inside = labels[rows] - self.cutoffs[i]
                picked = cluster_logprob.gather(1, _wrap(inside[:, None])).squeeze(1)
                output = output.index_add(0, _wrap(rows), picked)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def log_prob(self, input):
        """log p(c | input) for every class c: (N, in_features) -> (N, n_classes)."""
        self._check_batch(input, "log_prob")
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row, as ``log_prob(input).argmax(1)``.  Where the
        head's best is a shortlist class it is the answer (no cluster class can beat it:
        log p(d) <= log p_head(cluster of d)), so only the other rows compute clusters."""
        self._check_batch(input, "predict")
        head_output = self.head(input)
        best = head_output.argmax(dim=1).numpy().copy()
        rows = np.flatnonzero(best >= self.shortlist_size)
        if rows.size:
            best[rows] = self._full_log_prob(input[rows], head_output[rows]).argmax(1).numpy()
        return _wrap(best)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            token = self.shortlist_size + i  # log p_head(cluster i), added to each class in it
            parts.append(F.log_softmax(projection(input), dim=1) +
                         head_logprob[:, token:token + 1])
        return cat(parts, dim=1)

    # -- checks ------------------------------------------------------------------------
    def _check_pair(self, input, target) -> bool:
        """PyTorch's pairs: input (N, in_features) with target (N,), or (in_features,)
        with a 0-d target.  Returns whether they are a batch."""
        shapes = f"input {fmt_shape(input.shape)}   target {fmt_shape(target.shape)}"
        if target.ndim == 1:
            if input.ndim == 0 or input.shape[0] != target.shape[0]:
                self._fail("input and target should have the same size in the batch "
                           "dimension.", shapes, "give one target class per row of input.")
            if input.ndim != 2:
                self._fail(f"a 1-D target expects a 2-D input (N, {self.in_features}), got "
                           f"{input.ndim}-D.", shapes, "flatten the positions into the batch: "
                           f"input.reshape(-1, {self.in_features}), target.reshape(-1).")
        elif target.ndim == 0:
            if input.ndim != 1:
                self._fail(f"a 0-D target expects a 1-D input ({self.in_features},), got "
                           f"{input.ndim}-D.", shapes, "give one target class per row of "
                           "input: target of shape (N,).")
        else:
            self._fail(f"expects a 0-D or 1-D target (one class per row), got {target.ndim}-D.",
                       shapes, "flatten the positions into the batch: input.reshape(-1, "
                       f"{self.in_features}), target.reshape(-1).")
        self._check_features(input, self._where())
        return target.ndim == 1

    def _check_features(self, input, where: str) -> None:
        got = input.shape[-1] if input.ndim else None
        if got != self.in_features:  # (else the head Linear fails, with a Linear's hint)
            raise ShapeError(message(
                f"expects input with {self.in_features} features in its last dimension, "
                f"got {got}.", where=where,
                values=f"input {fmt_shape(input.shape)}   in_features {self.in_features}",
                hint=f"the layer before it outputs {got} features: make it output "
                f"{self.in_features}, or build AdaptiveLogSoftmaxWithLoss({got}, "
                f"{self.n_classes}, {list(self.cutoffs[:-1])}) to match it."))

    def _labels(self, target) -> np.ndarray:
        if target.dtype.kind not in "iu":
            raise DTypeError(message(f"target must hold class indices as integers, got "
                                     f"{target.dtype.name}.", where=self._where(),
                                     hint="target.long()."))
        labels = target.numpy().astype(np.int64)
        bad = (labels < 0) | (labels >= self.n_classes)
        if bad.any():
            raise DimError(message(
                f"target values should be in [0, {self.n_classes - 1}], but values in "
                f"[{labels.min()}, {labels.max()}] were found.", where=self._where(),
                hint="classes count from 0; n_classes must exceed the largest class index."))
        return labels

    def _check_batch(self, input, method: str) -> None:
        if input.ndim != 2:
            raise DimError(message(f"{method} expects a 2-D input (N, {self.in_features}), "
                                   f"got {fmt_shape(input.shape)}.", where=self._where(method),
                                   hint="one sample: input.unsqueeze(0); positions of a "
                                   f"sequence: input.reshape(-1, {self.in_features})."))
        self._check_features(input, self._where(method))

    def _where(self, method: str | None = None) -> str:
        """Where a message happens: this layer in forward (its path when it is part of a
        model), 'AdaptiveLogSoftmaxWithLoss.log_prob' in the methods called directly."""
        return f"{NAME}.{method}" if method else (current_layer() or NAME)

    def _fail(self, what, values, hint):
        raise ShapeError(message(what, where=self._where(), values=values, hint=hint))
