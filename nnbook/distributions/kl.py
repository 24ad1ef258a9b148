"""KL divergences in closed form: ``kl_divergence(p, q)`` = E_p[log p(x) - log q(x)].

A rule is registered for a pair of classes with ``@register_kl(P, Q)``; for a pair of
subclasses, the rule of the closest registered pair is used.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import MissingRuleError, message
from .continuous import Normal, Uniform
from .counts import Binomial, Geometric, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical, _softplus
from .distribution import Distribution
from .gamma import Beta, Dirichlet, Gamma
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal, solve_triangular
from .tails import _EULER, Cauchy, Gumbel, HalfNormal, LogNormal

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


# -- the gamma family (Chi2 is a Gamma) ------------------------------------------------------

@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    # a_q log(b_p / b_q) + log G(a_q) - log G(a_p) + (a_p - a_q) psi(a_p) + (b_q - b_p) a_p / b_p
    a_p, b_p, a_q, b_q = p.concentration, p.rate, q.concentration, q.rate
    return a_q * (b_p / b_q).log() + a_q.lgamma() - a_p.lgamma() \
        + (a_p - a_q) * a_p.digamma() + (b_q - b_p) * (a_p / b_p)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    # log G(sum a_p) - log G(sum a_q) - sum (log G(a_p) - log G(a_q))
    #     + sum (a_p - a_q) (psi(a_p) - psi(sum a_p))
    a_p, a_q = p.concentration, q.concentration
    total_p = a_p.sum(-1)
    return total_p.lgamma() - a_q.sum(-1).lgamma() - (a_p.lgamma() - a_q.lgamma()).sum(-1) \
        + ((a_p - a_q) * (a_p.digamma() - total_p.digamma().unsqueeze(-1))).sum(-1)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):  # the Dirichlet's, for the two parts (a, b)
    a_p, b_p, a_q, b_q = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    total_p, total_q = a_p + b_p, a_q + b_q
    return total_p.lgamma() - total_q.lgamma() - a_p.lgamma() - b_p.lgamma() + a_q.lgamma() \
        + b_q.lgamma() + (a_p - a_q) * a_p.digamma() + (b_p - b_q) * b_p.digamma() \
        + (total_q - total_p) * total_p.digamma()


# -- counts ----------------------------------------------------------------------------------

@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):  # r_p log(r_p / r_q) - (r_p - r_q)
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # n (p_p log(p_p / p_q) + (1 - p_p) log((1 - p_p) / (1 - p_q))) for one n; inf where
    # n_p > n_q (p gives counts q never does)
    if (p.total_count < q.total_count).any().item():
        raise MissingRuleError(message(
            "there is no closed form for a Binomial p with fewer trials (total_count) than "
            "q.", where="distributions.kl_divergence",
            hint="give both the same total_count (PyTorch refuses this case too)."))
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # -H(p) - E_p[k] log(1 - q) - log q  (E_p[k] = 1/p_p - 1, log(q/(1-q)) = logits_q)
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


# -- heavy and one-sided tails --------------------------------------------------------------

@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):  # log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q))
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() \
        - (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # with r = s_p / s_q and d = (m_p - m_q) / s_q:
    # -log r + d + euler (r - 1) + e^-d Gamma(1 + r) - 1
    r = p.scale / q.scale
    d = (p.loc - q.loc) / q.scale
    return -r.log() + d + _EULER * (r - 1) + ((1 + r).lgamma() - d).exp() - 1


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):  # that of the normals it folds: both are centred at 0
    return _kl_normal_normal(p._normal(), q._normal())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):  # that of the normals of the logs (exp is one-to-one)
    return _kl_normal_normal(p._normal(), q._normal())
