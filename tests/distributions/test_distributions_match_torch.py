"""log_prob, entropy, moments, cdf / icdf and KL divergences against PyTorch, in float64,
with the gradients of every parameter and value.  Each case is written once, as
``fn(D, *tensors)`` with ``D`` the library's ``distributions``, and run in both libraries
on the same numbers; the draws themselves differ (other generators) and are tested by
their statistics in test_samples_have_the_right_statistics.py."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")


def normal(*shape):
    return lambda rng: rng.standard_normal(shape)


def positive(*shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def probabilities(*shape):
    return lambda rng: rng.uniform(0.05, 0.95, shape)


def bits(*shape):
    return lambda rng: (rng.random(shape) < 0.5).astype(np.float64)


def classes(k, *shape):
    return lambda rng: rng.integers(0, k, shape)


def scale_tril(*batch, d):
    """Lower-triangular factors with a positive diagonal (well away from 0)."""
    def make(rng):
        m = np.tril(rng.standard_normal(batch + (d, d))) * 0.5
        idx = np.arange(d)
        m[..., idx, idx] = rng.uniform(0.7, 1.5, batch + (d,))
        return m
    return make


def spd(*batch, d):
    def make(rng):
        a = rng.standard_normal(batch + (d, d))
        return a @ np.swapaxes(a, -1, -2) / d + np.eye(d)
    return make


def one_hots(k, *shape):
    return lambda rng: np.eye(k)[rng.integers(0, k, shape)]


def fixed(v):
    return lambda rng: np.asarray(v, dtype=np.float64)


def moments(d):
    return (d.mean, d.variance, d.stddev)


CASES = {
    "normal": ([normal(3, 4), positive(3, 4), normal(2, 3, 4), probabilities(3, 4)],
               lambda D, loc, scale, x, p: (
                   D.Normal(loc, scale).log_prob(x), D.Normal(loc, scale).entropy(),
                   D.Normal(loc, scale).cdf(x), D.Normal(loc, scale).icdf(p),
                   D.Normal(loc, scale).mode, *moments(D.Normal(loc, scale)))),
    "normal_number_parameters": ([normal(5)], lambda D, x: (
        D.Normal(0.5, 2.0).log_prob(x), D.Normal(0.5, 2.0).entropy(), D.Normal(x, 1.5).cdf(x))),
    "bernoulli_probs": ([probabilities(2, 5), bits(3, 2, 5)], lambda D, p, x: (
        D.Bernoulli(p).log_prob(x), D.Bernoulli(probs=p).entropy(), D.Bernoulli(p).logits,
        D.Bernoulli(p).mode, *moments(D.Bernoulli(p)))),
    "bernoulli_logits": ([normal(2, 5), bits(2, 5)], lambda D, lg, x: (
        D.Bernoulli(logits=lg).log_prob(x), D.Bernoulli(logits=lg).entropy(),
        D.Bernoulli(logits=lg).probs, *moments(D.Bernoulli(logits=lg)))),
    "bernoulli_even_odds": ([fixed([0.0, 0.0, 1.5]), fixed([1.0, 0.0, 1.0])], lambda D, lg, x: (
        D.Bernoulli(logits=lg).log_prob(x), D.Bernoulli(logits=lg).entropy())),
    "categorical_probs": ([positive(3, 5), classes(5, 4, 3)], lambda D, p, k: (
        D.Categorical(probs=p).log_prob(k), D.Categorical(probs=p).entropy(),
        D.Categorical(probs=p).probs, D.Categorical(probs=p).logits,
        D.Categorical(probs=p).mode)),
    "categorical_logits": ([normal(2, 3, 6), classes(6, 3)], lambda D, lg, k: (
        D.Categorical(logits=lg).log_prob(k), D.Categorical(logits=lg).entropy(),
        D.Categorical(logits=lg).probs, D.Categorical(logits=lg).logits,
        D.Categorical(logits=lg).enumerate_support(),
        D.Categorical(logits=lg).enumerate_support(expand=False))),
    "one_hot_categorical": ([normal(3, 4), one_hots(4, 2, 3)], lambda D, lg, x: (
        D.OneHotCategorical(logits=lg).log_prob(x), D.OneHotCategorical(logits=lg).entropy(),
        D.OneHotCategorical(logits=lg).mode, D.OneHotCategorical(logits=lg).enumerate_support(),
        *moments(D.OneHotCategorical(logits=lg)))),
    "uniform": ([normal(4), positive(4), probabilities(3, 4)], lambda D, low, width, p: (
        D.Uniform(low, low + width).log_prob(low + width * p),
        D.Uniform(low, low + width).entropy(), D.Uniform(low, low + width).cdf(low + width * p),
        D.Uniform(low, low + width).icdf(p), *moments(D.Uniform(low, low + width)))),
    "uniform_cdf_outside": ([fixed([-1.0, 0.5, 3.0])], lambda D, x: (
        D.Uniform(0.0, 2.0, validate_args=False).cdf(x),
        D.Uniform(0.0, 2.0, validate_args=False).log_prob(x))),
    "exponential": ([positive(2, 3), positive(4, 2, 3), probabilities(2, 3)],
                    lambda D, rate, x, p: (
                        D.Exponential(rate).log_prob(x), D.Exponential(rate).entropy(),
                        D.Exponential(rate).cdf(x), D.Exponential(rate).icdf(p),
                        D.Exponential(rate).mode, *moments(D.Exponential(rate)))),
    "laplace": ([normal(5), positive(5), normal(3, 5), probabilities(5)],
                lambda D, loc, scale, x, p: (
                    D.Laplace(loc, scale).log_prob(x), D.Laplace(loc, scale).entropy(),
                    D.Laplace(loc, scale).cdf(x), D.Laplace(loc, scale).icdf(p),
                    D.Laplace(loc, scale).mode, *moments(D.Laplace(loc, scale)))),
    "mvn_scale_tril": ([normal(3, 4), scale_tril(3, d=4), normal(2, 3, 4)],
                       lambda D, loc, L, x: (
                           D.MultivariateNormal(loc, scale_tril=L).log_prob(x),
                           D.MultivariateNormal(loc, scale_tril=L).entropy(),
                           D.MultivariateNormal(loc, scale_tril=L).covariance_matrix,
                           D.MultivariateNormal(loc, scale_tril=L).precision_matrix,
                           *moments(D.MultivariateNormal(loc, scale_tril=L)))),
    "mvn_covariance": ([normal(2, 3), spd(2, d=3), normal(2, 3)], lambda D, loc, S, x: (
        D.MultivariateNormal(loc, covariance_matrix=S).log_prob(x),
        D.MultivariateNormal(loc, covariance_matrix=S).entropy(),
        D.MultivariateNormal(loc, covariance_matrix=S).scale_tril,
        D.MultivariateNormal(loc, covariance_matrix=S).variance)),
    "mvn_precision_shared_matrix": ([normal(4, 3), spd(d=3), normal(4, 3)],
                                    lambda D, loc, P, x: (
                                        D.MultivariateNormal(loc, precision_matrix=P).log_prob(x),
                                        D.MultivariateNormal(loc, precision_matrix=P).entropy(),
                                        D.MultivariateNormal(loc, precision_matrix=P)
                                        .covariance_matrix)),
    "independent_normal": ([normal(2, 3, 4), positive(2, 3, 4), normal(5, 2, 3, 4)],
                           lambda D, loc, scale, x: (
                               D.Independent(D.Normal(loc, scale), 2).log_prob(x),
                               D.Independent(D.Normal(loc, scale), 1).entropy(),
                               D.Independent(D.Normal(loc, scale), 1).mean)),
    "expanded": ([normal(3), positive(3), normal(2, 3)], lambda D, loc, scale, x: (
        D.Normal(loc, scale).expand((2, 3)).log_prob(x),
        D.Categorical(logits=x).expand((4, 2)).log_prob((x[0, :2] * 3).abs().long() % 3),
        D.Independent(D.Normal(loc, scale), 1).expand((2,)).log_prob(x))),
    "kl_normal": ([normal(3, 2), positive(3, 2), normal(2), positive(2)],
                  lambda D, m1, s1, m2, s2: (
                      D.kl_divergence(D.Normal(m1, s1), D.Normal(m2, s2)),
                      D.kl_divergence(D.Normal(m1, s1), D.Normal(0.0, 1.0)))),
    "kl_bernoulli": ([probabilities(4), normal(4)], lambda D, p, lg: (
        D.kl_divergence(D.Bernoulli(p), D.Bernoulli(logits=lg)),
        D.kl_divergence(D.Bernoulli(logits=lg), D.Bernoulli(p)))),
    "kl_categorical": ([positive(2, 5), normal(2, 5)], lambda D, p, lg: (
        D.kl_divergence(D.Categorical(probs=p), D.Categorical(logits=lg)),
        D.kl_divergence(D.OneHotCategorical(logits=lg), D.OneHotCategorical(probs=p)))),
    "kl_uniform": ([normal(4), positive(4)], lambda D, low, w: (
        D.kl_divergence(D.Uniform(low, low + w), D.Uniform(low - 1.0, low + w + 0.5)),
        D.kl_divergence(D.Uniform(low - 1.0, low + w), D.Uniform(low, low + w)))),
    "kl_mvn": ([normal(3, 4), scale_tril(3, d=4), normal(4), spd(d=4)],
               lambda D, m1, L1, m2, S2: (
                   D.kl_divergence(D.MultivariateNormal(m1, scale_tril=L1),
                                   D.MultivariateNormal(m2, covariance_matrix=S2)),)),
    "kl_independent": ([normal(3, 4), positive(3, 4), normal(4), positive(4)],
                       lambda D, m1, s1, m2, s2: (
                           D.kl_divergence(D.Independent(D.Normal(m1, s1), 1),
                                           D.Independent(D.Normal(m2, s2), 1)),)),
}


def run(library, fn, arrays, weights_rng):
    """Values of ``fn``'s results and the gradients of sum(w * result) for fixed random w."""
    m = nb if library == "nnbook" else torch
    inputs = [m.tensor(a, dtype=m.float64, requires_grad=True) if a.dtype.kind == "f"
              else m.tensor(a) for a in arrays]
    results = fn(m.distributions, *inputs)
    values = [r.detach().numpy() for r in results]
    total = None
    for r in results:
        if r.requires_grad:
            w = weights_rng.standard_normal(tuple(r.shape))
            term = (r * m.tensor(w)).sum()
            total = term if total is None else total + term
    if total is None:
        return values, []
    total.backward()
    return values, [None if t.grad is None else t.grad.numpy() for t in inputs]


def compare_with_pytorch(case, rng, grad_atol=1e-10):
    """Run one case, ``(makers, fn)``, under both libraries on the same arrays and
    weights; compare every result and every input's gradient in float64."""
    makers, fn = case
    arrays = [make(rng) for make in makers]
    seed = int(rng.integers(2**31))
    got, got_grads = run("nnbook", fn, arrays, np.random.default_rng(seed))
    want, want_grads = run("torch", fn, arrays, np.random.default_rng(seed))
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"result {i}: {g.dtype} {g.shape}, " \
            f"PyTorch {w.dtype} {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"result {i}")
    assert len(got_grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        assert (g is None) == (w is None), f"gradient of input {i}: {g}, PyTorch {w}"
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-8, atol=grad_atol,
                                       err_msg=f"grad of input {i}")


@pytest.mark.parametrize("name", CASES)
def test_like_pytorch(name, rng):
    compare_with_pytorch(CASES[name], rng)


@pytest.mark.parametrize("make", [
    lambda D, m: D.Normal(m.zeros(3), m.ones(3)),
    lambda D, m: D.Bernoulli(logits=m.zeros(2, 3)),
    lambda D, m: D.Categorical(logits=m.zeros(2, 5)),
    lambda D, m: D.OneHotCategorical(probs=m.ones(4) / 4),
    lambda D, m: D.Uniform(m.zeros(3), 1.0),
    lambda D, m: D.Exponential(2.0),
    lambda D, m: D.Laplace(m.zeros(2, 1), 1.0),
    lambda D, m: D.MultivariateNormal(m.zeros(2, 3), scale_tril=m.eye(3)),
    lambda D, m: D.Independent(D.Normal(m.zeros(2, 3), 1.0), 1),
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
        assert not a.requires_grad
        lp, tlp = mine.log_prob(a), theirs.log_prob(b)
        assert lp.shape == tuple(tlp.shape)
    assert mine.support.is_discrete == theirs.support.is_discrete
    assert mine.support.event_dim == theirs.support.event_dim


@pytest.mark.parametrize("build", [
    lambda D, m: D.Normal(0.0, -1.0),
    lambda D, m: D.Normal(m.zeros(2), m.tensor([1.0, 0.0])),
    lambda D, m: D.Bernoulli(probs=m.tensor([0.2, 1.5])),
    lambda D, m: D.Bernoulli(probs=0.5, logits=0.0),
    lambda D, m: D.Categorical(probs=m.tensor([0.5, -0.1, 0.6])),
    lambda D, m: D.Uniform(2.0, 1.0),
    lambda D, m: D.Exponential(m.tensor([-1.0])),
    lambda D, m: D.MultivariateNormal(m.zeros(2), scale_tril=m.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda D, m: D.MultivariateNormal(m.zeros(2),
                                      covariance_matrix=m.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda D, m: D.Normal(0.0, 1.0).log_prob(0.5),
    lambda D, m: D.Uniform(0.0, 1.0).log_prob(m.tensor(2.0)),
    lambda D, m: D.Bernoulli(0.3).log_prob(m.tensor(0.5)),
    lambda D, m: D.Categorical(logits=m.zeros(3)).log_prob(m.tensor(3)),
    lambda D, m: D.Exponential(1.0).log_prob(m.tensor(-1.0)),
    lambda D, m: D.Distribution.set_default_validate_args("yes"),
])
def test_what_pytorch_refuses_is_a_value_error(build):
    with pytest.raises(ValueError):
        build(torch.distributions, torch)
    with pytest.raises(nb.errors.InputError):
        build(nb.distributions, nb)


def test_pairs_without_a_rule_are_not_implemented_in_both():
    with pytest.raises(NotImplementedError):
        torch.distributions.kl_divergence(torch.distributions.Normal(0.0, 1.0),
                                          torch.distributions.Bernoulli(0.5))
    with pytest.raises(nb.errors.MissingRuleError, match="Normal to Bernoulli"):
        nb.distributions.kl_divergence(nb.distributions.Normal(0.0, 1.0),
                                       nb.distributions.Bernoulli(0.5))


@pytest.mark.parametrize("call", [
    lambda D, m: D.Bernoulli(0.3).rsample(),
    lambda D, m: D.Categorical(logits=m.zeros(3)).rsample(),
    lambda D, m: D.OneHotCategorical(logits=m.zeros(3)).rsample(),
    lambda D, m: D.Categorical(logits=m.zeros(3)).cdf(m.tensor(1)),
])
def test_what_a_family_lacks_is_not_implemented_in_both(call):
    with pytest.raises(NotImplementedError):
        call(torch.distributions, torch)
    with pytest.raises(nb.errors.MissingRuleError):
        call(nb.distributions, nb)
