"""Probability distributions with PyTorch's names (``torch.distributions``): draw,
score and compare them, for VAEs, policy gradients and Bayesian models.

    d = nb.distributions.Normal(mu, sigma)
    z = d.rsample()                   # mu + sigma * noise: gradients reach mu and sigma
    d.log_prob(z), d.entropy()
    nb.distributions.kl_divergence(d, nb.distributions.Normal(0.0, 1.0))

Draws come from nnbook's generator (``nb.manual_seed``), so they are not PyTorch's
numbers; everything computed from given values (log_prob, entropy, KL...) is.
"""
from . import constraints, kl
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent",
           "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform",
           "constraints", "kl", "kl_divergence", "register_kl"]
