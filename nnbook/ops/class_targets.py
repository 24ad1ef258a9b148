"""Class scores against class labels: what nll_loss and cross_entropy check and share.

Scores are (N, C), (N, C, d1, ...) or the scores of one sample (C,); targets hold
class indices (N,), (N, d1, ...) or () respectively (``OneHot``, at the end, turns such
indices into rows of zeros and ones).  Internally a single sample is
made a batch of one.  Most of this file is the messages a wrong label gets: a
one-hot target, labels that count from 1, a batch sliced differently from its labels.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import DimError, DTypeError, InputError, fmt_shape
from .base import Op, check_float, is_int


class ClassLoss(Op):
    """Base of the classification losses; ``reduction`` arrives already checked."""

    soft_targets = False  # cross_entropy also takes class probabilities

    def __init__(self, weight, ignore_index, reduction):
        if not isinstance(ignore_index, numbers.Integral) or isinstance(ignore_index, bool):
            self.fail(f"ignore_index must be an int, got {ignore_index!r}.",
                      hint="the default -100 ignores nothing; give the label to skip, "
                      "e.g. ignore_index=0 for padding.", cls=InputError)
        if weight is not None and np.asarray(weight).dtype.kind not in "fiu":
            self.fail(f"weight must hold numbers, got dtype {np.asarray(weight).dtype.name}.",
                      hint="give one float weight per class, e.g. nb.tensor([1.0, 5.0]).",
                      cls=DTypeError)
        self.weight = None if weight is None else np.asarray(weight)
        self.ignore_index, self.reduction = ignore_index, reduction

    # -- shape rule ----------------------------------------------------------
    def infer(self, x, target):
        if x.dtype.kind in "iub" and target.dtype.kind == "f":
            self._swapped(x, target)
        check_float(self, x)
        if x.ndim == 0:
            self.fail("expects class scores of shape (N, C), (N, C, d1, ...) or (C,), "
                      "got a scalar.", hint="keep one score per class: the last layer "
                      "should output C values per sample.")
        self._check_weight_shape(x)
        expected = x.shape[:1] + x.shape[2:] if x.ndim > 1 else ()
        if self.is_soft(x, target):
            if self.ignore_index != -100:
                self.fail("ignore_index is not supported with class-probability targets "
                          f"(got ignore_index={self.ignore_index}).",
                          hint="give probability rows of zeros to ignore elements, or use "
                          "integer class indices.", cls=InputError)
        elif target.dtype.kind not in "iu":
            self._bad_target_dtype(x, target)
        elif target.shape != expected:
            self._bad_target_shape(x, target, expected)
        return expected if self.reduction == "none" else ()

    def is_soft(self, x, target) -> bool:
        """Does ``target`` hold class probabilities (a float tensor of the input's shape)?"""
        return self.soft_targets and target.dtype.kind == "f" and target.shape == x.shape

    def _check_weight_shape(self, x):
        w = self.weight
        classes = x.shape[1] if x.ndim > 1 else x.shape[0]
        if w is not None and w.shape != (classes,):
            self.fail(f"weight must hold one value per class: shape ({classes},), got "
                      f"{fmt_shape(w.shape)}.",
                      values=f"input {fmt_shape(x.shape)}   weight {fmt_shape(w.shape)}",
                      hint=f"the input has {classes} classes in dimension "
                      f"{1 if x.ndim > 1 else 0}; give weight with {classes} entries.")

    def _swapped(self, x, target):
        """Integer labels as the input and float scores as the target: the arguments are
        the wrong way round (converting the labels to float would hide it)."""
        self.fail(f"expects float class scores as input and integer class indices as target, "
                  f"got an {x.dtype.name} input and a {target.dtype.name} target.",
                  values=f"input {fmt_shape(x.shape)} {x.dtype.name}   target "
                  f"{fmt_shape(target.shape)} {target.dtype.name}",
                  hint=f"these look swapped: the scores come first, "
                  f"F.{self.name}(scores, labels) -- as in loss_fn(model(x), y).",
                  cls=DTypeError)

    def _bad_target_dtype(self, x, target):
        if target.ndim == x.ndim + 1 and target.shape[:1] == x.shape[:1]:
            self.fail(f"target must hold class indices as integers, got {target.dtype.name} "
                      f"of shape {fmt_shape(target.shape)}, one dimension more than the input "
                      f"{fmt_shape(x.shape)}.",
                      values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)} "
                      f"{target.dtype.name}",
                      hint=f"these look swapped: the scores (N, C) come first, "
                      f"F.{self.name}(scores, labels).", cls=DTypeError)
        soft = (" (or, for class probabilities, a float target of the input's shape "
                f"{fmt_shape(x.shape)})") if self.soft_targets else ""
        self.fail(f"target must hold class indices as integers, got {target.dtype.name}.",
                  values=f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)} "
                  f"{target.dtype.name}",
                  hint=f"class indices must be integers: pass target.long(){soft}.",
                  cls=DTypeError)

    def _bad_target_shape(self, x, target, expected):
        values = f"input {fmt_shape(x.shape)}   target {fmt_shape(target.shape)}"
        if x.ndim > 1 and target.ndim >= 1 and target.shape[0] != x.shape[0]:
            self.fail(f"input has {x.shape[0]} samples but target has {target.shape[0]}.",
                      values=values,
                      hint="scores and labels of one batch must have the same first "
                      "dimension; check how the batch and its labels were sliced.")
        if target.shape == x.shape:
            hint = ("the target looks one-hot; it should hold one class index per sample: "
                    "use target.argmax(1).")
        elif target.shape == expected + (1,):
            hint = f"drop the extra dimension: target.reshape{fmt_shape(expected)}."
        elif x.ndim == 1:
            hint = ("a 1-D input is read as the scores of one sample (target: one index); "
                    "for a batch give scores of shape (N, C).")
        else:
            hint = "for scores (N, C, d1, ...) the target is (N, d1, ...): one index per position."
        self.fail(f"expects target of shape {fmt_shape(expected)} for input of shape "
                  f"{fmt_shape(x.shape)}, got {fmt_shape(target.shape)}.",
                  values=values, hint=hint)

    # -- helpers for forward and backward -----------------------------------
    def batched(self, x, target):
        """A single sample (C,) becomes a batch of one (1, C)."""
        self.one_sample = x.ndim == 1
        if self.one_sample:
            return x[None], target[None]
        return x, target

    def unbatched(self, out):
        return out.reshape(out.shape[1:]) if self.one_sample and out.ndim else out

    def class_weights(self, x):
        """Weights reshaped to broadcast along the class axis: (1, C, 1, ...), or None."""
        if self.weight is None:
            return None
        return self.weight.astype(x.dtype).reshape((1, -1) + (1,) * (x.ndim - 2))

    def targets(self, x, target):
        """(picked class per element (N, 1, d...), valid mask, weight of each element)."""
        self._check_target_values(target, x.shape[1])
        valid = target != self.ignore_index
        picked = np.where(valid, target, 0)[:, None]
        if self.weight is None:
            w_elem = valid.astype(x.dtype)
        else:
            w_elem = self.weight.astype(x.dtype)[picked[:, 0]] * valid
        return picked, valid, w_elem

    def _check_target_values(self, target, classes):
        """Every label must lie in [0, C) unless it is ignore_index."""
        bad = ((target < 0) | (target >= classes)) & (target != self.ignore_index)
        if not bad.any():
            return
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        value, shape = int(target[pos]), target.shape
        if self.one_sample:
            pos, shape = pos[1:], shape[1:]
        where = f" at position {pos[0] if len(pos) == 1 else pos}" if pos else ""
        self.fail(f"target value {value}{where} is out of range for {classes} classes "
                  f"(valid: 0 to {classes - 1}).",
                  values=f"target {fmt_shape(shape)}   min {int(target.min())}   "
                  f"max {int(target.max())}",
                  hint=_label_hint(value, classes, int(target.max()), self.ignore_index),
                  cls=DimError)


def _label_hint(value, classes, largest, ignore_index) -> str:
    """What an out-of-range label most likely means."""
    if value == classes and classes > 0:
        return (f"labels seem to count from 1; use target - 1, or give the last layer "
                f"{classes + 1} outputs if there really are {classes + 1} classes.")
    if value < 0:
        return (f"negative labels are only allowed as ignore_index "
                f"(now {ignore_index}); pass ignore_index={value} to skip them.")
    return (f"the scores have {classes} classes, so labels must lie in 0..{classes - 1}; "
            f"widen the last layer to at least {largest + 1} outputs or fix the labels.")


class OneHot(Op):
    """Class indices as rows of zeros with a 1 at each index (F.one_hot): an int64 tensor
    with one more dimension, of size ``num_classes``."""

    name = "one_hot"

    def __init__(self, num_classes):
        if not is_int(num_classes) or num_classes < -1:
            self.fail(f"num_classes must be an int >= 0 (or -1), got {num_classes!r}.",
                      cls=InputError,
                      hint="give the number of classes, e.g. F.one_hot(y, num_classes=10); "
                      "-1 counts them from the largest label.")
        self.num_classes = int(num_classes)

    def infer(self, labels):
        if np.dtype(labels.dtype) != np.int64:
            self.fail(f"expects class indices of dtype int64, got {np.dtype(labels.dtype).name} "
                      "(as in PyTorch).", cls=DTypeError,
                      values=f"labels {fmt_shape(labels.shape)} {np.dtype(labels.dtype).name}",
                      hint="convert them first: F.one_hot(y.long(), num_classes).")
        if self.num_classes == -1:  # F.one_hot counts them from the data; a spec has none
            self.fail("num_classes=-1 counts the classes from the labels' values, which a "
                      "shape-only pass does not have.", cls=InputError,
                      hint="give num_classes: F.one_hot(y, num_classes=10).")
        return (*labels.shape, self.num_classes)

    def out_dtype(self, labels):
        return np.dtype(np.int64)

    def forward(self, labels):
        if labels.size and labels.min() < 0:
            self.fail("class indices must not be negative.", cls=InputError,
                      values=f"smallest label {labels.min()}",
                      hint="labels count from 0: shift them (y - y.min()) or map them.")
        if labels.size and labels.max() >= self.num_classes:
            self.fail(f"class indices must be smaller than num_classes={self.num_classes}.",
                      cls=InputError, values=f"largest label {labels.max()}",
                      hint=f"num_classes must be at least {labels.max() + 1} (or -1 to count "
                      "from the largest label).")
        out = np.zeros((*labels.shape, self.num_classes), dtype=np.int64)
        np.put_along_axis(out, labels[..., None], 1, axis=-1)
        return out

    def backward(self, grad_out):  # indices carry no gradient
        return (None,)
