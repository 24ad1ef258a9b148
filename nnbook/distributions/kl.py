"""KL divergences in closed form: ``kl_divergence(p, q)`` = E_p[log p(x) - log q(x)].

A rule is registered for a pair of classes with ``@register_kl(P, Q)``; for a pair of
subclasses, the rule of the closest registered pair is used.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import MissingRuleError, message
from .continuous import Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical, _softplus
from .distribution import Distribution
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal, solve_triangular

_RULES: dict = {}


def register_kl(type_p, type_q):
    """Decorator: ``@register_kl(Normal, Normal)`` over ``def kl(p, q): ...``."""
    def register(fn):
        _RULES[type_p, type_q] = fn
        return fn
    return register


def _rule(type_p, type_q):
    matches = [(i + j, p, q) for i, p in enumerate(type_p.__mro__)
               for j, q in enumerate(type_q.__mro__) if (p, q) in _RULES]
    return _RULES[min(matches, key=lambda m: m[0])[1:]] if matches else None


def kl_divergence(p: Distribution, q: Distribution):
    """KL(p || q), one number per distribution of the batch."""
    rule = _rule(type(p), type(q))
    if rule is None:
        known = ", ".join(f"{a.__name__}-{b.__name__}" for a, b in _RULES)
        raise MissingRuleError(message(
            f"there is no closed-form KL divergence from {type(p).__name__} to "
            f"{type(q).__name__}.", where="distributions.kl_divergence", values=f"known: {known}",
            hint="estimate it by sampling, (p.log_prob(x) - q.log_prob(x)).mean() with "
                 "x = p.rsample((n,)), or add a rule with @register_kl."))
    return rule(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    # log(s_q / s_p) + (s_p^2 + (m_p - m_q)^2) / (2 s_q^2) - 1/2
    var_ratio = (p.scale / q.scale).pow(2)
    t = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p / q) + (1 - p) log((1 - p) / (1 - q)); with logits l (log p = l - sp(l),
    # log(1 - p) = -sp(l), sp(l) = log(1 + e^l)) it is p (l_p - l_q) + sp(l_q) - sp(l_p)
    return p.probs * (p.logits - q.logits) + _softplus(q.logits) - _softplus(p.logits)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    # sum_k p_k (log p_k - log q_k); a class p never gives adds 0
    terms = p.probs * (p.logits - q.logits)
    terms = terms.masked_fill(p.probs == 0, 0.0)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    # log((h_q - l_q) / (h_p - l_p)) when [l_p, h_p] lies inside [l_q, h_q], else inf
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return kl.masked_fill(outside, math.inf)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    # 1/2 [ tr(S_q^-1 S_p) + |L_q^-1 (m_q - m_p)|^2 - d + log|S_q| - log|S_p| ]
    d = p.event_shape[0]
    shape = tuple(np.broadcast_shapes(p.batch_shape, q.batch_shape))
    lq = q.scale_tril.expand(shape + (d, d))
    lp = p.scale_tril.expand(shape + (d, d))
    m = solve_triangular(lq, lp)  # L_q^-1 L_p: tr(S_q^-1 S_p) = |L_q^-1 L_p|_F^2
    diff = (q.loc - p.loc).expand(shape + (d,)).unsqueeze(-1)
    z = solve_triangular(lq, diff).squeeze(-1)
    return 0.5 * (m.pow(2).sum((-2, -1)) + z.pow(2).sum(-1) - d) \
        + q._half_log_det() - p._half_log_det()


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise MissingRuleError(message(
            f"the two Independent distributions read {p.reinterpreted_batch_ndims} and "
            f"{q.reinterpreted_batch_ndims} batch dims as the event.",
            where="distributions.kl_divergence",
            hint="give both the same reinterpreted_batch_ndims."))
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          p.reinterpreted_batch_ndims)
