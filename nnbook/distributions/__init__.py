"""Probability distributions with PyTorch's names (``torch.distributions``): draw,
score and compare them, for VAEs, policy gradients and Bayesian models.

    d = nb.distributions.Normal(mu, sigma)
    z = d.rsample()                   # mu + sigma * noise: gradients reach mu and sigma
    d.log_prob(z), d.entropy()
    nb.distributions.kl_divergence(d, nb.distributions.Normal(0.0, 1.0))

The families: Normal, Uniform, Exponential, Laplace (continuous.py); Cauchy, StudentT,
Gumbel, HalfNormal, LogNormal (tails.py); Gamma, Chi2, Beta, Dirichlet (gamma.py);
Bernoulli, Categorical, OneHotCategorical (discrete.py); Poisson, Binomial, Geometric
(counts.py); MultivariateNormal; Independent.

Draws come from nnbook's generator (``nb.manual_seed``), so they are not PyTorch's
numbers; everything computed from given values (log_prob, entropy, KL...) is.
"""
from . import constraints, kl
from .continuous import Exponential, Laplace, Normal, Uniform
from .counts import Binomial, Geometric, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .gamma import Beta, Chi2, Dirichlet, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .tails import Cauchy, Gumbel, HalfNormal, LogNormal, StudentT

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal",
           "OneHotCategorical", "Poisson", "StudentT", "Uniform", "constraints", "kl",
           "kl_divergence", "register_kl"]
