"""Draws come from nnbook's generator, so they are not PyTorch's numbers: they are checked
by their statistics.  Each test draws tens of thousands of samples from a generator seeded
for it (conftest.py), and allows about 5 standard errors -- far less than what a wrong
formula moves (a variance for a standard deviation, a missing shift, a swapped class)."""
import math

import numpy as np
import pytest

import nnbook as nb

D = nb.distributions
N = 40_000


def close_to(samples, expected, sd, n=N):
    """The mean of ``samples`` (along dim 0) within 5 standard errors of ``expected``."""
    got = samples.mean(0)
    np.testing.assert_array_less(np.abs(got - expected), 5 * np.asarray(sd) / math.sqrt(n))


@pytest.mark.parametrize("make, mean, sd", [
    (lambda: D.Normal(nb.tensor([1.5, -2.0]), nb.tensor([0.5, 3.0])), [1.5, -2.0], [0.5, 3.0]),
    (lambda: D.Uniform(nb.tensor([-1.0, 2.0]), nb.tensor([3.0, 2.5])), [1.0, 2.25],
     [4 / 12 ** 0.5, 0.5 / 12 ** 0.5]),
    (lambda: D.Exponential(nb.tensor([0.5, 4.0])), [2.0, 0.25], [2.0, 0.25]),
    (lambda: D.Laplace(nb.tensor([0.5, -1.0]), nb.tensor([2.0, 0.3])), [0.5, -1.0],
     [2.0 * 2 ** 0.5, 0.3 * 2 ** 0.5]),
    (lambda: D.Bernoulli(nb.tensor([0.1, 0.7])), [0.1, 0.7],
     [0.3, 0.21 ** 0.5]),
])
def test_means_and_variances_of_draws(make, mean, sd):
    d = make()
    x = d.sample((N,)).numpy()
    assert x.shape == (N, 2) and x.dtype == np.float32
    close_to(x, mean, sd)
    # the variance: E[(x - mean)^2] = sd^2, whose own spread is about sqrt(E[x^4]) (< 3 sd^2
    # for these, 6 sd^2 for the Laplace and 9 sd^2 for the exponential)
    close_to((x - np.asarray(mean)) ** 2, np.square(sd), 3 * np.square(sd))
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-6)
    np.testing.assert_allclose(d.stddev.numpy(), sd, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: D.Normal(0.5, 2.0), lambda: D.Laplace(-1.0, 0.5), lambda: D.Exponential(3.0),
    lambda: D.Uniform(-2.0, 1.0)])
def test_draws_fall_below_icdf_p_a_fraction_p_of_the_time(make):
    """Sampling, cdf and icdf agree: P(x <= icdf(p)) = p, and cdf(icdf(p)) = p."""
    d = make()
    x = d.sample((N,))
    for p in (0.1, 0.5, 0.8):
        edge = d.icdf(nb.tensor(p))
        below = (x <= edge).float().mean().item()
        assert abs(below - p) < 5 * math.sqrt(p * (1 - p) / N)
        assert abs(d.cdf(edge).item() - p) < 1e-5


@pytest.mark.parametrize("make", [
    lambda: D.Normal(0.5, 2.0), lambda: D.Laplace(-1.0, 0.5), lambda: D.Exponential(3.0),
    lambda: D.Uniform(-2.0, 1.0),
    lambda: D.MultivariateNormal(nb.zeros(2), nb.tensor([[2.0, 0.6], [0.6, 0.5]]))])
def test_entropy_is_the_mean_of_minus_log_prob_of_draws(make):
    d = make()
    minus_log_p = -d.log_prob(d.sample((N,))).double().numpy()
    close_to(minus_log_p, d.entropy().item(), minus_log_p.std() + 1e-3)  # (Uniform: 0)


def test_categorical_draws_each_class_as_often_as_its_probability():
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    d = D.Categorical(probs=nb.tensor(probs * 7))  # unnormalised, as PyTorch allows
    x = d.sample((N,)).numpy()
    assert x.shape == (N, 2) and x.dtype == np.int64
    for k in range(3):
        frequency = (x == k).mean(0)
        close_to(frequency[None], probs[:, k], np.sqrt(probs[:, k] * (1 - probs[:, k])) + 1e-9)
    assert (x[:, 1] != 1).all()  # a class of probability 0 is never drawn


def test_one_hot_categorical_draws_one_hot_rows_at_the_class_frequencies():
    probs = np.array([0.2, 0.5, 0.3])
    x = D.OneHotCategorical(probs=nb.tensor(probs)).sample((N,)).numpy()
    assert x.shape == (N, 3) and set(np.unique(x)) == {0.0, 1.0} and (x.sum(1) == 1).all()
    close_to(x, probs, np.sqrt(probs * (1 - probs)))


def test_multivariate_normal_draws_have_its_mean_and_covariance():
    cov = np.array([[2.0, 0.8, 0.0], [0.8, 1.0, -0.3], [0.0, -0.3, 0.5]])
    loc = np.array([1.0, -1.0, 0.5])
    d = D.MultivariateNormal(nb.tensor(loc), covariance_matrix=nb.tensor(cov))
    x = d.sample((N,)).double().numpy()
    close_to(x, loc, np.sqrt(np.diag(cov)))
    centred = x - loc
    products = centred[:, :, None] * centred[:, None, :]
    spread = np.sqrt(np.outer(np.diag(cov), np.diag(cov)) + cov ** 2)  # sd of x_i x_j
    close_to(products, cov, spread)


def test_the_same_seed_gives_the_same_draws_and_sample_has_no_gradient():
    loc = nb.zeros(4, requires_grad=True)
    d = D.Normal(loc, 1.0)
    nb.manual_seed(3)
    a = d.sample((2,))
    nb.manual_seed(3)
    b = d.rsample((2,))
    assert not a.requires_grad and b.requires_grad
    assert np.array_equal(a.numpy(), b.detach().numpy())
    assert not np.array_equal(a.numpy(), d.sample((2,)).numpy())


def test_rsample_passes_gradients_to_the_parameters():
    """x = loc + scale * eps: dx/dloc = 1 and dx/dscale = eps = (x - loc) / scale."""
    loc = nb.tensor([0.5, -1.0], dtype=nb.float64, requires_grad=True)
    scale = nb.tensor([2.0, 0.5], dtype=nb.float64, requires_grad=True)
    x = D.Normal(loc, scale).rsample((5,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [5.0, 5.0])
    eps = (x.detach().numpy() - loc.detach().numpy()) / scale.detach().numpy()
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0), rtol=1e-12)


def test_rsample_of_a_multivariate_normal_is_loc_plus_scale_tril_times_noise():
    L = nb.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=nb.float64, requires_grad=True)
    loc = nb.tensor([1.0, 2.0], dtype=nb.float64, requires_grad=True)
    x = D.MultivariateNormal(loc, scale_tril=L).rsample((3,))
    eps = np.linalg.solve(L.detach().numpy(), (x.detach().numpy() - [1.0, 2.0]).T).T
    x[:, 1].sum().backward()  # x_1 = loc_1 + L_10 eps_0 + L_11 eps_1
    np.testing.assert_allclose(loc.grad.numpy(), [0.0, 3.0])
    np.testing.assert_allclose(L.grad.numpy(), [[0.0, 0.0], eps.sum(0)], atol=1e-12)


def test_draws_are_in_the_support():
    for d in [D.Uniform(1.0, 1.5), D.Exponential(0.1), D.Bernoulli(logits=nb.tensor(0.3)),
              D.Categorical(logits=nb.zeros(4))]:
        x = d.sample((1000,))
        assert d.support.check(x).all().item(), d
