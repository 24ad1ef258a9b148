"""nn.utils.parametrize without PyTorch: a parametrized tensor is computed from the stored
original on every read, named ``parametrizations.<name>.original`` in parameters and state
dicts; parametrizations stack in order; assigning goes through right_inverse; cached()
computes once; removing gives the plain tensor (and the plain class) back; a refused
registration or assignment changes nothing."""
import copy
import pickle

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, InputError, MissingRuleError, ShapeError
from nnbook.nn.module import ModuleAttributeError
from nnbook.nn.utils import parametrize as P


class Doubled(nn.Module):
    """weight = 2 * original; storing A keeps A / 2."""

    def forward(self, X):
        return X * 2

    def right_inverse(self, A):
        return A / 2


class PlusOne(nn.Module):
    def forward(self, X):
        return X + 1

    def right_inverse(self, A):
        return A - 1


class Sum(nn.Module):
    """weight = a + b from two stored tensors (original0, original1)."""

    def forward(self, a, b):
        return a + b

    def right_inverse(self, A):
        return A * 0.25, A * 0.75


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, X):
        self.calls += 1
        return X * 1.5


class Rows(nn.Module):
    """Changes the shape: only with unsafe=True."""

    def forward(self, X):
        return X[:2]


def linear(rng, *sizes):
    layer = nn.Linear(*sizes).double()
    with nb.no_grad():
        layer.weight.copy_(nb.tensor(rng.standard_normal(layer.weight.shape)))
    return layer


def test_the_stored_tensor_is_named_original_and_the_weight_is_computed(rng):
    layer = linear(rng, 5, 7)
    weight = layer.weight
    values = weight.detach().numpy().copy()
    P.register_parametrization(layer, "weight", Doubled())
    assert type(layer).__name__ == "ParametrizedLinear" and isinstance(layer, nn.Linear)
    assert P.type_before_parametrizations(layer) is nn.Linear
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in layer.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert layer.parametrizations.weight.original is weight  # an optimizer still trains it
    np.testing.assert_allclose(weight.detach().numpy(), values / 2)  # right_inverse was stored
    np.testing.assert_allclose(layer.weight.detach().numpy(), values)
    assert P.is_parametrized(layer) and P.is_parametrized(layer, "weight")
    assert not P.is_parametrized(layer, "bias") and not P.is_parametrized(nn.Linear(2, 3))


def test_gradients_reach_the_original(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Doubled())
    x = nb.tensor(rng.standard_normal((3, 5)))
    grad_out = rng.standard_normal((3, 7))
    layer(x).backward(nb.tensor(grad_out))
    # y = x (2 W)^T + b:  dL/dW = 2 grad_out^T x
    np.testing.assert_allclose(layer.parametrizations.weight.original.grad.numpy(),
                               2 * grad_out.T @ x.numpy(), rtol=1e-12)


def test_stacked_parametrizations_run_in_order_and_invert_backwards(rng):
    layer = linear(rng, 5, 7)
    original = layer.weight.detach().numpy().copy()
    P.register_parametrization(layer, "weight", PlusOne())
    P.register_parametrization(layer, "weight", Doubled())
    stored = layer.parametrizations.weight.original.detach().numpy()
    np.testing.assert_allclose(stored, original - 1)
    np.testing.assert_allclose(layer.weight.detach().numpy(), 2 * (stored + 1))  # not 2x + 1
    target = rng.standard_normal((7, 5))
    layer.weight = nb.tensor(target)
    np.testing.assert_allclose(layer.parametrizations.weight.original.detach().numpy(),
                               target / 2 - 1)
    np.testing.assert_allclose(layer.weight.detach().numpy(), target)


def test_a_right_inverse_returning_two_tensors_stores_original0_and_original1(rng):
    layer = linear(rng, 5, 7)
    values = layer.weight.detach().numpy().copy()
    P.register_parametrization(layer, "weight", Sum())
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
    first = layer.parametrizations.weight.original0
    assert isinstance(first, nn.Parameter) and first.requires_grad
    np.testing.assert_allclose(first.detach().numpy(), values * 0.25)
    np.testing.assert_allclose(layer.weight.detach().numpy(), values)
    with pytest.raises(InputError, match="parametrized from 2 tensors"):
        P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    P.remove_parametrizations(layer, "weight")
    assert list(layer.state_dict()) == ["bias", "weight"] and type(layer) is nn.Linear
    np.testing.assert_allclose(layer.weight.detach().numpy(), values)


def test_cached_computes_each_tensor_once_per_block(rng):
    layer = linear(rng, 5, 7)
    counting = Counting()
    P.register_parametrization(layer, "weight", counting)
    calls = counting.calls
    with P.cached():
        first, second = layer.weight, layer.weight
        with P.cached():
            assert layer.weight is first
    assert first is second and counting.calls == calls + 1
    assert layer.weight is not first and counting.calls == calls + 2


@pytest.mark.parametrize("leave", [True, False])
def test_removing_gives_back_a_plain_parameter_and_the_plain_class(leave, rng):
    layer = linear(rng, 5, 7)
    weight = layer.weight
    values = weight.detach().numpy().copy()
    P.register_parametrization(layer, "weight", Doubled())
    P.remove_parametrizations(layer, "weight", leave_parametrized=leave)
    assert type(layer) is nn.Linear and "parametrizations" not in dict(layer.named_children())
    assert layer.weight is weight and list(layer.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(weight.detach().numpy(), values if leave else values / 2)


def test_two_parametrized_tensors_are_removed_one_at_a_time(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Doubled())
    P.register_parametrization(layer, "bias", PlusOne())
    P.remove_parametrizations(layer, "weight")
    assert type(layer).__name__ == "ParametrizedLinear"
    assert list(layer.state_dict()) == ["weight", "parametrizations.bias.original"]
    bias = layer.parametrizations.bias.original.detach().numpy() + 1
    np.testing.assert_allclose(layer.bias.detach().numpy(), bias)
    P.remove_parametrizations(layer, "bias")
    assert type(layer) is nn.Linear


def test_a_buffer_can_be_parametrized():
    norm = nn.BatchNorm1d(3)
    P.register_parametrization(norm, "running_var", Doubled())
    assert "parametrizations.running_var.original" in norm.state_dict()
    assert [n for n, _ in norm.named_buffers()][-1] == "parametrizations.running_var.original"
    np.testing.assert_allclose(norm.running_var.numpy(), np.ones(3))


def test_a_copy_keeps_working_when_the_original_is_unparametrized(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Doubled())
    twin = copy.deepcopy(layer)
    P.remove_parametrizations(layer, "weight")
    assert type(twin).__name__ == "ParametrizedLinear"
    np.testing.assert_allclose(twin.weight.detach().numpy(), layer.weight.detach().numpy())
    assert twin.parametrizations.weight.original is not layer.weight


def test_a_parametrized_layer_deep_inside_a_model_is_copied_and_not_pickled(rng):
    # pickle finds a class by name, and ParametrizedLinear is made for one layer: before,
    # pickle said only "attribute lookup ParametrizedLinear on nnbook.nn.layers... failed"
    model = nn.Sequential(linear(rng, 5, 7), nn.ReLU())
    P.register_parametrization(model[0], "weight", Doubled())
    twin = copy.deepcopy(model)
    assert type(twin[0]) is type(model[0]) and twin[0].weight is not model[0].weight
    x = nb.tensor(rng.standard_normal((2, 5)))
    np.testing.assert_array_equal(twin(x).detach().numpy(), model(x).detach().numpy())
    with pytest.raises(MissingRuleError, match=r"ParametrizedLinear\) cannot be pickled"):
        pickle.dumps(model)


def test_state_dicts_load_and_dtypes_convert(rng):
    source, target = linear(rng, 5, 7), nn.Linear(5, 7)
    P.register_parametrization(source, "weight", Doubled())
    P.register_parametrization(target, "weight", Doubled())
    target.double().load_state_dict(source.state_dict())
    np.testing.assert_array_equal(target.weight.detach().numpy(), source.weight.detach().numpy())
    assert target.float().weight.dtype == nb.float32


def test_a_parametrized_layer_is_one_step_of_shape_inference():
    model = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
    P.register_parametrization(model[0], "weight", Doubled())
    trace = nb.infer_shapes(model, (4, 5))
    assert [(s.path, s.layer, s.output_shape) for s in trace.steps] == [
        ("0", "ParametrizedLinear", (4, 7)), ("1", "ReLU", (4, 7)), ("2", "Linear", (4, 3))]
    assert trace.steps[0].params == 7 * 5 + 7


def test_an_unsafe_parametrization_may_change_the_shape(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Rows(), unsafe=True)
    assert tuple(layer.weight.shape) == (2, 5)


def test_refused_parametrizations_leave_the_layer_as_it_was(rng):
    layer = linear(rng, 5, 7)
    weight = layer.weight
    values = weight.detach().numpy().copy()
    with pytest.raises(ShapeError, match=r"(?s)registering Rows would change the shape of "
                                         r"the tensor: \(7, 5\) -> \(2, 5\).*unsafe=True"):
        P.register_parametrization(layer, "weight", Rows())
    with pytest.raises(ArgumentError, match="must be an nn.Module"):
        P.register_parametrization(layer, "weight", lambda X: X * 2)
    with pytest.raises(InputError, match="(?s)named 'wieght'.*did you mean 'weight'"):
        P.register_parametrization(layer, "wieght", Doubled())
    assert type(layer) is nn.Linear and layer.weight is weight
    np.testing.assert_array_equal(weight.detach().numpy(), values)


def test_stacking_a_parametrization_that_changes_the_shape_is_refused(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Doubled())
    with pytest.raises(ShapeError, match=r"module\.weight: \(7, 5\) -> \(2, 5\)"):
        P.register_parametrization(layer, "weight", Rows())
    assert len(layer.parametrizations.weight) == 1


def test_assigning_a_parametrized_tensor_is_checked_first(rng):
    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Doubled())
    original = layer.parametrizations.weight.original
    stored = original.detach().numpy().copy()
    with pytest.raises(ModuleAttributeError, match="cannot assign a Parameter"):
        layer.weight = nn.Parameter(nb.ones(7, 5))
    with pytest.raises(ArgumentError, match="needs a Tensor, got a float"):
        layer.weight = 3.0
    with pytest.raises(ShapeError, match=r"shape \(3,\) for original"):
        layer.weight = nb.ones(3, dtype=nb.float64)
    P.register_parametrization(layer, "weight", Counting())  # no right_inverse
    with pytest.raises(MissingRuleError, match="Counting has no right_inverse"):
        layer.weight = nb.ones(7, 5, dtype=nb.float64)
    np.testing.assert_array_equal(original.detach().numpy(), stored)


def test_an_attribute_missing_inside_a_parametrization_is_reported_as_itself(rng):
    class Misspelt(nn.Module):
        def forward(self, X):
            return X * self.scael

    layer = linear(rng, 5, 7)
    P.register_parametrization(layer, "weight", Misspelt(), unsafe=True)
    with pytest.raises(ModuleAttributeError, match="'scael'"):
        layer.weight  # noqa: B018  (reading it runs the parametrization)


def test_removing_what_is_not_parametrized_is_refused():
    with pytest.raises(InputError, match="no parametrization on 'weight'"):
        P.remove_parametrizations(nn.Linear(5, 7), "weight")
