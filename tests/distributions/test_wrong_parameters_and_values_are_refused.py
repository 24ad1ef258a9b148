"""Parameters and values a distribution cannot take are refused with an nnbook error (a
ValueError, as PyTorch's) that names the parameter, the constraint and a fix; with
``validate_args=False`` (or ``Distribution.set_default_validate_args(False)``) nothing is
checked, as in PyTorch."""
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, InputError, MissingRuleError, ShapeError

D = nb.distributions


@pytest.mark.parametrize("build, said", [
    (lambda: D.Normal(nb.zeros(3), nb.tensor([1.0, -0.5, 2.0])),
     r"Normal: the parameter scale must be > 0; got \[-0\.5\] \(shape \(3,\)\)"),
    (lambda: D.Normal(float("nan"), 1.0), r"parameter loc must be a real number"),
    (lambda: D.Bernoulli(probs=nb.tensor([0.2, 1.5])), r"parameter probs must be in \[0, 1\]"),
    (lambda: D.Categorical(probs=nb.tensor([0.5, -0.1, 0.6])), r"parameter probs must be >= 0"),
    (lambda: D.Uniform(2.0, 1.0), r"parameter low must be < 1"),
    (lambda: D.Uniform(nb.tensor([0.0, 3.0]), nb.tensor([1.0, 2.0])),
     r"parameter low must be < high; got \[3\] \(shape \(2,\)\)"),
    (lambda: D.Exponential(nb.tensor([0.0])), r"parameter rate must be > 0"),
    (lambda: D.Laplace(0.0, 0.0), r"parameter scale must be > 0"),
    (lambda: D.MultivariateNormal(nb.zeros(2), scale_tril=nb.tensor([[1.0, 0.5], [0.0, 1.0]])),
     r"scale_tril must be lower-triangular matrices with a positive diagonal"),
    (lambda: D.MultivariateNormal(nb.zeros(2),
                                  covariance_matrix=nb.tensor([[1.0, 2.0], [2.0, 1.0]])),
     r"covariance_matrix must be symmetric positive-definite"),
    (lambda: D.Bernoulli(probs=0.5, logits=0.0), r"probs or logits, exactly one; got both"),
    (lambda: D.Categorical(), r"exactly one; got neither"),
    (lambda: D.MultivariateNormal(nb.zeros(2)), r"exactly one of covariance_matrix"),
    (lambda: D.Independent(D.Normal(nb.zeros(3), 1.0), 2),
     r"from 0 to the 1 batch dims .* got 2"),
    (lambda: D.Gamma(nb.ones(3), nb.tensor([1.0, 0.0, 2.0])), r"Gamma: the parameter rate must"),
    (lambda: D.Chi2(nb.tensor([3.0, -1.0])), r"Chi2: the parameter df must be > 0; got \[-1\]"),
    (lambda: D.Beta(1.0, nb.tensor([0.5, -2.0])), r"concentration0 must be > 0; got \[-2\]"),
    (lambda: D.Dirichlet(nb.tensor([[1.0, 2.0], [0.0, 1.0]])),
     r"concentration must be > 0; got \[0, 1\] \(shape \(2, 2\)\)"),
    (lambda: D.Poisson(nb.tensor([-0.5])), r"Poisson: the parameter rate must be >= 0"),
    (lambda: D.Binomial(nb.tensor([5.0, -1.0]), nb.tensor(0.5)),
     r"total_count must be a whole number >= 0; got \[-1\]"),
    (lambda: D.Binomial(4, probs=nb.tensor([0.5, 1.2])), r"probs must be in \[0, 1\]"),
    (lambda: D.Geometric(nb.tensor([0.5, 0.0])), r"Geometric: the parameter probs must be > 0"),
    (lambda: D.Geometric(), r"exactly one; got neither"),
    (lambda: D.StudentT(nb.tensor([3.0, 0.0])), r"StudentT: the parameter df must be > 0"),
    (lambda: D.StudentT(3.0, 0.0, -1.0), r"StudentT: the parameter scale must be > 0"),
    (lambda: D.Cauchy(0.0, 0.0), r"Cauchy: the parameter scale must be > 0"),
    (lambda: D.Gumbel(float("nan"), 1.0), r"Gumbel: the parameter loc must be a real number"),
    (lambda: D.HalfNormal(nb.tensor([1.0, -1.0])), r"HalfNormal: the parameter scale must be"),
    (lambda: D.LogNormal(0.0, -0.5), r"LogNormal: the parameter scale must be > 0"),
])
def test_wrong_parameters_are_input_errors_with_a_hint(build, said):
    with pytest.raises(InputError, match=said) as info:
        build()
    assert isinstance(info.value, ValueError) and "\n  hint: " in str(info.value)


@pytest.mark.parametrize("call, said", [
    (lambda: D.Uniform(0.0, 1.0).log_prob(nb.tensor(2.0)),
     r"Uniform\.log_prob: the value must be in the support, in \[0, 1\]; got 2"),
    (lambda: D.Bernoulli(0.3).log_prob(nb.tensor([0.0, 0.5])), r"support, 0 or 1; got \[0\.5\]"),
    (lambda: D.Categorical(logits=nb.zeros(3)).log_prob(nb.tensor(3)),
     r"a whole number from 0 to 2; got 3"),
    (lambda: D.Exponential(1.0).log_prob(nb.tensor([-1.0])), r">= 0; got \[-1\]"),
    (lambda: D.OneHotCategorical(logits=nb.zeros(3)).log_prob(nb.tensor([1.0, 1.0, 0.0])),
     r"one-hot vectors"),
    (lambda: D.Normal(0.0, 1.0).log_prob(0.5), r"expects a tensor, got float"),
    (lambda: D.Normal(0.0, 1.0).icdf(nb.tensor(1.5)), r"probabilities in \[0, 1\]"),
    (lambda: D.Gamma(2.0, 1.0).log_prob(nb.tensor([1.0, -1.0])), r"support, >= 0; got \[-1\]"),
    (lambda: D.Gamma(2.0, 1.0).cdf(nb.tensor(-0.5)), r"Gamma\.cdf: .* >= 0; got -0\.5"),
    (lambda: D.Beta(2.0, 2.0).log_prob(nb.tensor(1.5)), r"support, in \[0, 1\]; got 1\.5"),
    (lambda: D.Dirichlet(nb.ones(3)).log_prob(nb.tensor([0.5, 0.6, 0.1])),
     r"vectors \(the last dim\) of numbers >= 0 that sum to 1"),
    (lambda: D.Geometric(0.3).log_prob(nb.tensor(-1.0)), r"a whole number >= 0; got -1"),
    (lambda: D.HalfNormal(1.0).log_prob(nb.tensor(-0.1)), r">= 0; got -0\.1"),
    (lambda: D.LogNormal(0.0, 1.0).log_prob(nb.tensor(0.0)), r"support, > 0; got 0"),
    (lambda: D.LogNormal(0.0, 1.0).cdf(nb.tensor(-1.0)), r"LogNormal\.cdf: .* >= 0; got -1"),
    (lambda: D.Cauchy(0.0, 1.0).icdf(nb.tensor(-0.5)), r"probabilities in \[0, 1\]"),
    (lambda: D.Gumbel(0.0, 1.0).log_prob(0.5), r"expects a tensor, got float"),
])
def test_values_outside_the_support_are_input_errors(call, said):
    with pytest.raises(InputError, match=said):
        call()


def test_values_of_the_wrong_shape_are_shape_errors():
    with pytest.raises(ShapeError, match=r"does not broadcast with the batch shape \(3,\)"):
        D.Normal(nb.zeros(3), 1.0).log_prob(nb.zeros(4))
    with pytest.raises(ShapeError, match=r"event shape \(2,\), got shape \(3,\)"):
        D.MultivariateNormal(nb.zeros(2), scale_tril=nb.eye(2)).log_prob(nb.zeros(3))
    with pytest.raises(ShapeError, match=r"loc \(\.\.\., d\) and covariance_matrix"):
        D.MultivariateNormal(nb.zeros(3), nb.eye(2))
    with pytest.raises(ShapeError, match=r"do not broadcast together"):
        D.Normal(nb.zeros(3), nb.ones(2))
    with pytest.raises(ShapeError, match=r"last dim of classes, got a 0-d"):
        D.Categorical(logits=nb.tensor(1.0))


def test_wrong_argument_types_are_argument_errors():
    with pytest.raises(ArgumentError, match=r"tensors or numbers as parameters, got list"):
        D.Normal([0.0, 1.0], 1.0)
    with pytest.raises(ArgumentError, match=r"sample_shape must be a tuple of sizes"):
        D.Normal(0.0, 1.0).sample([2.5])
    with pytest.raises(ArgumentError, match=r"expects a distribution, got Tensor"):
        D.Independent(nb.zeros(3), 1)
    with pytest.raises(ArgumentError, match=r"Chi2: expects tensors or numbers .* got list"):
        D.Chi2([1.0, 2.0])
    with pytest.raises(ArgumentError, match=r"Dirichlet: concentration must be a tensor"):
        D.Dirichlet((1.0, 2.0))


def test_a_pair_without_a_closed_form_names_both_classes():
    with pytest.raises(MissingRuleError, match="from Normal to Laplace") as info:
        D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
    assert isinstance(info.value, NotImplementedError)
    assert "register_kl" in str(info.value)


@pytest.mark.parametrize("call, said", [
    (lambda: D.Bernoulli(0.3).rsample(), r"Bernoulli\.rsample: Bernoulli has no rsample"),
    (lambda: D.Categorical(logits=nb.zeros(3)).rsample((2,)), r"has_rsample is False"),
    (lambda: D.Categorical(logits=nb.zeros(3)).cdf(nb.tensor(1)), r"Categorical has no cdf"),
    (lambda: D.Normal(0.0, 1.0).enumerate_support(), r"not a finite set"),
    (lambda: D.Poisson(2.0).rsample(), r"Poisson has no rsample"),
    (lambda: D.Poisson(2.0).entropy(), r"Poisson has no entropy: its sum over all counts"),
    (lambda: D.Gamma(2.0, 1.0).icdf(nb.tensor(0.5)), r"Gamma has no icdf"),
    (lambda: D.Beta(2.0, 1.0).cdf(nb.tensor(0.5)), r"Beta has no cdf"),
    (lambda: D.Binomial(nb.tensor([3.0, 5.0]), nb.tensor(0.5)).entropy(),
     r"entropy needs one total_count for the whole batch; got counts from 3 to 5"),
    (lambda: D.kl_divergence(D.StudentT(3.0), D.StudentT(3.0)), r"from StudentT to StudentT"),
])
def test_what_a_family_lacks_is_not_implemented_as_in_pytorch(call, said):
    with pytest.raises(MissingRuleError, match=said) as info:
        call()
    assert isinstance(info.value, NotImplementedError) and "\n  hint: " in str(info.value)


def test_validate_args_false_returns_what_the_formulas_give():
    d = D.Uniform(0.0, 1.0, validate_args=False)
    assert d.log_prob(nb.tensor(2.0)).item() == -math.inf
    assert math.isnan(D.Normal(0.0, -1.0, validate_args=False).log_prob(nb.tensor(0.0)).item())


def test_the_default_can_be_switched_off_and_on():
    with pytest.raises(InputError, match="True or False"):
        D.Distribution.set_default_validate_args("yes")
    try:
        D.Distribution.set_default_validate_args(False)
        assert D.Exponential(-1.0).log_prob(nb.tensor(1.0)).item() != 0  # no error
        assert D.Normal(0.0, 1.0, validate_args=True)._validate_args
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(InputError):
        D.Exponential(-1.0)


def test_a_refused_distribution_leaves_its_inputs_alone():
    scale = nb.tensor([1.0, -1.0], requires_grad=True)
    before = scale.detach().numpy().copy()
    with pytest.raises(InputError):
        D.Normal(nb.zeros(2), scale)
    assert np.array_equal(scale.detach().numpy(), before) and scale.grad is None


def test_constraints_check_elements_or_whole_events():
    c = D.constraints
    assert c.positive.check(nb.tensor([1.0, 0.0, -1.0])).tolist() == [True, False, False]
    assert c.nonnegative.check(nb.tensor([0.0, -1e-9])).tolist() == [True, False]
    assert c.unit_interval.check(nb.tensor([0.0, 1.0, 1.1])).tolist() == [True, True, False]
    assert c.simplex.check(nb.tensor([[0.2, 0.8], [0.5, 0.6]])).tolist() == [True, False]
    assert c.integer_interval(0, 2).check(nb.tensor([0, 2, 3])).tolist() == [True, True, False]
    assert c.lower_cholesky.check(nb.tensor([[[1.0, 0.0], [5.0, 2.0]],
                                             [[1.0, 0.1], [0.0, 1.0]]])).tolist() == [True, False]
    assert c.independent(c.real, 1).check(nb.tensor([[1.0, float("nan")], [0.0, 1.0]])) \
        .tolist() == [False, True]
    assert D.Normal(0.0, 1.0).arg_constraints["scale"] is c.positive


def test_a_constraint_of_ones_own_that_says_nothing_is_an_nnbook_error():
    from nnbook.distributions import constraints

    class Odd(constraints.Constraint):
        pass

    with pytest.raises(MissingRuleError, match=r"(?s)Odd\.check: .*define Odd\.check") as info:
        Odd().check(nb.ones(7, 5))
    assert isinstance(info.value, NotImplementedError)

    class Positive(constraints.Constraint):  # PyTorch's way: check of one's own
        def check(self, value):
            return value > 0

    assert Positive().check(nb.tensor([1.0, -2.0])).tolist() == [True, False]
