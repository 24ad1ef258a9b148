"""The losses of ``nn.functional`` beyond nll_loss, cross_entropy and mse_loss.

l1, smooth_l1, huber, the binary cross-entropies and kl_div are ops
(``ops/elementwise_losses.py``), and so are the multi-class margins multi_margin and
multilabel_margin (``ops/margin_losses.py``); the other margin and likelihood losses are a
few lines of tensor maths, as PyTorch writes them; ctc_loss is an op of its own
(``ops/sequence_losses.py``).  Arguments, defaults and the old
``size_average``/``reduce`` flags are PyTorch's.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..context import no_grad
from ..errors import ArgumentError, DimError, DTypeError, ShapeError, fmt_shape, warn_from_user_code
from ..ops import elementwise_losses as losses
from ..ops.losses import check_reduction, shape_mismatch
from ..ops.margin_losses import MultilabelMarginLoss, MultiMarginLoss
from ..ops.sequence_losses import CtcLoss
from ..tensor import _wrap, apply
from .arguments import _array, _data, _fail, _tensor, legacy_reduction
from .functional_activations import logsigmoid
from .functional_distance import pairwise_distance

__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
           "margin_ranking_loss", "triplet_margin_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]


def _pair(fn, input, target):
    return _tensor(fn, "input", input), _data(fn, "target", target)


def _weighted(fn, per_element, weight, reduction, mean_over_weights):
    """PyTorch's weighted l1 and huber: per-element losses times ``weight`` (the input's
    shape), then reduced; l1's 'mean' divides by sum(weight), huber's by the count."""
    weight = _data(fn, "weight", weight)
    if weight.shape != per_element.shape:
        _fail(fn, f"weight must have the input's shape {fmt_shape(per_element.shape)}, got "
              f"{fmt_shape(weight.shape)}.", hint="give one weight per element.")
    weighted = per_element * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    return weighted.sum() / weight.sum() if mean_over_weights else weighted.mean()


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mean(|input - target|)."""
    reduction = legacy_reduction("F.l1_loss", size_average, reduce, reduction)
    input, target = _pair("l1_loss", input, target)
    if weight is None:
        return apply(losses.L1Loss(reduction), input, target)
    check_reduction(reduction, "F.l1_loss")
    return _weighted("l1_loss", apply(losses.L1Loss("none"), input, target), weight,
                     reduction, mean_over_weights=True)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error / (2 beta) for differences below beta, absolute error - beta/2 above."""
    reduction = legacy_reduction("F.smooth_l1_loss", size_average, reduce, reduction)
    return apply(losses.SmoothL1Loss(reduction, beta), *_pair("smooth_l1_loss", input, target))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error / 2 for differences below delta, delta * (|d| - delta/2) above."""
    input, target = _pair("huber_loss", input, target)
    if weight is None:
        return apply(losses.HuberLoss(reduction, delta), input, target)
    check_reduction(reduction, "F.huber_loss")
    return _weighted("huber_loss", apply(losses.HuberLoss("none", delta), input, target),
                     weight, reduction, mean_over_weights=False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)) for probabilities p in [0, 1] (after a sigmoid)."""
    fn = "binary_cross_entropy"
    reduction = legacy_reduction(f"F.{fn}", size_average, reduce, reduction)
    op = losses.BinaryCrossEntropy(reduction, _array(fn, "weight", weight))
    return apply(op, *_pair(fn, input, target))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """sigmoid + binary_cross_entropy in one stable step; ``input`` holds raw scores.
    ``pos_weight`` (one per class, the last dimension) weighs the positive targets."""
    fn = "binary_cross_entropy_with_logits"
    reduction = legacy_reduction(f"F.{fn}", size_average, reduce, reduction)
    op = losses.BinaryCrossEntropyWithLogits(reduction, _array(fn, "weight", weight),
                                             _array(fn, "pos_weight", pos_weight))
    return apply(op, *_pair(fn, input, target))


class KLDivMeanWarning(UserWarning):
    """kl_div with reduction='mean' averages over every element, not over the batch."""


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """sum t (log t - input) for log-probabilities ``input``; reduction='batchmean' gives
    the KL divergence per sample."""
    reduction = legacy_reduction("F.kl_div", size_average, reduce, reduction)
    if reduction == "mean":
        warn_from_user_code(KLDivMeanWarning(
            "F.kl_div: reduction='mean' divides the total by the number of elements, not by "
            "the batch size; reduction='batchmean' gives the KL divergence per sample (as "
            "in PyTorch, which warns the same)."))
    return apply(losses.KlDiv(reduction, log_target), *_pair("kl_div", input, target))


def _reduce(values, reduction):
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    return values


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1; max(0, cos(x1, x2) - margin) where it is -1."""
    fn = "cosine_embedding_loss"
    reduction = check_reduction(legacy_reduction(f"F.{fn}", size_average, reduce, reduction),
                                f"F.{fn}")
    x1, x2, target = _tensor(fn, "input1", input1), _tensor(fn, "input2", input2), \
        _data(fn, "target", target)
    dim = 1 if x1.ndim == 2 else 0
    eps = 1e-12  # PyTorch's, added to each squared length
    cos = (x1 * x2).sum(dim) / ((x1 * x1).sum(dim) + eps).mul((x2 * x2).sum(dim) + eps).sqrt()
    zero = cos * 0
    out = (1 - cos).where(target == 1, zero) + \
        (cos - margin).clamp_min(0).where(target == -1, zero)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin): target 1 wants input1 ranked higher."""
    fn = "margin_ranking_loss"
    reduction = check_reduction(legacy_reduction(f"F.{fn}", size_average, reduce, reduction),
                                f"F.{fn}")
    x1, x2, target = _tensor(fn, "input1", input1), _tensor(fn, "input2", input2), \
        _data(fn, "target", target)
    return _reduce((-target * (x1 - x2) + margin).clamp_min(0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise distance."""
    fn = "triplet_margin_loss"
    reduction = check_reduction(legacy_reduction(f"F.{fn}", size_average, reduce, reduction),
                                f"F.{fn}")
    if margin <= 0:
        _fail(fn, f"margin must be greater than 0, got {margin}.",
              hint="the margin is how much farther the negative must be; 1.0 is the default.")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:  # the harder of the two negatives' distances
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


# ---------------------------------------------------------------------------
# Labels of 1 and -1, counts, Gaussians, and the multi-class margins
# ---------------------------------------------------------------------------

class _Named:
    """What ``shape_mismatch`` needs of an op: a ``fail`` that names the function."""

    def __init__(self, fn):
        self.fn = fn

    def fail(self, what, values=None, hint=None, cls=ShapeError):
        _fail(self.fn, what, values=values, hint=hint, cls=cls)


def _checked(fn, size_average, reduce, reduction):
    return check_reduction(legacy_reduction(f"F.{fn}", size_average, reduce, reduction),
                           f"F.{fn}")


def _float_pair(fn, input, target, hint=None):
    """A float input and a target of its shape; integer or boolean targets (labels of
    1 and -1, counts) are read as the input's dtype, as PyTorch promotes them."""
    input, target = _tensor(fn, "input", input), _data(fn, "target", target)
    if not input.is_floating_point():
        _fail(fn, f"expects a floating point input, got {input.dtype}.", cls=DTypeError,
              values=f"input {fmt_shape(input.shape)} {input.dtype}",
              hint="the input holds the model's scores or predictions: input.float().")
    if target.shape != input.shape:
        if hint is not None:
            _fail(fn, f"target must have the input's shape {fmt_shape(input.shape)}, got "
                  f"{fmt_shape(target.shape)}.", cls=ShapeError, hint=hint,
                  values=f"input {fmt_shape(input.shape)}   target {fmt_shape(target.shape)}")
        shape_mismatch(_Named(fn), input, target)
    if not target.is_floating_point():
        target = target.to(input.dtype)
    return input, target


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) per element, for labels of 1 and -1."""
    fn = "soft_margin_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    input, target = _float_pair(fn, input, target)
    return _reduce(-logsigmoid(target * input), reduction)  # -log sigmoid(z) = log(1 + e^-z)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross-entropy of each class' score against a 0/1 target, averaged over the
    classes (the last dimension): one loss per sample."""
    fn = "multilabel_soft_margin_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    x = _tensor(fn, "input", input)
    if x.ndim == 0:
        _fail(fn, "expects scores of shape (N, C) or (C,), got a 0-d tensor: it has no "
              "class dimension.", cls=DimError,
              hint="give one score per class in the last dimension.")
    classes = x.shape[-1]
    input, target = _float_pair(fn, input, target, hint=(
        f"give one 0/1 target per class, of the input's shape; from class indices: "
        f"F.one_hot(target, {classes}).float(). For one class per sample use "
        "cross_entropy.") if _data(fn, "target", target).ndim == x.ndim - 1 else None)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        weight = _data(fn, "weight", weight)
        try:
            fits = np.broadcast_shapes(weight.shape, x.shape) == x.shape
        except ValueError:
            fits = False
        if not fits:
            _fail(fn, f"weight of shape {fmt_shape(weight.shape)} does not broadcast to the "
                  f"input's shape {fmt_shape(x.shape)}.", cls=ShapeError,
                  hint=f"give one weight per class: shape ({classes},).")
        loss = loss * weight
    return _reduce(loss.sum(-1) / classes, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge loss: sum over the wrong classes j of
    max(0, margin - x[y] + x[j])**p / C, y the target class (one index per sample)."""
    fn = "multi_margin_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    op = MultiMarginLoss(p, margin, _array(fn, "weight", weight), reduction)
    return apply(op, _tensor(fn, "input", input), _data(fn, "target", target))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Every listed class of a sample should score 1 above every unlisted one; target rows
    list the classes by index and end with -1 ([3, 0, -1, -1]: classes 3 and 0)."""
    fn = "multilabel_margin_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    return apply(MultilabelMarginLoss(reduction), _tensor(fn, "input", input),
                 _data(fn, "target", target))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (input is a
    distance: similar pairs close, dissimilar ones at least margin apart)."""
    fn = "hinge_embedding_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    input, target = _float_pair(fn, input, target)
    zero = input.new_zeros(input.shape)
    # PyTorch's form: a target neither 1 nor -1 gets both terms
    return _reduce((margin - input).clamp_min(0).where(target != 1, zero)
                   + input.where(target != -1, zero), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """The negative log-likelihood of counts ``target`` under a Poisson of rate
    exp(input) (log_input=True) or input: rate - target * log(rate), up to a constant;
    ``full`` adds Stirling's log(target!) ~ t log t - t + log(2 pi t) / 2 (for t > 1)."""
    fn = "poisson_nll_loss"
    reduction = _checked(fn, size_average, reduce, reduction)
    input, target = _float_pair(fn, input, target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        big = target > 1
        t = target.where(big, target.new_full(target.shape, 2.0))  # t > 1 everywhere: no
        stirling = t * t.log() - t + 0.5 * (2 * math.pi * t).log()  # log(0) in backward
        loss = loss + stirling.where(big, target.new_zeros(target.shape))
    return _reduce(loss, reduction)


def _variance(fn, var, input):
    """var as a tensor that broadcasts to the input: its shape, one dimension fewer, or
    size 1 in one dimension (one variance shared along it)."""
    if isinstance(var, numbers.Real) and not isinstance(var, bool):
        if var < 0:
            _fail(fn, f"var has negative entry/entries: got var={var}.",
                  hint="var is a variance (sigma**2), never negative; predict it through "
                  "F.softplus or .exp() to keep it positive.")
        return input.new_full(input.shape, float(var))
    var = _tensor(fn, "var", var)
    if (np.asarray(var) < 0).any():
        _fail(fn, f"var has negative entry/entries: the smallest is {float(var.min()):g}.",
              values=f"var {fmt_shape(var.shape)}",
              hint="var is a variance (sigma**2), never negative; predict it through "
              "F.softplus or .exp() to keep it positive.")
    if var.shape == input.shape:
        return var
    if var.shape == input.shape[:-1]:
        return var.unsqueeze(-1)  # one variance per row of the last dimension
    differ = [v for i, v in zip(input.shape, var.shape) if i != v]
    if var.ndim == input.ndim and differ == [1]:
        return var
    _fail(fn, f"var is of incorrect size: {fmt_shape(var.shape)} for an input of shape "
          f"{fmt_shape(input.shape)}.", cls=ShapeError,
          values=f"input {fmt_shape(input.shape)}   var {fmt_shape(var.shape)}",
          hint=f"give var the input's shape {fmt_shape(input.shape)}, or that shape without "
          f"its last dimension {fmt_shape(input.shape[:-1])}, or with 1 in one dimension "
          "(one variance shared along it).")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and
    variance ``var``: (log var + (input - target)**2 / var) / 2, plus log(2 pi) / 2 with
    ``full``.  var is kept >= eps for the value, but its gradient is the unclamped one."""
    fn = "gaussian_nll_loss"
    input, target = _float_pair(fn, input, target)
    var = _variance(fn, var, input)
    reduction = check_reduction(reduction, f"F.{fn}")
    with no_grad():
        lift = var.clamp_min(eps) - var  # 0 unless var is below eps
    var = var + lift
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


TRIPLET = ("anchor", "positive", "negative")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for any distance
    function d(x1, x2) -> one distance per sample (the default: pairwise_distance)."""
    fn = "triplet_margin_with_distance_loss"
    reduction = check_reduction(reduction, f"F.{fn}")
    if not margin > 0:
        _fail(fn, f"margin must be greater than 0, got {margin}.",
              hint="the margin is how much farther the negative must be; 1.0 is the default.")
    tensors = [_tensor(fn, name, t) for name, t in zip(TRIPLET, (anchor, positive, negative))]
    if len({t.ndim for t in tensors}) != 1:
        dims = ", ".join(f"{name} {t.ndim}-D" for name, t in zip(TRIPLET, tensors))
        _fail(fn, f"anchor, positive and negative must have the same number of dimensions, "
              f"got {dims}.", cls=ShapeError,
              values="   ".join(f"{name} {fmt_shape(t.shape)}" for name, t in
                                 zip(TRIPLET, tensors)),
              hint="give the three as batches of the same shape (N, D).")
    if distance_function is not None and not callable(distance_function):
        _fail(fn, f"distance_function must be a function of two tensors, got "
              f"{type(distance_function).__name__}.", cls=ArgumentError,
              hint="e.g. distance_function=lambda a, b: 1 - F.cosine_similarity(a, b).")
    distance = pairwise_distance if distance_function is None else distance_function
    anchor, positive, negative = tensors
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:  # the harder of the two negatives' distances
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


# ---------------------------------------------------------------------------
# Sequences
# ---------------------------------------------------------------------------

def _lengths(fn, name, value):
    """A tensor or numpy array of lengths, or a tuple or list of ints (as PyTorch takes)."""
    if isinstance(value, (tuple, list)) and all(isinstance(v, numbers.Integral) and
                                                 not isinstance(v, bool) for v in value):
        return _wrap(np.array(value, dtype=np.int64).reshape(len(value)))
    if isinstance(value, numbers.Number):
        _fail(fn, f"{name} must be a tensor or a tuple of ints, got the number {value!r}.",
              cls=DTypeError, hint=f"one sample's length too: {name}=({value},) or "
              f"nb.tensor({value}).")
    if isinstance(value, (tuple, list)):
        _fail(fn, f"{name} must hold ints, got {value!r}.", cls=DTypeError,
              hint="lengths count frames and labels: e.g. (9, 7, 9).")
    return _data(fn, name, value)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """-log p(targets | log_probs), summed over every alignment of the labels with the
    frames (connectionist temporal classification).  log_probs (T, N, C) or (T, C), from
    log_softmax over the classes, one of which is the blank; targets (N, S), padded, or the
    targets one after another; 'mean' divides each loss by its target length, then averages."""
    fn = "ctc_loss"
    op = CtcLoss(blank, reduction, zero_infinity)
    return apply(op, _tensor(fn, "log_probs", log_probs), _data(fn, "targets", targets),
                 _lengths(fn, "input_lengths", input_lengths),
                 _lengths(fn, "target_lengths", target_lengths))
