"""The gamma family (Gamma, Chi2, Beta, Dirichlet), the counts (Poisson, Binomial,
Geometric) and the tails (Cauchy, StudentT, Gumbel, HalfNormal, LogNormal) against
PyTorch in float64: log_prob, entropy, moments, cdf / icdf and KL, with the gradients of
every parameter and value (compared by test_distributions_match_torch.py's
``compare_with_pytorch``); then the gradients of gamma and Dirichlet draws, given the same
draws, which PyTorch approximates within about 1e-4 and nnbook computes exactly."""
import numpy as np
import pytest
from test_distributions_match_torch import (
    compare_with_pytorch,
    fixed,
    normal,
    positive,
    probabilities,
)

import nnbook as nb
from nnbook.distributions.implicit import dirichlet_backward, regularized_gamma

torch = pytest.importorskip("torch")


def counts(high, *shape):
    return lambda rng: rng.integers(0, high, shape).astype(np.float64)


def simplex(*shape):
    return lambda rng: rng.dirichlet(np.ones(shape[-1]), shape[:-1])


def moments(d):  # (these families all have a mode, which the first file's do not)
    return (d.mean, d.mode, d.variance, d.stddev)


CASES = {
    "gamma": ([positive(3, 5), positive(5), positive(2, 3, 5)], lambda D, c, r, x: (
        D.Gamma(c, r).log_prob(x), D.Gamma(c, r).entropy(), *moments(D.Gamma(c, r)),
        D.Gamma(c.detach(), r).cdf(x))),  # (PyTorch has no gradient of cdf for c)
    "gamma_takes_a_number": ([positive(7)], lambda D, c: (D.Gamma(c, 2.0).log_prob(0.5),)),
    "chi2": ([fixed([0.7, 1.0, 3.0, 4.5, 9.0]), positive(3, 5)], lambda D, df, x: (
        D.Chi2(df).log_prob(x), D.Chi2(df).entropy(), D.Chi2(df).df, *moments(D.Chi2(df)),
        D.Chi2(df.detach()).cdf(x))),
    "beta": ([positive(3, 5), positive(5), probabilities(2, 3, 5)], lambda D, a, b, x: (
        D.Beta(a, b).log_prob(x), D.Beta(a, b).entropy(), *moments(D.Beta(a, b)),
        D.Beta(a, b).concentration1, D.Beta(a, b).concentration0)),
    "beta_modes_at_the_ends": ([fixed([0.5, 2.0, 0.7]), fixed([0.7, 0.5, 3.0])],
                               lambda D, a, b: (D.Beta(a, b).mode,)),
    "dirichlet": ([positive(3, 5), simplex(2, 3, 5)], lambda D, c, x: (
        D.Dirichlet(c).log_prob(x), D.Dirichlet(c).entropy(), *moments(D.Dirichlet(c)))),
    "dirichlet_corner_modes": ([fixed([[0.5, 0.3, 0.2], [2.0, 0.5, 3.0], [0.9, 1.5, 0.4]])],
                               lambda D, c: (D.Dirichlet(c).mode,)),
    "poisson": ([positive(3, 5), counts(6, 2, 3, 5)], lambda D, r, k: (
        D.Poisson(r).log_prob(k), *moments(D.Poisson(r)))),
    "poisson_rate_zero": ([fixed([0.0, 1.5, 0.0]), fixed([0.0, 2.0, 0.0])],
                          lambda D, r, k: (D.Poisson(r).log_prob(k),)),
    "binomial_probs": ([fixed([3.0, 5.0, 7.0, 1.0, 0.0]), probabilities(3, 5), counts(2, 3, 5)],
                       lambda D, n, p, k: (
                           D.Binomial(n, p).log_prob(k * n), D.Binomial(n, probs=p).logits,
                           *moments(D.Binomial(n, p)))),
    "binomial_logits": ([normal(3, 5), counts(8, 2, 3, 5)], lambda D, lg, k: (
        D.Binomial(7, logits=lg).log_prob(k), D.Binomial(7, logits=lg).entropy(),
        D.Binomial(7, logits=lg).probs, D.Binomial(7, logits=lg).enumerate_support(),
        D.Binomial(7, logits=lg).enumerate_support(expand=False),
        *moments(D.Binomial(7, logits=lg)))),
    "geometric": ([probabilities(3, 5), counts(9, 2, 3, 5)], lambda D, p, k: (
        D.Geometric(p).log_prob(k), D.Geometric(p).entropy(), D.Geometric(p).logits,
        *moments(D.Geometric(p)))),
    "geometric_logits": ([normal(7), counts(9, 3, 7)], lambda D, lg, k: (
        D.Geometric(logits=lg).log_prob(k), D.Geometric(logits=lg).entropy(),
        D.Geometric(logits=lg).probs)),
    "geometric_certain": ([fixed([1.0, 0.5, 1.0]), fixed([0.0, 2.0, 0.0])],
                          lambda D, p, k: (D.Geometric(p).log_prob(k),)),
    "cauchy": ([normal(5), positive(5), normal(3, 5), probabilities(3, 5)],
               lambda D, m, s, x, u: (
                   D.Cauchy(m, s).log_prob(x), D.Cauchy(m, s).entropy(), D.Cauchy(m, s).cdf(x),
                   D.Cauchy(m, s).icdf(u), *moments(D.Cauchy(m, s)))),
    "student_t": ([fixed([0.7, 1.5, 2.5, 4.0, 9.0]), normal(3, 5), positive(5), normal(2, 3, 5)],
                  lambda D, df, m, s, x: (
                      D.StudentT(df, m, s).log_prob(x), D.StudentT(df, m, s).entropy(),
                      *moments(D.StudentT(df, m, s)), D.StudentT(df).log_prob(x))),
    "gumbel": ([normal(5), positive(5), normal(3, 5), probabilities(3, 5)],
               lambda D, m, s, x, u: (
                   D.Gumbel(m, s).log_prob(x), D.Gumbel(m, s).entropy(),
                   D.Gumbel(m, s).cdf(m + s * x),  # (PyTorch refuses a cdf below 1e-308)
                   D.Gumbel(m, s).icdf(u), *moments(D.Gumbel(m, s)))),
    "half_normal": ([positive(5), positive(3, 5), probabilities(3, 5)], lambda D, s, x, u: (
        D.HalfNormal(s).log_prob(x), D.HalfNormal(s).entropy(), D.HalfNormal(s).cdf(x),
        D.HalfNormal(s).icdf(u), *moments(D.HalfNormal(s)))),
    "half_normal_below_zero": ([positive(3), fixed([-1.0, 0.5, 0.0])], lambda D, s, x: (
        D.HalfNormal(s, validate_args=False).log_prob(x),)),
    "log_normal": ([normal(5), positive(5), positive(3, 5), probabilities(3, 5)],
                   lambda D, m, s, x, u: (
                       D.LogNormal(m, s).log_prob(x), D.LogNormal(m, s).entropy(),
                       D.LogNormal(m, s).cdf(x), D.LogNormal(m, s).icdf(u),
                       *moments(D.LogNormal(m, s)), D.LogNormal(m, s).cdf(x * 0))),
    "expanded": ([positive(5), positive(5), simplex(2, 5), probabilities(7, 5)],
                 lambda D, a, b, x, u: (
                     D.Gamma(a, b).expand((3, 5)).log_prob(a), D.Beta(a, b).expand((7, 5))
                     .log_prob(u), D.Dirichlet(a).expand((2,)).log_prob(x),
                     D.Binomial(4.0, u[0]).expand((3, 5)).log_prob((x[0] * 4).round()),
                     D.StudentT(a + 2, b).expand((7, 5)).variance,
                     D.Chi2(a).expand((3, 5)).log_prob(b))),
    "kl_gamma_family": ([positive(3, 5), positive(5), positive(5), positive(3, 5)],
                        lambda D, a1, r1, a2, r2: (
                            D.kl_divergence(D.Gamma(a1, r1), D.Gamma(a2, r2)),
                            D.kl_divergence(D.Chi2(a1), D.Gamma(a2, r2)),
                            D.kl_divergence(D.Chi2(a1), D.Chi2(a2)),
                            D.kl_divergence(D.Beta(a1, r1), D.Beta(a2, r2)),
                            D.kl_divergence(D.Dirichlet(a1), D.Dirichlet(r2)))),
    "kl_counts": ([positive(3, 5), positive(5), probabilities(3, 5), normal(5)],
                  lambda D, r1, r2, p, lg: (
                      D.kl_divergence(D.Poisson(r1), D.Poisson(r2)),
                      D.kl_divergence(D.Binomial(6, p), D.Binomial(6, logits=lg)),
                      D.kl_divergence(D.Binomial(7, logits=lg), D.Binomial(6, p)),
                      D.kl_divergence(D.Geometric(p), D.Geometric(logits=lg)))),
    "kl_tails": ([normal(3, 5), positive(3, 5), normal(5), positive(5)],
                 lambda D, m1, s1, m2, s2: (
                     D.kl_divergence(D.Cauchy(m1, s1), D.Cauchy(m2, s2)),
                     D.kl_divergence(D.Gumbel(m1, s1), D.Gumbel(m2, s2)),
                     D.kl_divergence(D.HalfNormal(s1), D.HalfNormal(s2)),
                     D.kl_divergence(D.LogNormal(m1, s1), D.LogNormal(m2, s2)))),
}


# Gradients through digamma meet PyTorch's trigamma, which is within about 5e-10 of the
# true value on the CPU (nnbook's within 2e-16); where terms cancel, a gradient moves by
# up to about 1e-9.
THROUGH_DIGAMMA = {"gamma", "chi2", "beta", "dirichlet", "student_t", "kl_gamma_family"}


@pytest.mark.parametrize("name", CASES)
def test_like_pytorch(name, rng):
    compare_with_pytorch(CASES[name], rng, grad_atol=1e-8 if name in THROUGH_DIGAMMA else 1e-10)


@pytest.mark.parametrize("a", [0.05, 0.4, 1.0, 2.5, 7.0, 30.0, 400.0])
def test_gamma_cdf_is_pytorchs_gammainc(a, rng):
    x = np.concatenate([rng.gamma(a, size=7), [a / 40, 3 * a + 20, a + 1]])
    cdf, _ = regularized_gamma(np.full(x.shape, a), x)
    want = torch.special.gammainc(torch.tensor(np.full(x.shape, a)), torch.tensor(x)).numpy()
    np.testing.assert_allclose(cdf, want, rtol=1e-10 * max(a, 1.0), atol=1e-300)


@pytest.mark.parametrize("a", [0.05, 0.4, 1.0, 2.5, 7.0, 30.0, 400.0])
def test_gamma_draws_move_as_pytorchs_approximation_says(a, rng):
    """PyTorch approximates dx/dalpha (series, saddle point and rational fits: within
    about 1e-4); nnbook's is exact to ~1e-12 (the formula tests check that)."""
    x = np.maximum(rng.gamma(a, size=25), 1e-300)
    _, grad = regularized_gamma(np.full(x.shape, a), x)
    want = torch._standard_gamma_grad(torch.tensor(np.full(x.shape, a)), torch.tensor(x))
    np.testing.assert_allclose(grad, want.numpy(), rtol=1e-3)


@pytest.mark.parametrize("alpha", [[0.3, 0.5], [2.0, 3.0], [0.5, 1.5, 4.0], [8.0, 9.0, 7.0, 3.0],
                                   [1.0, 1.0, 1.0, 1.0, 1.0]])
def test_dirichlet_draws_move_as_pytorchs(alpha, rng):
    alpha = np.asarray(alpha)
    x = np.clip(rng.dirichlet(alpha, 7), 1e-300, 1 - 1e-16)
    x = x / x.sum(-1, keepdims=True)
    grad_out = rng.standard_normal(x.shape)
    got = dirichlet_backward(x, np.broadcast_to(alpha, x.shape), grad_out)
    want = torch.distributions.dirichlet._Dirichlet_backward(
        torch.tensor(x), torch.tensor(np.broadcast_to(alpha, x.shape).copy()),
        torch.tensor(grad_out)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-9 * np.abs(want).max())


def test_rsample_gradients_reach_the_same_parameters_as_pytorchs():
    for make in [lambda D, m, p: D.Gamma(p, 2.0), lambda D, m, p: D.Chi2(p),
                 lambda D, m, p: D.Beta(p, p + 1), lambda D, m, p: D.Dirichlet(p),
                 lambda D, m, p: D.StudentT(p, 0.5, p), lambda D, m, p: D.Cauchy(p, p),
                 lambda D, m, p: D.Gumbel(p, p), lambda D, m, p: D.HalfNormal(p),
                 lambda D, m, p: D.LogNormal(p, p)]:
        grads = []
        for m in (nb, torch):
            p = m.tensor([0.7, 1.5, 3.0], dtype=m.float64, requires_grad=True)
            make(m.distributions, m, p).rsample((5,)).pow(2).sum().backward()
            grads.append(p.grad.numpy())
        assert np.all(np.isfinite(grads[0])) and np.all((grads[0] != 0) == (grads[1] != 0))


@pytest.mark.parametrize("make", [
    lambda D, m: D.Gamma(m.ones(3), 2.0), lambda D, m: D.Chi2(m.ones(2, 1) * 3),
    lambda D, m: D.Beta(m.ones(3), 0.5), lambda D, m: D.Beta(2.0, 3.0),
    lambda D, m: D.Dirichlet(m.ones(2, 5)), lambda D, m: D.Poisson(m.ones(3) * 2),
    lambda D, m: D.Binomial(5, m.ones(3) * 0.3), lambda D, m: D.Binomial(m.ones(2, 1) * 4,
                                                                         logits=m.zeros(3)),
    lambda D, m: D.Geometric(m.ones(3) * 0.4), lambda D, m: D.Cauchy(m.zeros(3), 1.0),
    lambda D, m: D.StudentT(m.ones(3) * 4), lambda D, m: D.Gumbel(0.0, m.ones(2, 3)),
    lambda D, m: D.HalfNormal(m.ones(3)), lambda D, m: D.LogNormal(m.zeros(3), 0.5),
    lambda D, m: D.Poisson(3.0),
])
def test_shapes_dtypes_and_flags_like_pytorch(make):
    mine, theirs = make(nb.distributions, nb), make(torch.distributions, torch)
    assert mine.batch_shape == tuple(theirs.batch_shape)
    assert mine.event_shape == tuple(theirs.event_shape)
    assert mine.has_rsample == theirs.has_rsample
    assert mine.has_enumerate_support == theirs.has_enumerate_support
    for sample_shape in [(), (5,), (2, 1)]:
        a, b = mine.sample(sample_shape), theirs.sample(sample_shape)
        assert a.shape == tuple(b.shape) and str(a.dtype) == str(b.dtype).split(".")[1]
        assert not a.requires_grad and mine.support.check(a).all().item()
        assert mine.log_prob(a).shape == tuple(theirs.log_prob(b).shape)
    assert mine.support.is_discrete == theirs.support.is_discrete
    assert mine.support.event_dim == theirs.support.event_dim
    assert repr(mine.support).split("(")[0] == repr(theirs.support).split("(")[0]


@pytest.mark.parametrize("build", [
    lambda D, m: D.Gamma(-1.0, 1.0), lambda D, m: D.Gamma(m.ones(3), m.tensor([1.0, 0.0, 2.0])),
    lambda D, m: D.Chi2(0.0), lambda D, m: D.Beta(m.tensor([0.0, 1.0]), 1.0),
    lambda D, m: D.Dirichlet(m.tensor([1.0, -1.0, 2.0])), lambda D, m: D.Poisson(-1.0),
    lambda D, m: D.Binomial(3.5, m.tensor(0.2)), lambda D, m: D.Binomial(10, m.tensor(1.5)),
    lambda D, m: D.Binomial(10), lambda D, m: D.Geometric(m.tensor([0.0, 0.5])),
    lambda D, m: D.Geometric(probs=0.5, logits=0.0), lambda D, m: D.StudentT(-1.0),
    lambda D, m: D.Cauchy(0.0, -1.0), lambda D, m: D.Gumbel(0.0, 0.0),
    lambda D, m: D.HalfNormal(-1.0), lambda D, m: D.LogNormal(0.0, -1.0),
    lambda D, m: D.Gamma(1.0, 1.0).log_prob(m.tensor(-1.0)),
    lambda D, m: D.Beta(2.0, 2.0).log_prob(m.tensor(1.5)),
    lambda D, m: D.Dirichlet(m.ones(2)).log_prob(m.tensor([0.5, 0.6])),
    lambda D, m: D.Poisson(2.0).log_prob(m.tensor(1.5)),
    lambda D, m: D.Binomial(10, m.tensor(0.3)).log_prob(m.tensor(11.0)),
    lambda D, m: D.Geometric(0.3).log_prob(m.tensor(-1.0)),
    lambda D, m: D.HalfNormal(1.0).log_prob(m.tensor(-1.0)),
    lambda D, m: D.LogNormal(0.0, 1.0).log_prob(m.tensor(0.0)),
    lambda D, m: D.LogNormal(0.0, 1.0).cdf(m.tensor(-1.0)),
    lambda D, m: D.Gamma(2.0, 1.0).cdf(m.tensor(-0.5)),
])
def test_what_pytorch_refuses_is_a_value_error(build):
    with pytest.raises(ValueError):
        build(torch.distributions, torch)
    with pytest.raises(nb.errors.InputError):
        build(nb.distributions, nb)


def test_a_dirichlet_without_parts_is_a_value_error_in_both():
    with pytest.raises(ValueError):
        torch.distributions.Dirichlet(torch.tensor(1.0))
    with pytest.raises(nb.errors.ShapeError):
        nb.distributions.Dirichlet(nb.tensor(1.0))


@pytest.mark.parametrize("call", [
    lambda D, m: D.Poisson(2.0).entropy(), lambda D, m: D.Poisson(2.0).rsample(),
    lambda D, m: D.Binomial(m.tensor([3.0, 5.0]), m.tensor([0.2, 0.3])).entropy(),
    lambda D, m: D.Binomial(m.tensor([3.0, 5.0]), m.tensor([0.2, 0.3])).enumerate_support(),
    lambda D, m: D.Binomial(3, m.tensor(0.2)).rsample(), lambda D, m: D.Geometric(0.2).rsample(),
    lambda D, m: D.kl_divergence(D.Binomial(3, m.tensor(0.2)), D.Binomial(5, m.tensor(0.2))),
    lambda D, m: D.Gamma(2.0, 1.0).icdf(m.tensor(0.5)),
    lambda D, m: D.Beta(2.0, 1.0).cdf(m.tensor(0.5)),
    lambda D, m: D.StudentT(3.0).cdf(m.tensor(0.0)),
    lambda D, m: D.kl_divergence(D.StudentT(3.0), D.StudentT(4.0)),
    lambda D, m: D.kl_divergence(D.Gumbel(0.0, 1.0), D.LogNormal(0.0, 1.0)),
])
def test_what_a_family_lacks_is_not_implemented_in_both(call):
    with pytest.raises(NotImplementedError):
        call(torch.distributions, torch)
    with pytest.raises(nb.errors.MissingRuleError):
        call(nb.distributions, nb)
