"""Draws of the gamma family, the counts and the tails, checked by their statistics (they
come from nnbook's generator, not PyTorch's): means and variances, frequencies of counts,
agreement with cdf / icdf, entropy as the mean of -log_prob, KL as the mean log-ratio,
and rsample's gradients as the derivatives of the moments they must average to.  Each
test draws tens of thousands of samples from a generator seeded for it (conftest.py) and
allows about 5 standard errors, estimated from the draws themselves."""
import math

import numpy as np
import pytest

import nnbook as nb

D = nb.distributions
N = 40_000


def t(a, grad=False):
    return nb.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def close_to(samples, expected, spread=None):
    """The mean of ``samples`` (along dim 0) within 5 standard errors of ``expected``;
    the standard error comes from the samples' own spread unless given."""
    samples = np.asarray(samples, dtype=np.float64)
    spread = samples.std(0) if spread is None else spread
    np.testing.assert_array_less(np.abs(samples.mean(0) - expected),
                                 5 * np.asarray(spread) / math.sqrt(len(samples)) + 1e-12)


@pytest.mark.parametrize("make", [
    lambda: D.Gamma(t([0.3, 3.0]), t([2.0, 0.5])), lambda: D.Chi2(t([1.0, 7.0])),
    lambda: D.Beta(t([0.4, 3.0]), t([0.6, 1.5])), lambda: D.Poisson(t([0.3, 6.5])),
    lambda: D.Binomial(t([4.0, 30.0]), t([0.8, 0.25])), lambda: D.Geometric(t([0.15, 0.7])),
    lambda: D.StudentT(t([9.0, 6.0]), t([1.0, -2.0]), t([0.5, 2.0])),
    lambda: D.Gumbel(t([0.5, -1.0]), t([2.0, 0.3])), lambda: D.HalfNormal(t([0.5, 3.0])),
    lambda: D.LogNormal(t([0.5, -1.0]), t([0.3, 0.5])),
])
def test_means_and_variances_of_draws(make):
    d = make()
    x = d.sample((N,)).numpy()
    assert x.shape == (N, 2) and d.support.check(nb.tensor(x)).all().item()
    mean, variance = d.mean.numpy(), d.variance.numpy()
    close_to(x, mean)
    close_to((x - mean) ** 2, variance)


def test_dirichlet_draws_are_probability_vectors_with_its_moments():
    alpha = np.array([0.5, 1.5, 4.0])
    d = D.Dirichlet(t(alpha))
    x = d.sample((N,)).numpy()
    assert x.shape == (N, 3) and np.allclose(x.sum(-1), 1) and (x > 0).all()
    close_to(x, d.mean.numpy())
    close_to((x - d.mean.numpy()) ** 2, d.variance.numpy())


@pytest.mark.parametrize("make, top", [
    (lambda: D.Poisson(t(2.5)), 9), (lambda: D.Binomial(6, t(0.3)), 6),
    (lambda: D.Geometric(t(0.3)), 9)])
def test_counts_come_as_often_as_their_probabilities(make, top):
    d = make()
    x = d.sample((N,)).numpy()
    assert (x % 1 == 0).all() and x.dtype == np.float64
    for k in range(top + 1):
        p = math.exp(d.log_prob(t(float(k))).item())
        close_to((x == k)[:, None], [p], [math.sqrt(p * (1 - p))])


@pytest.mark.parametrize("make", [
    lambda: D.Cauchy(0.5, 2.0), lambda: D.Gumbel(-1.0, 0.5), lambda: D.HalfNormal(2.0),
    lambda: D.LogNormal(0.3, 0.8)])
def test_draws_fall_below_icdf_p_a_fraction_p_of_the_time(make):
    d = make()
    x = d.sample((N,))
    for p in (0.1, 0.5, 0.8):
        edge = d.icdf(nb.tensor(p))
        below = (x <= edge).double().numpy()
        close_to(below[:, None], [p], [math.sqrt(p * (1 - p))])
        assert abs(d.cdf(edge).item() - p) < 1e-5


@pytest.mark.parametrize("make", [lambda: D.Gamma(t(0.4), t(1.5)), lambda: D.Gamma(t(5.0), 2.0),
                                  lambda: D.Chi2(t(3.0))])
def test_gamma_draws_fall_below_x_as_often_as_its_cdf_says(make):
    d = make()
    x = d.sample((N,))
    for q in (0.2, 0.5, 0.9):
        edge = float(np.quantile(x.numpy(), q))
        p = d.cdf(t(edge)).item()
        close_to((x.numpy() <= edge)[:, None], [p], [math.sqrt(p * (1 - p))])


def test_student_t_with_one_degree_of_freedom_is_cauchy():
    x = D.StudentT(t(1.0)).sample((N,)).numpy()
    close_to((np.abs(x) <= 1)[:, None], [0.5], [0.5])  # P(|x| <= 1) = 1/2 for a Cauchy


@pytest.mark.parametrize("make", [
    lambda: D.Gamma(t(0.7), t(2.0)), lambda: D.Beta(t(0.5), t(2.5)),
    lambda: D.Dirichlet(t([0.5, 1.5, 4.0])), lambda: D.Binomial(9, t(0.35)),
    lambda: D.Geometric(t(0.3)), lambda: D.StudentT(t(3.0), 1.0, t(2.0)),
    lambda: D.Cauchy(t(0.0), t(2.0)), lambda: D.Gumbel(t(1.0), t(0.5)),
    lambda: D.HalfNormal(t(1.5)), lambda: D.LogNormal(t(0.5), t(0.8))])
def test_entropy_is_the_mean_of_minus_log_prob_of_draws(make):
    d = make()
    minus_log_p = -d.log_prob(d.sample((N,))).numpy()
    close_to(minus_log_p, d.entropy().item())


@pytest.mark.parametrize("p, q", [
    (lambda: D.Gamma(t(0.7), t(2.0)), lambda: D.Gamma(t(1.5), t(1.0))),
    (lambda: D.Beta(t(0.5), t(2.5)), lambda: D.Beta(t(2.0), t(2.0))),
    (lambda: D.Dirichlet(t([0.5, 1.5, 4.0])), lambda: D.Dirichlet(t([1.0, 1.0, 2.0]))),
    (lambda: D.Poisson(t(2.5)), lambda: D.Poisson(t(4.0))),
    (lambda: D.Binomial(9, t(0.35)), lambda: D.Binomial(9, t(0.5))),
    (lambda: D.Geometric(t(0.3)), lambda: D.Geometric(t(0.5))),
    (lambda: D.Cauchy(t(0.0), t(2.0)), lambda: D.Cauchy(t(1.0), t(1.0))),
    (lambda: D.Gumbel(t(1.0), t(0.5)), lambda: D.Gumbel(t(0.0), t(1.5))),
    (lambda: D.HalfNormal(t(1.5)), lambda: D.HalfNormal(t(1.0))),
    (lambda: D.LogNormal(t(0.5), t(0.8)), lambda: D.LogNormal(t(0.0), t(1.0)))])
def test_kl_is_the_mean_log_ratio_of_draws(p, q):
    p, q = p(), q()
    x = p.sample((N,))
    close_to((p.log_prob(x) - q.log_prob(x)).numpy(), D.kl_divergence(p, q).item())


def per_draw_grads(make, values, moment=lambda x: x):
    """d moment(x_i) / d theta for each draw x_i, every draw with its own copy of the
    parameters ``values`` (so one backward gives each draw's derivative)."""
    params = [t(np.full(N, v), grad=True) for v in values]
    moment(make(*params).rsample()).sum().backward()
    return [p.grad.numpy()[:, None] for p in params]


@pytest.mark.parametrize("a, b", [(0.3, 2.0), (2.5, 0.5), (12.0, 1.0)])
def test_gamma_rsample_gradients_average_to_the_moments_derivatives(a, b):
    """E[x] = a / b and E[x^2] = a (a + 1) / b^2; rsample's gradients average to their
    derivatives."""
    grad_a, grad_b = per_draw_grads(D.Gamma, (a, b))
    close_to(grad_a, [1 / b])
    close_to(grad_b, [-a / b ** 2])
    grad_a, _ = per_draw_grads(D.Gamma, (a, b), lambda x: x * x)
    close_to(grad_a, [(2 * a + 1) / b ** 2])
    (grad_df,) = per_draw_grads(D.Chi2, (a,))
    close_to(grad_df, [1.0])


@pytest.mark.parametrize("a, b", [(0.3, 0.6), (2.5, 0.5), (4.0, 9.0)])
def test_beta_rsample_gradients_average_to_the_means_derivatives(a, b):
    grad_a, grad_b = per_draw_grads(D.Beta, (a, b))  # E[x] = a / (a + b)
    close_to(grad_a, [b / (a + b) ** 2])
    close_to(grad_b, [-a / (a + b) ** 2])


def test_dirichlet_rsample_gradients_average_to_the_means_derivatives():
    """E[x_i] = alpha_i / total: dE[x_i]/dalpha_j = (delta_ij total - alpha_i) / total^2."""
    alpha = np.array([0.5, 1.5, 4.0])
    total = alpha.sum()
    for i in range(3):
        concentration = t(np.tile(alpha, (N, 1)), grad=True)
        D.Dirichlet(concentration).rsample()[:, i].sum().backward()
        want = (np.eye(3)[i] * total - alpha[i]) / total ** 2
        close_to(concentration.grad.numpy(), want)


def test_student_t_rsample_gradients_average_to_the_variances_derivatives():
    """E[x^2] = scale^2 df / (df - 2) for loc 0: d/d df = -2 scale^2 / (df - 2)^2."""
    df, scale = 9.0, 1.5
    grad_df, _, grad_scale = per_draw_grads(D.StudentT, (df, 0.0, scale), lambda x: x * x)
    close_to(grad_df, [-2 * scale ** 2 / (df - 2) ** 2])
    close_to(grad_scale, [2 * scale * df / (df - 2)])


@pytest.mark.parametrize("make", [
    lambda p: D.Cauchy(p, p), lambda p: D.Gumbel(p, p), lambda p: D.HalfNormal(p),
    lambda p: D.LogNormal(p, p)])
def test_location_scale_rsamples_pass_the_noise_to_their_parameters(make):
    """x = f(noise, loc, scale) in closed form: the gradient equals the finite difference
    of that form at the same noise (drawn again with the same seed)."""
    p = t([0.7, 1.3], grad=True)
    nb.manual_seed(11)
    x = make(p).rsample((3,))
    x.sum().backward()
    h = 1e-6
    nb.manual_seed(11)
    up = make(t([0.7 + h, 1.3 + h])).sample((3,)).numpy()
    nb.manual_seed(11)
    down = make(t([0.7 - h, 1.3 - h])).sample((3,)).numpy()
    np.testing.assert_allclose(p.grad.numpy(), ((up - down) / (2 * h)).sum(0), rtol=1e-6)
