"""The CTC loss (connectionist temporal classification): how likely a label sequence is
under T frames of class log-probabilities, summed over every way of laying it on the frames.

A speech or handwriting model says, frame by frame, which class it sees; the target says
only which labels come, in order ("c a t"), not at which frames.  One extra class, the
*blank* ("nothing new here"), lets a frame show no label.  A *path* gives every frame one
class, and it reads as a label sequence once repeated classes are merged and blanks dropped:

    c c _ a _ t t   ->  c a t          c _ c a t   ->  c c a t   (only a blank parts two c's)

    p(target) = sum over the paths that read as the target of  prod_t y_t(path_t),
    loss = -log p(target),  y_t(k) = exp(log_probs[t, k])

There are exponentially many paths; dynamic programming sums them in one pass over time.

**The extended labels.**  Put a blank before, between and after the S labels:

    target  c a t   ->   l' = _ c _ a _ t _     states s = 0 .. 2S

A path is a walk through l', one state per frame, from state 0 or 1 at the first frame
to one of the last two states at frame T-1; each step stays (s -> s), moves on (s -> s+1)
or skips a blank (s -> s+2), the skip only into a label that differs from the label two
states back ("a _ a" must keep its blank, or it would read as one "a").

**Forward (alpha)**, in log space so that long products do not underflow:

    alpha_t(s) = log of the summed probability of the path beginnings in state s at frame t
               = lp[t, l'_s] + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2)*)
    (* only where the skip is allowed).  It starts from alpha_{-1} = (0, -inf, -inf, ...),
    "before frame 0, in state 0": one step from there reaches states 0 and 1, as it should.
    loss = -logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S - 1))

**Backward (beta)**, the same walk from the end:

    beta_t(s) = log of the summed probability of the path endings after frame t, from state s
              = logsumexp over the next states s' (s, s+1, s+2*) of lp[t+1, l'_s'] + beta_{t+1}(s')
    beta_{T-1}(s) = 0 in the last two states, -inf elsewhere

so alpha_t(s) + beta_t(s) is the log-probability of all the paths in state s at frame t.

**The gradient.**  p is a sum of products with one factor y_t(path_t) per frame, and
d y_t(k) / d lp[t, k] = y_t(k), so

    dp / d lp[t, k]     = sum over the paths with path_t = k of their probability
                        = sum over the states s with l'_s = k of exp(alpha_t(s) + beta_t(s))
    dloss / d lp[t, k]  = -(that) / p = -gamma_t(k)

gamma_t(k), the share of the probability whose paths show class k at frame t, sums to 1
over k at every frame.  (PyTorch returns exp(lp) - gamma instead, the gradient of
loss(log_softmax(lp)) when lp already is a log_softmax; see nnbook/compat.py.)

Samples of a batch have their own input length T_n and target length S_n: the arrays are
padded to the longest, frames t >= T_n get no gradient, and the loss of sample n is read
at frame T_n - 1.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ArgumentError, DimError, DTypeError, InputError, ShapeError, fmt_shape, message
from .base import Op, is_int
from .embedding import first_bad
from .losses import check_reduction, loss_scale, reduce

NEG_INF = -np.inf


def check_blank(blank, where: str) -> int:
    """The blank's class index, an int >= 0 (log_probs' shape says whether it is < C)."""
    if not is_int(blank):
        raise ArgumentError(message(f"blank must be an int, got {blank!r}.", where=where,
                                    hint="blank is the index of the 'no label' class: "
                                    "blank=0 (the default) or blank=C - 1."))
    if blank < 0:
        raise InputError(message(f"blank={blank} must be a class index >= 0.", where=where,
                                 hint="use blank=0 (the default) or blank=C - 1."))
    return int(blank)


# ---------------------------------------------------------------------------
# Checks: shapes and dtypes (the shape rule), then the lengths and labels (values)
# ---------------------------------------------------------------------------

def batch_first_hint(log_probs, count: int) -> str | None:
    """A hint for log_probs given batch-first (N, T, C), when ``count`` things came per
    sample and dimension 0 is the one that has ``count``; else None."""
    if log_probs.ndim == 3 and log_probs.shape[0] == count != log_probs.shape[1]:
        return (f"log_probs {fmt_shape(log_probs.shape)} look batch-first (N, T, C); ctc_loss "
                "takes time first, (T, N, C): log_probs.transpose(0, 1).")
    return None


def check_log_probs(op: Op, log_probs) -> None:
    if log_probs.ndim not in (2, 3):
        op.fail(f"expects log_probs of shape (T, N, C) or (T, C), got {log_probs.ndim}-D "
                f"{fmt_shape(log_probs.shape)}.", cls=DimError,
                hint="frames first, then the batch, then the classes (the blank among them).")
    if log_probs.dtype not in (np.float32, np.float64):
        op.fail(f"expects float32 or float64 log_probs, got {log_probs.dtype.name}.",
                cls=DTypeError, hint="give the model's log-probabilities: "
                "F.log_softmax(logits.float(), dim=-1).")
    if 0 in log_probs.shape:
        op.fail(f"log_probs must not be empty, got {fmt_shape(log_probs.shape)}.",
                hint="give at least one frame, one sample and one class.")
    classes = log_probs.shape[-1]
    if op.blank >= classes:
        op.fail(f"blank={op.blank} is not a class of log_probs with {classes} classes "
                f"(valid: 0 to {classes - 1}).", cls=InputError,
                hint="the blank is one of the C classes: the model outputs one score more "
                "than there are labels; blank=0 or blank=C - 1.")


def check_lengths(op: Op, name: str, lengths, batch: int, log_probs) -> None:
    if lengths.dtype.kind not in "iu":
        op.fail(f"{name} must hold integers, got {lengths.dtype.name}.", cls=DTypeError,
                hint="lengths count frames and labels: whole numbers, e.g. lengths.long(), "
                "nb.tensor([9, 7, 9]) or (9, 7, 9).")
    count = math.prod(lengths.shape)
    if count != batch:
        op.fail(f"{name} must hold one length per sample, {batch}, got {count}.",
                values=f"log_probs {fmt_shape(log_probs.shape)}   {name} "
                f"{fmt_shape(lengths.shape)}",
                hint=batch_first_hint(log_probs, count) or
                "give one length per sample of log_probs' dimension 1 (N in (T, N, C)).")


def check_targets(op: Op, targets, batch: int, log_probs) -> None:
    if targets.dtype.kind not in "iubf":
        op.fail(f"targets must hold class indices, got {targets.dtype.name}.",
                cls=DTypeError, hint="give the labels as integers: targets.long().")
    if targets.ndim not in (1, 2):
        op.fail(f"targets must be (N, S), padded, or 1-D, the targets one after another; "
                f"got {targets.ndim}-D {fmt_shape(targets.shape)}.",
                hint="one row of labels per sample, padded to the longest (the padding is "
                "not read).")
    if targets.ndim == 2 and targets.shape[0] != batch:
        op.fail(f"targets must have one row per sample, {batch}, got {targets.shape[0]}.",
                values=f"log_probs {fmt_shape(log_probs.shape)}   targets "
                f"{fmt_shape(targets.shape)}",
                hint=batch_first_hint(log_probs, targets.shape[0]) or
                "give one row of labels per sample of log_probs' dimension 1.")


def check_input_lengths(op: Op, input_lengths, frames: int) -> np.ndarray:
    lengths = input_lengths.reshape(-1).astype(np.int64)
    bad = (lengths < 0) | (lengths > frames)
    if bad.any():
        n = first_bad(bad)
        op.fail(f"input_lengths[{n}] = {lengths[n]} is not a number of frames from 0 to "
                f"{frames}, the length T of log_probs.", cls=InputError,
                values=f"input_lengths {lengths.tolist()}",
                hint="input_lengths count frames of log_probs, as the model outputs them: "
                "after a strided convolution or a pooling, count its output steps, not the "
                "samples of the raw input.")
    return lengths


def check_target_lengths(op: Op, target_lengths, targets) -> np.ndarray:
    lengths = target_lengths.reshape(-1).astype(np.int64)
    values = f"target_lengths {lengths.tolist()}   targets {fmt_shape(targets.shape)}"
    if (lengths < 0).any():
        n = first_bad(lengths < 0)
        op.fail(f"target_lengths[{n}] = {lengths[n]} is negative.", values=values,
                cls=InputError, hint="each target length counts the labels of a sample.")
    if targets.ndim == 2 and (lengths > targets.shape[1]).any():
        n = first_bad(lengths > targets.shape[1])
        op.fail(f"target_lengths[{n}] = {lengths[n]} is more than the {targets.shape[1]} "
                "labels a row of targets holds.", values=values, cls=InputError,
                hint="pad every row of targets to the longest target.")
    if targets.ndim == 1 and lengths.sum() != targets.shape[0]:
        op.fail(f"targets hold {targets.shape[0]} labels one after another, but "
                f"target_lengths add up to {lengths.sum()}.", values=values, cls=ShapeError,
                hint="give all the samples' labels one after another (nb.cat), or as "
                "padded rows (N, S).")
    return lengths


def padded_labels(op: Op, targets, target_lengths, classes: int) -> np.ndarray:
    """The labels of each sample as a row of an (N, longest) array, the blank after them."""
    targets = targets.astype(np.int64)
    position = np.arange(target_lengths.max(initial=0))
    is_label = position < target_lengths[:, None]  # (N, S)
    if targets.ndim == 2:
        labels = targets[:, :len(position)]
    else:  # one after another: sample n's labels start after those of the samples before
        starts = np.cumsum(target_lengths) - target_lengths
        labels = targets[np.minimum(starts[:, None] + position, max(targets.size - 1, 0))]
    if (is_label & (labels == op.blank)).any():
        n, j = first_bad(is_label & (labels == op.blank))
        op.fail(f"the targets of sample {n} hold the blank (class {op.blank}) as label {j}; "
                "a target lists only real labels.", cls=InputError,
                hint="if your labels count from 0, shift them: targets + 1, with the blank "
                "as class 0 and C = labels + 1; or make the blank the last class, blank=C - 1."
                if op.blank == 0 else "labels other than the blank, please.")
    bad = is_label & ((labels < 0) | (labels >= classes))
    if bad.any():
        n, j = first_bad(bad)
        op.fail(f"the targets of sample {n} hold class {labels[n, j]} as label {j}, but "
                f"log_probs have {classes} classes (0 to {classes - 1}).", cls=DimError,
                hint=f"the model needs one output per label and one for the blank: C = "
                f"{int(labels[bad].max()) + 1} or more." if labels[n, j] >= classes else
                "labels are class indices from 0; only the padding after a sample's "
                "target length is not read.")
    return np.where(is_label, labels, op.blank)


# ---------------------------------------------------------------------------
# The recursion: one loop over time, the batch and the states at once
# ---------------------------------------------------------------------------

def shifted(a: np.ndarray, by: int) -> np.ndarray:
    """``a`` moved ``by`` states along its last axis, -inf filling in:
    shifted(a, 1)[..., s] = a[..., s - 1] and shifted(a, -1)[..., s] = a[..., s + 1]."""
    out = np.full_like(a, NEG_INF)
    if by > 0:
        out[..., by:] = a[..., :-by]
    else:
        out[..., :by] = a[..., -by:]
    return out


def extended_labels(labels: np.ndarray, blank: int):
    """(N, S) labels -> l' (N, 2S + 1), a blank before, between and after them; and
    ``can_skip`` (N, 2S + 1): may a path jump over the blank into state s (from s - 2)?"""
    ext = np.full((labels.shape[0], 2 * labels.shape[1] + 1), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    can_skip = np.zeros(ext.shape, dtype=bool)
    can_skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, can_skip


def alpha_recursion(emit: np.ndarray, can_skip: np.ndarray) -> np.ndarray:
    """alpha[t + 1] = alpha_t for t = -1 .. T-1, shape (T + 1, N, 2S + 1); ``emit[t, n, s]``
    is lp[t, n, l'_s], the log-probability that frame t shows state s's class."""
    frames, batch, states = emit.shape
    alpha = np.full((frames + 1, batch, states), NEG_INF, dtype=emit.dtype)
    alpha[0, :, 0] = 0.0  # before frame 0: in state 0, with probability 1
    for t in range(frames):
        before = alpha[t]
        stay_or_step = np.logaddexp(before, shifted(before, 1))
        skip = np.where(can_skip, shifted(before, 2), NEG_INF)
        alpha[t + 1] = emit[t] + np.logaddexp(stay_or_step, skip)
    return alpha


def beta_recursion(emit: np.ndarray, can_skip: np.ndarray, input_lengths: np.ndarray,
                   last_states: np.ndarray) -> np.ndarray:
    """beta[t] = beta_t, shape (T, N, 2S + 1): from state s at frame t, the log-probability
    of the rest of the path; -inf at the frames t >= T_n past a sample's input."""
    ending = np.where(last_states, 0.0, NEG_INF).astype(emit.dtype)  # beta_{T_n - 1}
    beta = np.full(emit.shape, NEG_INF, dtype=emit.dtype)
    for t in reversed(range(emit.shape[0])):
        if t + 1 < emit.shape[0]:
            after = emit[t + 1] + beta[t + 1]  # into state s' at frame t + 1, then on
            stay_or_step = np.logaddexp(after, shifted(after, -1))
            skip = shifted(np.where(can_skip, after, NEG_INF), -2)
            beta[t] = np.logaddexp(stay_or_step, skip)
        beta[t] = np.where((input_lengths == t + 1)[:, None], ending, beta[t])
    return beta


# ---------------------------------------------------------------------------
# The op
# ---------------------------------------------------------------------------

class CtcLoss(Op):
    """Inputs: log_probs (T, N, C) or (T, C); targets (N, S) padded, or the targets one
    after another (sum of the target lengths,); input_lengths and target_lengths (N,)."""

    name = "ctc_loss"

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        self.blank = check_blank(blank, self.where)
        self.reduction = check_reduction(reduction, self.where)
        self.zero_infinity = bool(zero_infinity)

    def infer(self, log_probs, targets, input_lengths, target_lengths):
        check_log_probs(self, log_probs)
        batch = log_probs.shape[1] if log_probs.ndim == 3 else 1
        check_lengths(self, "input_lengths", input_lengths, batch, log_probs)
        check_lengths(self, "target_lengths", target_lengths, batch, log_probs)
        check_targets(self, targets, batch, log_probs)
        if self.reduction == "none" and log_probs.ndim == 3:
            return (batch,)
        return ()

    def out_dtype(self, log_probs, *data):
        return log_probs.dtype

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        self.one_sample = log_probs.ndim == 2
        lp = log_probs[:, None] if self.one_sample else log_probs  # (T, N, C)
        frames, batch, self.classes = lp.shape
        self.input_lengths = check_input_lengths(self, input_lengths, frames)
        self.target_lengths = check_target_lengths(self, target_lengths, targets)
        labels = padded_labels(self, targets, self.target_lengths, self.classes)  # (N, S)
        self.ext, self.can_skip = extended_labels(labels, self.blank)
        self.emit = lp[:, np.arange(batch)[:, None], self.ext]  # (T, N, 2S+1): lp[t, n, l'_s]
        self.alpha = alpha_recursion(self.emit, self.can_skip)
        # the loss of sample n is read at frame T_n - 1, in state 2 S_n or 2 S_n - 1
        states = np.arange(self.ext.shape[1])
        self.last_states = ((states == 2 * self.target_lengths[:, None]) |
                            (states == 2 * self.target_lengths[:, None] - 1))
        final = self.alpha[self.input_lengths, np.arange(batch)]  # (N, 2S+1)
        self.nll = -np.logaddexp.reduce(np.where(self.last_states, final, NEG_INF), axis=1)
        self.zeroed = self.zero_infinity & (self.nll == np.inf)
        losses = np.where(self.zeroed, 0.0, self.nll)
        if self.reduction == "mean":  # each loss per label of its target, then the batch mean
            losses = losses / np.maximum(self.target_lengths, 1)
        out = reduce(losses.astype(lp.dtype), self.reduction, batch)
        return out.reshape(()) if self.one_sample else out

    def backward(self, grad_out):
        # dloss_n / dlp[t, n, k] = -sum_{s: l'_s = k} exp(alpha_t(s) + beta_t(s) + loss_n)
        # for the frames t < T_n of sample n, 0 after them (module docstring)
        beta = beta_recursion(self.emit, self.can_skip, self.input_lengths, self.last_states)
        share = np.exp(self.alpha[1:] + beta + self.nll[:, None])  # (T, N, 2S+1)
        # each class collects the shares of the states that show it
        shows = (self.ext[:, :, None] == np.arange(self.classes)).astype(share.dtype)
        grad = -np.einsum("tns,nsc->tnc", share, shows)  # (T, N, C)
        scale = loss_scale(grad_out, self.reduction, len(self.nll), self.nll.shape)
        if self.reduction == "mean":
            scale = scale / np.maximum(self.target_lengths, 1)
        in_input = np.arange(grad.shape[0])[:, None] < self.input_lengths  # (T, N)
        grad = np.where(in_input[:, :, None] & ~self.zeroed[:, None], grad * scale[:, None], 0)
        grad = grad.astype(grad_out.dtype)
        return (grad[:, 0] if self.one_sample else grad), None, None, None
