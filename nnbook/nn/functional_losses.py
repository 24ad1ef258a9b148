"""The losses of ``nn.functional`` beyond nll_loss, cross_entropy and mse_loss.

l1, smooth_l1, huber, the binary cross-entropies and kl_div are ops
(``ops/elementwise_losses.py``); the margin losses are a few lines of tensor maths, as
PyTorch writes them.  Arguments, defaults and the old ``size_average``/``reduce`` flags
are PyTorch's.
"""
from __future__ import annotations

from ..errors import fmt_shape, warn_from_user_code
from ..ops import elementwise_losses as losses
from ..ops.losses import check_reduction
from ..tensor import apply
from .arguments import _array, _data, _fail, _tensor, legacy_reduction
from .functional_distance import pairwise_distance

__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
           "margin_ranking_loss", "triplet_margin_loss"]


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
