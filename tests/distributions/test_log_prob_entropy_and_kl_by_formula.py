"""Without PyTorch: log_prob, entropy, moments, cdf and KL against the textbook formulas
written here in numpy, in float64, and the gradients of the matrix ops a multivariate
normal uses checked by finite differences (test_distributions_match_torch.py compares
everything with PyTorch too)."""
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook.distributions.multivariate_normal import Cholesky, solve_triangular
from nnbook.tensor import apply

D = nb.distributions


def t(a, grad=False):
    return nb.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_normal_log_prob_entropy_cdf_and_icdf(rng):
    loc, scale, x = rng.standard_normal(4), rng.uniform(0.5, 2, 4), rng.standard_normal((3, 4))
    d = D.Normal(t(loc), t(scale))
    want = -(x - loc) ** 2 / (2 * scale ** 2) - np.log(scale * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), np.log(scale * math.sqrt(2 * math.pi * math.e)))
    cdf = np.array([[0.5 * (1 + math.erf(v)) for v in row]
                    for row in (x - loc) / (scale * math.sqrt(2))])
    np.testing.assert_allclose(d.cdf(t(x)).numpy(), cdf, rtol=1e-12)
    np.testing.assert_allclose(d.icdf(d.cdf(t(x))).numpy(), x, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(d.variance.numpy(), scale ** 2)


def test_bernoulli_from_probs_and_from_logits_agree(rng):
    p, x = rng.uniform(0.05, 0.95, 5), (rng.random((2, 5)) < 0.5).astype(float)
    by_probs, by_logits = D.Bernoulli(t(p)), D.Bernoulli(logits=t(np.log(p / (1 - p))))
    want = x * np.log(p) + (1 - x) * np.log(1 - p)
    for d in (by_probs, by_logits):
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), want, rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy(),
                                   -(p * np.log(p) + (1 - p) * np.log(1 - p)), rtol=1e-10)
        np.testing.assert_allclose(d.probs.numpy(), p, rtol=1e-12)
    assert np.isnan(D.Bernoulli(t([0.5])).mode.numpy()).all()
    assert D.Bernoulli(t([0.7, 0.2])).mode.tolist() == [1.0, 0.0]


def test_bernoulli_gradients_at_even_odds_are_those_of_its_formula():
    """d/dl log p(x) = x - sigmoid(l), d/dl H = -p (1 - p) l: at l = 0, x - 1/2 and 0."""
    logits = t([0.0, 0.0, 0.0], grad=True)
    D.Bernoulli(logits=logits).log_prob(t([1.0, 0.0, 1.0])).sum().backward()
    assert logits.grad.tolist() == [0.5, -0.5, 0.5]
    logits.grad = None
    D.Bernoulli(logits=logits).entropy().sum().backward()
    assert logits.grad.tolist() == [0.0, 0.0, 0.0]


def test_categorical_log_prob_gathers_the_normalised_log_probabilities(rng):
    probs = rng.uniform(0.1, 2.0, (3, 5))
    k = rng.integers(0, 5, (4, 3))
    d = D.Categorical(probs=t(probs))
    p = probs / probs.sum(-1, keepdims=True)
    want = np.log(p[np.arange(3), k])
    np.testing.assert_allclose(d.log_prob(nb.tensor(k)).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(p)).sum(-1), rtol=1e-10)
    d2 = D.Categorical(logits=t(np.log(probs) + 3.0))  # a shift of the logits changes nothing
    np.testing.assert_allclose(d2.log_prob(nb.tensor(k)).numpy(), want, rtol=1e-10)
    assert d.enumerate_support().shape == (5, 3)
    assert d.mode.tolist() == p.argmax(-1).tolist()


def test_one_hot_categorical_scores_rows_like_the_categorical_scores_classes(rng):
    logits = rng.standard_normal((2, 4))
    k = rng.integers(0, 4, 2)
    one_hot = D.OneHotCategorical(logits=t(logits))
    assert one_hot.event_shape == (4,) and one_hot.batch_shape == (2,)
    np.testing.assert_allclose(one_hot.log_prob(t(np.eye(4)[k])).numpy(),
                               D.Categorical(logits=t(logits)).log_prob(nb.tensor(k)).numpy())


def test_uniform_exponential_and_laplace_log_prob_and_cdf(rng):
    x = rng.uniform(0.1, 0.9, 6)
    np.testing.assert_allclose(D.Uniform(0.0, 2.0).log_prob(t(x)).numpy(), np.log(0.5))
    np.testing.assert_allclose(D.Uniform(0.0, 2.0).cdf(t(x)).numpy(), x / 2)
    np.testing.assert_allclose(D.Exponential(t(1.5)).log_prob(t(x)).numpy(),
                               math.log(1.5) - 1.5 * x, rtol=1e-12)
    np.testing.assert_allclose(D.Exponential(t(1.5)).cdf(t(x)).numpy(), 1 - np.exp(-1.5 * x))
    np.testing.assert_allclose(D.Laplace(t(0.5), 2.0).log_prob(t(x)).numpy(),
                               -np.log(4.0) - np.abs(x - 0.5) / 2, rtol=1e-12)
    np.testing.assert_allclose(D.Laplace(t(0.5), 2.0).cdf(t(x)).numpy(),
                               np.where(x < 0.5, 0.5 * np.exp((x - 0.5) / 2),
                                        1 - 0.5 * np.exp(-(x - 0.5) / 2)), rtol=1e-12)
    np.testing.assert_allclose(D.Laplace(t(0.5), 2.0).entropy().item(), 1 + math.log(4.0))


def spd(rng, d):
    a = rng.standard_normal((d, d))
    return a @ a.T / d + np.eye(d)


@pytest.mark.parametrize("given", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_log_prob_and_entropy(rng, given):
    cov, loc, x = spd(rng, 3), rng.standard_normal(3), rng.standard_normal((5, 3))
    matrix = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
              "scale_tril": np.linalg.cholesky(cov)}[given]
    d = D.MultivariateNormal(t(loc), **{given: t(matrix)})
    diff = x - loc
    _, logdet = np.linalg.slogdet(cov)
    want = -0.5 * (np.einsum("ni,ij,nj->n", diff, np.linalg.inv(cov), diff)
                   + logdet + 3 * math.log(2 * math.pi))
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), 0.5 * (3 * (1 + math.log(2 * math.pi))
                                                          + logdet), rtol=1e-12)
    np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), np.diag(cov), rtol=1e-10)


def test_independent_sums_the_reinterpreted_dims(rng):
    loc, scale, x = rng.standard_normal((2, 3)), rng.uniform(0.5, 2, (2, 3)), \
        rng.standard_normal((4, 2, 3))
    base = D.Normal(t(loc), t(scale))
    d = D.Independent(base, 1)
    assert (d.batch_shape, d.event_shape) == ((2,), (3,))
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), base.log_prob(t(x)).numpy().sum(-1))
    np.testing.assert_allclose(d.entropy().numpy(), base.entropy().numpy().sum(-1))
    both = D.Independent(base, 2)
    assert (both.batch_shape, both.event_shape) == ((), (2, 3))
    assert both.log_prob(t(x)).shape == (4,)


def test_kl_divergences_by_their_formulas(rng):
    m1, s1, m2, s2 = rng.standard_normal(3), rng.uniform(0.5, 2, 3), rng.standard_normal(3), \
        rng.uniform(0.5, 2, 3)
    kl = D.kl_divergence(D.Normal(t(m1), t(s1)), D.Normal(t(m2), t(s2))).numpy()
    np.testing.assert_allclose(kl, np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2)
                               - 0.5, rtol=1e-10)
    p, q = rng.uniform(0.1, 0.9, 4), rng.uniform(0.1, 0.9, 4)
    np.testing.assert_allclose(D.kl_divergence(D.Bernoulli(t(p)), D.Bernoulli(t(q))).numpy(),
                               p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q)),
                               rtol=1e-9)
    p, q = rng.dirichlet(np.ones(4), 2), rng.dirichlet(np.ones(4), 2)
    np.testing.assert_allclose(
        D.kl_divergence(D.Categorical(probs=t(p)), D.Categorical(probs=t(q))).numpy(),
        (p * np.log(p / q)).sum(-1), rtol=1e-9)
    inside = D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(-1.0, 3.0)).item()
    assert inside == pytest.approx(math.log(4.0))
    assert D.kl_divergence(D.Uniform(-1.0, 3.0), D.Uniform(0.0, 1.0)).item() == math.inf
    c1, c2 = spd(rng, 3), spd(rng, 3)
    mu1, mu2 = rng.standard_normal(3), rng.standard_normal(3)
    inv2 = np.linalg.inv(c2)
    want = 0.5 * (np.trace(inv2 @ c1) + (mu2 - mu1) @ inv2 @ (mu2 - mu1) - 3
                  + np.linalg.slogdet(c2)[1] - np.linalg.slogdet(c1)[1])
    got = D.kl_divergence(D.MultivariateNormal(t(mu1), t(c1)), D.MultivariateNormal(t(mu2), t(c2)))
    assert got.item() == pytest.approx(want, rel=1e-9)


def test_a_distribution_has_no_kl_to_itself(rng):
    d = D.Independent(D.Normal(t(rng.standard_normal((2, 3))), t(rng.uniform(1, 2, (2, 3)))), 1)
    np.testing.assert_allclose(D.kl_divergence(d, d).numpy(), np.zeros(2), atol=1e-12)


def test_a_rule_registered_for_a_pair_is_used_also_for_subclasses():
    class Wide(D.Normal):
        pass

    calls = []

    @D.register_kl(Wide, D.Laplace)
    def _kl_wide_laplace(p, q):
        calls.append((type(p), type(q)))
        return p.loc * 0

    try:
        assert D.kl_divergence(Wide(0.0, 1.0), D.Laplace(0.0, 1.0)).item() == 0.0
        assert calls == [(Wide, D.Laplace)]
        # the Normal-Normal rule covers a subclass too
        assert D.kl_divergence(Wide(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0
    finally:
        del D.kl._RULES[Wide, D.Laplace]


def test_cholesky_and_triangular_solve_have_the_right_gradients(rng):
    a = rng.standard_normal((2, 3, 3))
    spd_batch = t(a @ np.swapaxes(a, -1, -2) + np.eye(3), grad=True)
    assert nb.gradcheck(lambda m: apply(Cholesky(), (m + m.mT) / 2), (spd_batch,))
    L = t(np.tril(rng.standard_normal((2, 3, 3))) + 3 * np.eye(3), grad=True)
    b = t(rng.standard_normal((2, 3, 2)), grad=True)
    assert nb.gradcheck(lambda L, b: solve_triangular(L.tril(), b), (L, b))
    assert nb.gradcheck(lambda L, b: solve_triangular(L, b, True), (L, b))


def test_log_prob_gradients_by_finite_differences(rng):
    loc = t(rng.standard_normal(3), grad=True)
    L = t(np.linalg.cholesky(spd(rng, 3)), grad=True)
    x = t(rng.standard_normal((2, 3)), grad=True)
    assert nb.gradcheck(lambda loc, L, x: D.MultivariateNormal(
        loc, scale_tril=L.tril()).log_prob(x), (loc, L, x))
    S = t(spd(rng, 3), grad=True)
    assert nb.gradcheck(lambda loc, S, x: D.MultivariateNormal(
        loc, covariance_matrix=(S + S.mT) / 2).log_prob(x), (loc, S, x))
    scale = t(rng.uniform(0.5, 2, 3), grad=True)
    assert nb.gradcheck(lambda loc, scale, x: D.Laplace(loc, scale).log_prob(x)
                        + D.Normal(loc, scale).cdf(x), (loc, scale, x))


def test_expand_repeats_the_batch_without_copying_parameters():
    d = D.Normal(nb.tensor([0.0, 1.0]), 2.0).expand((3, 2))
    assert d.batch_shape == (3, 2) and d.loc.shape == (3, 2)
    np.testing.assert_allclose(d.log_prob(nb.tensor([0.0, 1.0])).numpy(),
                               np.full((3, 2), -math.log(2.0 * math.sqrt(2 * math.pi))),
                               rtol=1e-6)
    m = D.MultivariateNormal(nb.zeros(2), scale_tril=nb.eye(2)).expand((4,))
    assert (m.batch_shape, m.event_shape, m.sample().shape) == ((4,), (2,), (4, 2))
