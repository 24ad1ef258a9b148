"""Without PyTorch: the gamma family, the counts and the tails against textbook formulas
written here with numpy and ``math``, in float64; the gamma's cdf against its closed
forms; and the gradient of a gamma draw (implicit reparameterisation) against the
derivative of the inverse cdf by finite differences, and of beta draws against the
closed forms of Beta(a, 1) and Beta(1, b)."""
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook.distributions.implicit import beta_draw_grads, regularized_gamma

D = nb.distributions
EULER = 0.5772156649015329
lgamma = np.vectorize(math.lgamma)


def t(a, grad=False):
    return nb.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def psi(x):
    """digamma at whole and half-whole numbers: psi(1) = -euler, psi(1/2) = -euler - 2 log 2,
    psi(x + 1) = psi(x) + 1/x."""
    start = 1.0 if x % 1 == 0 else 0.5
    value = -EULER if start == 1.0 else -EULER - 2 * math.log(2)
    while start < x:
        value, start = value + 1 / start, start + 1
    return value


def test_gamma_log_prob_entropy_moments_and_a_number_value(rng):
    a, r, x = rng.uniform(0.5, 3, 5), rng.uniform(0.5, 2, 5), rng.uniform(0.1, 4, (3, 5))
    d = D.Gamma(t(a), t(r))
    want = a * np.log(r) + (a - 1) * np.log(x) - r * x - lgamma(a)
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(D.Gamma(t(2.0), 3.0).log_prob(0.5).item(),
                               2 * math.log(3) + math.log(0.5) - 1.5, rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), a / r)
    np.testing.assert_allclose(d.variance.numpy(), a / r ** 2)
    np.testing.assert_allclose(d.mode.numpy(), np.maximum((a - 1) / r, 0))
    whole = D.Gamma(t([1.0, 2.0, 0.5]), t([2.0, 1.0, 3.0])).entropy().numpy()
    np.testing.assert_allclose(whole, [1 - math.log(2), 2 + 0 - psi(2), 0.5 - math.log(3)
                                       + math.lgamma(0.5) + 0.5 * psi(0.5)], rtol=1e-12)


@pytest.mark.parametrize("a, cdf", [
    (1.0, lambda x: 1 - np.exp(-x)),
    (2.0, lambda x: 1 - np.exp(-x) * (1 + x)),
    (3.0, lambda x: 1 - np.exp(-x) * (1 + x + x * x / 2)),
    (0.5, lambda x: np.vectorize(math.erf)(np.sqrt(x))),
])
def test_gamma_cdf_has_its_closed_forms(a, cdf):
    x = np.array([1e-6, 0.01, 0.3, 1.0, 2.5, a + 1, 7.0, 30.0])
    got = D.Gamma(t(a), t(1.0)).cdf(t(x)).numpy()
    np.testing.assert_allclose(got, cdf(x), rtol=1e-13, atol=1e-16)
    assert D.Gamma(t(a), t(2.0)).cdf(t(0.0)).item() == 0.0  # (the rate stretches x)
    np.testing.assert_allclose(D.Gamma(t(a), t(2.0)).cdf(t(x / 2)).numpy(), cdf(x), rtol=1e-13,
                               atol=1e-16)


def test_chi2_is_the_gamma_of_half_its_degrees_of_freedom(rng):
    df, x = rng.uniform(0.5, 6, 7), rng.uniform(0.1, 9, (3, 7))
    chi2, gamma = D.Chi2(t(df)), D.Gamma(t(df / 2), 0.5)
    np.testing.assert_allclose(chi2.log_prob(t(x)).numpy(), gamma.log_prob(t(x)).numpy())
    np.testing.assert_allclose(chi2.df.numpy(), df)
    np.testing.assert_allclose(chi2.mean.numpy(), df)
    np.testing.assert_allclose(chi2.variance.numpy(), 2 * df)
    np.testing.assert_allclose(D.Chi2(t(2.0)).cdf(t(x)).numpy(), 1 - np.exp(-x / 2), rtol=1e-13)


def inverse_cdf(a, u, x):
    """The x with P(a, x) = u, by Newton's method from a nearby x."""
    for _ in range(60):
        cdf, _ = regularized_gamma(a, x)
        density = np.exp((a - 1) * np.log(x) - x - lgamma(a))
        x = np.maximum(x - (cdf - u) / density, x / 4)
    return x


@pytest.mark.parametrize("a", [0.3, 1.0, 2.5, 9.0, 60.0])
def test_a_gamma_draw_moves_as_its_inverse_cdf_at_a_fixed_probability(a, rng):
    """dx/da = d/da F^-1(u; a) at the u of the draw: by central differences."""
    x = np.maximum(rng.gamma(a, size=7), 1e-3 * a)
    u, grad = regularized_gamma(np.full(7, a), x)
    h = 1e-5 * a
    numeric = (inverse_cdf(a + h, u, x) - inverse_cdf(a - h, u, x)) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)


def test_gamma_cdf_has_the_gradients_of_finite_differences(rng):
    a = t(rng.uniform(0.5, 4, 5), grad=True)
    r = t(rng.uniform(0.5, 2, 5), grad=True)
    x = t(rng.uniform(0.2, 6, (3, 5)), grad=True)
    assert nb.gradcheck(lambda a, r, x: D.Gamma(a, r).cdf(x), (a, r, x))
    assert nb.gradcheck(lambda a, r, x: D.Gamma(a, r).log_prob(x) + D.Gamma(a, r).entropy(),
                        (a, r, x))


def test_beta_draws_move_as_the_closed_forms_of_beta_a_1_and_beta_1_b(rng):
    """I_x(a, 1) = x^a: dx/da = -x log(x) / a;  I_x(1, b) = 1 - (1-x)^b:
    dx/db = (1-x) log(1-x) / b."""
    x = rng.uniform(0.001, 0.999, 9)
    grad_a, _ = beta_draw_grads(x, np.full(9, 2.5), np.ones(9))
    np.testing.assert_allclose(grad_a, -x * np.log(x) / 2.5, rtol=1e-12)
    _, grad_b = beta_draw_grads(x, np.ones(9), np.full(9, 0.7))
    np.testing.assert_allclose(grad_b, (1 - x) * np.log1p(-x) / 0.7, rtol=1e-12)


def test_a_two_part_dirichlet_draw_moves_as_its_beta(rng):
    """Dirichlet([a, 1])'s first part is a Beta(a, 1) draw: dx/da = -x log(x) / a."""
    alpha = t([3.0, 1.0], grad=True)
    x = D.Dirichlet(alpha).rsample((7,))
    x[:, 0].sum().backward()
    x0 = x.detach().numpy()[:, 0]
    np.testing.assert_allclose(alpha.grad.numpy()[0], (-x0 * np.log(x0) / 3.0).sum(), rtol=1e-9)


def test_beta_and_dirichlet_log_prob_entropy_and_moments(rng):
    a, b, x = rng.uniform(0.5, 3, 5), rng.uniform(0.5, 3, 5), rng.uniform(0.05, 0.95, (3, 5))
    d = D.Beta(t(a), t(b))
    want = (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - lgamma(a) - lgamma(b) + lgamma(a + b)
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), want, rtol=1e-11)
    np.testing.assert_allclose(d.mean.numpy(), a / (a + b))
    np.testing.assert_allclose(d.variance.numpy(), a * b / ((a + b) ** 2 * (a + b + 1)))
    as_dirichlet = D.Dirichlet(t(np.stack([a, b], -1)))
    np.testing.assert_allclose(as_dirichlet.log_prob(t(np.stack([x, 1 - x], -1))).numpy(), want,
                               rtol=1e-11)
    np.testing.assert_allclose(d.entropy().numpy(), as_dirichlet.entropy().numpy(), rtol=1e-12)
    # Beta(1, 1) is uniform: entropy 0;  Beta(2, 1): 1/2 - log 2
    np.testing.assert_allclose(D.Beta(t([1.0, 2.0]), t([1.0, 1.0])).entropy().numpy(),
                               [0.0, 0.5 - math.log(2)], atol=1e-12)
    np.testing.assert_allclose(D.Beta(t([3.0, 0.5, 2.0]), t([2.0, 0.7, 0.5])).mode.numpy(),
                               [2 / 3, 1.0, 1.0])


def test_dirichlet_moments_and_modes():
    alpha = np.array([[2.0, 3.0, 5.0], [0.5, 0.3, 0.2], [0.5, 2.0, 3.0]])
    d = D.Dirichlet(t(alpha))
    total = alpha.sum(-1, keepdims=True)
    np.testing.assert_allclose(d.mean.numpy(), alpha / total)
    np.testing.assert_allclose(d.variance.numpy(), alpha * (total - alpha)
                               / (total ** 2 * (total + 1)))
    np.testing.assert_allclose(d.mode.numpy(), [[1 / 7, 2 / 7, 4 / 7], [1, 0, 0],
                                                [0, 1 / 3, 2 / 3]])
    assert (d.batch_shape, d.event_shape) == ((3,), (3,))


def test_poisson_binomial_and_geometric_log_probabilities(rng):
    rate, k = rng.uniform(0.5, 4, 5), rng.integers(0, 7, (3, 5)).astype(float)
    want = k * np.log(rate) - rate - lgamma(k + 1)
    np.testing.assert_allclose(D.Poisson(t(rate)).log_prob(t(k)).numpy(), want, rtol=1e-12)
    n, p = np.array([3.0, 5.0, 7.0, 1.0, 0.0]), rng.uniform(0.1, 0.9, 5)
    k = np.floor(rng.random((3, 5)) * (n + 1))
    comb = np.vectorize(math.comb)(n.astype(int), k.astype(int))
    want = np.log(comb) + k * np.log(p) + (n - k) * np.log1p(-p)
    for d in (D.Binomial(t(n), t(p)), D.Binomial(t(n), logits=t(np.log(p / (1 - p))))):
        np.testing.assert_allclose(d.log_prob(t(k)).numpy(), want, rtol=1e-10, atol=1e-12)
    k = rng.integers(0, 9, (3, 5)).astype(float)
    np.testing.assert_allclose(D.Geometric(t(p)).log_prob(t(k)).numpy(),
                               k * np.log1p(-p) + np.log(p), rtol=1e-12)
    assert D.Geometric(t([1.0])).log_prob(t([0.0])).item() == 0.0  # a sure first success
    assert D.Poisson(t([0.0])).log_prob(t([0.0])).item() == 0.0  # no events, surely


def test_entropies_of_counts_are_sums_over_the_counts(rng):
    p = rng.uniform(0.1, 0.9, 5)
    k = np.arange(8.0)[:, None]
    pmf = np.exp(np.log(np.vectorize(math.comb)(7, k.astype(int))) + k * np.log(p)
                 + (7 - k) * np.log1p(-p))
    np.testing.assert_allclose(D.Binomial(7, t(p)).entropy().numpy(), -(pmf * np.log(pmf)).sum(0),
                               rtol=1e-10)
    k = np.arange(4000.0)[:, None]
    log_pmf = k * np.log1p(-p) + np.log(p)
    np.testing.assert_allclose(D.Geometric(t(p)).entropy().numpy(),
                               -(np.exp(log_pmf) * log_pmf).sum(0), rtol=1e-10)


def test_moments_of_counts(rng):
    rate, n, p = rng.uniform(0.5, 4, 5), np.array([3.0, 5.0, 7.0, 9.0, 11.0]), \
        rng.uniform(0.1, 0.9, 5)
    np.testing.assert_allclose(D.Poisson(t(rate)).mode.numpy(), np.floor(rate))
    d = D.Binomial(t(n), t(p))
    np.testing.assert_allclose(d.mean.numpy(), n * p)
    np.testing.assert_allclose(d.variance.numpy(), n * p * (1 - p))
    np.testing.assert_allclose(d.mode.numpy(), np.minimum(np.floor((n + 1) * p), n))
    g = D.Geometric(t(p))
    np.testing.assert_allclose(g.mean.numpy(), (1 - p) / p)
    np.testing.assert_allclose(g.variance.numpy(), (1 - p) / p ** 2)
    assert D.Binomial(11, t(p)).enumerate_support(expand=False).shape == (12, 1)
    assert D.Binomial(4, t(p)).enumerate_support().numpy().tolist()[2] == [2.0] * 5


def test_tails_log_prob_cdf_icdf_and_entropy(rng):
    loc, scale, x = rng.standard_normal(5), rng.uniform(0.5, 2, 5), rng.standard_normal((3, 5))
    z = (x - loc) / scale
    c = D.Cauchy(t(loc), t(scale))
    np.testing.assert_allclose(c.log_prob(t(x)).numpy(), -np.log(np.pi * scale * (1 + z * z)))
    np.testing.assert_allclose(c.cdf(t(x)).numpy(), 0.5 + np.arctan(z) / np.pi, rtol=1e-12)
    np.testing.assert_allclose(c.icdf(c.cdf(t(x))).numpy(), x, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(c.entropy().numpy(), np.log(4 * np.pi * scale))
    g = D.Gumbel(t(loc), t(scale))
    np.testing.assert_allclose(g.log_prob(t(x)).numpy(), -z - np.exp(-z) - np.log(scale),
                               rtol=1e-12)
    np.testing.assert_allclose(g.cdf(t(x)).numpy(), np.exp(-np.exp(-z)), rtol=1e-12)
    np.testing.assert_allclose(g.icdf(g.cdf(t(x))).numpy(), x, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(g.entropy().numpy(), np.log(scale) + 1 + EULER)
    np.testing.assert_allclose(g.mean.numpy(), loc + EULER * scale)
    y = np.abs(x)
    h = D.HalfNormal(t(scale))
    np.testing.assert_allclose(h.log_prob(t(y)).numpy(), np.log(2 / (scale * np.sqrt(2 * np.pi)))
                               - y * y / (2 * scale ** 2), rtol=1e-12)
    np.testing.assert_allclose(h.cdf(t(y)).numpy(), np.vectorize(math.erf)(y / (scale * 2 ** .5)),
                               rtol=1e-12)
    np.testing.assert_allclose(h.icdf(h.cdf(t(y))).numpy(), y, rtol=1e-9)
    np.testing.assert_allclose(h.entropy().numpy(), 0.5 * np.log(np.pi * scale ** 2 / 2) + 0.5)


def test_student_t_and_log_normal(rng):
    df, loc, scale, x = rng.uniform(0.5, 9, 5), rng.standard_normal(5), rng.uniform(0.5, 2, 5), \
        rng.standard_normal((3, 5))
    z = (x - loc) / scale
    want = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * np.log(df * np.pi) - np.log(scale) \
        - (df + 1) / 2 * np.log1p(z * z / df)
    np.testing.assert_allclose(D.StudentT(t(df), t(loc), t(scale)).log_prob(t(x)).numpy(), want,
                               rtol=1e-11)
    np.testing.assert_allclose(D.StudentT(t(1.0)).log_prob(t(x)).numpy(),  # df 1 is Cauchy
                               D.Cauchy(t(0.0), t(1.0)).log_prob(t(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(D.StudentT(t(1.0)).entropy().item(), math.log(4 * math.pi))
    v = D.StudentT(t([0.7, 1.5, 3.0]), 0.0, t([1.0, 1.0, 2.0])).variance.numpy()
    assert np.isnan(v[0]) and v[1] == math.inf and v[2] == pytest.approx(12.0)
    y = np.exp(x)
    d = D.LogNormal(t(loc), t(scale))
    np.testing.assert_allclose(d.log_prob(t(y)).numpy(), -np.log(y * scale * np.sqrt(2 * np.pi))
                               - z * z / 2, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(d.cdf(t(y)).numpy(), 0.5 * (1 + np.vectorize(math.erf)(
        z / 2 ** .5)), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), np.exp(loc + scale ** 2 / 2))
    np.testing.assert_allclose(d.mode.numpy(), np.exp(loc - scale ** 2))
    np.testing.assert_allclose(d.icdf(d.cdf(t(y))).numpy(), y, rtol=1e-9)
    assert D.LogNormal(0.0, 1.0).cdf(t(0.0)).item() == 0.0


def test_kl_divergences_by_their_formulas():
    kl = D.kl_divergence
    # Gamma(a, 1) to Gamma(1, 1): (a - 1) psi(a) - log Gamma(a) + a - 1  (a = 2: psi(2) - 1 + 1)
    assert kl(D.Gamma(t(2.0), 1.0), D.Gamma(t(1.0), 1.0)).item() == pytest.approx(psi(2), rel=1e-12)
    # Poisson: r log(r / s) - r + s
    assert kl(D.Poisson(t(2.0)), D.Poisson(t(3.0))).item() == pytest.approx(
        2 * math.log(2 / 3) + 1, rel=1e-12)
    # Binomial: n KL of one toss;  Geometric: sum over k
    n, p, q = 6, 0.3, 0.6
    one = p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))
    assert kl(D.Binomial(n, t(p)), D.Binomial(n, t(q))).item() == pytest.approx(n * one, rel=1e-9)
    assert kl(D.Binomial(7, t(p)), D.Binomial(n, t(q))).item() == math.inf
    k = np.arange(3000.0)
    log_p, log_q = k * math.log1p(-p) + math.log(p), k * math.log1p(-q) + math.log(q)
    assert kl(D.Geometric(t(p)), D.Geometric(t(q))).item() == pytest.approx(
        (np.exp(log_p) * (log_p - log_q)).sum(), rel=1e-9)
    # Beta(1, 1) (uniform) to Beta(2, 1) (density 2x): E[-log 2x] = 1 - log 2
    assert kl(D.Beta(t(1.0), 1.0), D.Beta(t(2.0), 1.0)).item() == pytest.approx(1 - math.log(2))
    assert kl(D.Dirichlet(t([1.0, 1.0])), D.Dirichlet(t([2.0, 1.0]))).item() == pytest.approx(
        1 - math.log(2))
    # Cauchy(0, 1) to Cauchy(0, 2): log(9 / 8);  scales alone matter for HalfNormal
    assert kl(D.Cauchy(0.0, t(1.0)), D.Cauchy(0.0, t(2.0))).item() == pytest.approx(
        math.log(9 / 8))
    assert kl(D.HalfNormal(t(1.0)), D.HalfNormal(t(2.0))).item() == pytest.approx(
        math.log(2) + 1 / 8 - 0.5)
    assert kl(D.LogNormal(t(1.0), 1.0), D.LogNormal(t(0.0), 1.0)).item() == pytest.approx(0.5)
    assert kl(D.Gumbel(t(0.0), 1.0), D.Gumbel(t(0.0), 1.0)).item() == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize("make", [
    lambda: D.Gamma(t([0.5, 2.0, 7.0]), t([1.5, 0.5, 2.0])), lambda: D.Chi2(t([1.0, 3.0])),
    lambda: D.Beta(t([0.5, 2.0]), t([3.0, 0.7])), lambda: D.Dirichlet(t([[0.5, 2.0, 1.0]])),
    lambda: D.Poisson(t([0.5, 4.0])), lambda: D.Binomial(5, t([0.2, 0.7])),
    lambda: D.Geometric(t([0.2, 0.7])), lambda: D.Cauchy(t([0.0, 1.0]), t([1.0, 3.0])),
    lambda: D.Gumbel(t([0.0, 1.0]), t([1.0, 3.0])), lambda: D.HalfNormal(t([1.0, 3.0])),
    lambda: D.LogNormal(t([0.0, 1.0]), t([1.0, 0.3])),
])
def test_a_distribution_has_no_kl_to_itself(make):
    d = make()
    np.testing.assert_allclose(D.kl_divergence(d, d).numpy(), 0, atol=1e-12)
