"""How a parameter names itself in messages: from the live outermost models, walked
top-down; when one tensor lives in several models, the most recently used one names it."""
import copy
import gc
import weakref

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import BackwardError


def two_models_sharing_a_layer():
    shared = nn.Linear(5, 3)
    first = nn.Sequential(shared, nn.ReLU())
    second = nn.Sequential(nn.Linear(7, 5), nn.Tanh(), shared)
    return shared, first, second


def test_the_most_recently_built_model_names_a_shared_parameter_first():
    shared, first, second = two_models_sharing_a_layer()
    assert shared.weight.path == "2.weight"
    assert shared.weight.paths == ["2.weight", "0.weight"]
    assert nn.paths_of(shared) == ["2", "0"]


def test_calling_a_model_makes_it_the_one_that_names_its_parameters():
    shared, first, second = two_models_sharing_a_layer()
    first(nb.randn(2, 5))
    assert shared.weight.path == "0.weight"
    second(nb.randn(2, 7))
    assert shared.weight.path == "2.weight"
    shared(nb.randn(2, 5))  # called on its own, it is not an outermost model: held by both
    assert shared.weight.path == "2.weight"


def test_only_outermost_calls_count():
    shared, first, second = two_models_sharing_a_layer()
    first(nb.randn(2, 5))

    class Wrapper(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)

    outer = Wrapper(second)  # now second is held: outer is the outermost model
    outer(nb.randn(2, 7))
    assert shared.weight.paths == ["inner.2.weight", "0.weight"]
    del outer
    gc.collect()
    assert shared.weight.path == "0.weight"  # first was called after second was built


def test_the_optimizer_names_a_stray_parameter_by_the_model_last_called():
    shared, first, second = two_models_sharing_a_layer()
    optimizer = nb.optim.SGD(list(second.parameters()), lr=0.1)
    second[0](nb.randn(2, 7)).sum().backward()  # only the first layer is used
    second(nb.randn(1, 7))  # (no backward) second is the most recently called model
    with pytest.warns(UserWarning) as record:
        optimizer.step()
    text = str(record[0].message)
    assert "2.weight (3, 5)" in text and "2.bias (3,)" in text


def test_a_changed_parameter_is_named_in_the_backward_error():
    model = nn.Sequential(nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 2))
    loss = model(nb.randn(4, 5)).sum()
    with nb.no_grad():
        model[2].weight.mul_(0.5)
    with pytest.raises(BackwardError, match=r"the tensor: 2\.weight \(a Parameter of shape"):
        loss.backward()


def test_a_deep_copy_names_its_own_parameters_and_leaves_the_original_alone():
    model = nn.Sequential(nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 2))
    twin = copy.deepcopy(model)
    assert twin[2].weight.paths == ["2.weight"]
    assert model[2].weight.paths == ["2.weight"]
    assert twin[2].weight is not model[2].weight


def test_a_model_needs_no_garbage_collector_to_go():
    gc.disable()
    try:
        model = nn.Sequential(nn.Linear(5, 3), nn.BatchNorm1d(3), nn.Dropout(0.2))
        weight = model[0].weight
        model(nb.randn(4, 5))
        gone = weakref.ref(model)
        del model
        assert gone() is None  # no reference cycle keeps a model (or its names) alive
        assert weight.path is None and weight.paths == []
    finally:
        gc.enable()


def test_a_parameter_in_no_model_has_no_path():
    loose = nn.Parameter(nb.tensor(np.ones((3, 2))))
    assert loose.path is None and loose.paths == []


def test_layers_follow_the_default_dtype_as_in_pytorch():
    import nnbook as nb

    nb.set_default_dtype(nb.float64)
    try:
        layers = [nb.nn.Linear(2, 3), nb.nn.Conv2d(2, 3, 3), nb.nn.LSTM(2, 3),
                  nb.nn.MultiheadAttention(4, 2), nb.nn.Embedding(4, 2), nb.nn.LayerNorm(3)]
        assert all(p.dtype == nb.float64 for m in layers for p in m.parameters())
    finally:
        nb.set_default_dtype(nb.float32)
    assert nb.nn.Linear(2, 3).weight.dtype == nb.float32


def test_a_lazy_layer_without_its_two_methods_is_refused_when_defined():
    import pytest

    from nnbook.nn.layers.linear import Linear
    from nnbook.nn.lazy import LazyModuleMixin

    with pytest.raises(TypeError, match="initialize_parameters and _shapes_from_state_dict"):
        class Half(LazyModuleMixin, Linear):
            pass
