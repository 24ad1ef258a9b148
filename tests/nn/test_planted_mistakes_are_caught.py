"""Mistakes a careless change could plant, each caught by a unit test (not only by a
notebook's output or the PyTorch oracle)."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn


def test_module_list_numbers_its_items_from_zero():
    layers = nn.ModuleList([nn.Linear(3, 2), nn.Linear(2, 4)])
    assert [name for name, _ in layers.named_parameters()] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]
    layers.append(nn.Linear(4, 1))
    assert list(layers.state_dict())[-2:] == ["2.weight", "2.bias"]
    assert layers[0] is next(iter(layers))


def test_a_strict_load_refuses_a_state_dict_that_only_lacks_keys():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 2))
    before = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    partial = {k: v + 1 for k, v in model.state_dict().items() if k != "1.bias"}
    with pytest.raises(nb.CheckpointError, match=r"1 missing[\s\S]*missing from the "
                                                 r"checkpoint: 1\.bias"):
        model.load_state_dict(partial)
    for key, value in model.state_dict().items():  # nothing was loaded
        np.testing.assert_array_equal(value.detach().numpy(), before[key])


def test_the_strict_false_hint_is_given_only_where_it_helps():
    model = nn.Sequential(nn.Linear(3, 2))
    renamed = {"fc." + k: v for k, v in model.state_dict().items()}
    with pytest.raises(nb.CheckpointError) as info:
        model.load_state_dict(renamed)
    assert "strict=False" not in str(info.value)  # a prefix problem: strip the prefix
    assert "k.removeprefix('fc.')" in str(info.value)
    with pytest.raises(nb.CheckpointError) as info:
        model.load_state_dict({**model.state_dict(), "extra": nb.zeros(1)})
    assert "pass strict=False to load only the keys that match" in str(info.value)
    wrong = {"0.weight": nb.zeros(5, 5), "0.bias": nb.zeros(2)}
    with pytest.raises(nb.CheckpointError) as info:
        model.load_state_dict(wrong, strict=False)
    assert "strict=False" not in str(info.value).split("hint:")[1]  # it would not help


def test_gradcheck_applies_its_relative_tolerance():
    class Off(nb.autograd.Function):  # the gradient is 1% too large
        @staticmethod
        def forward(ctx, x):
            return x * 100.0

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 101.0

    x = nb.randn(3, 2, dtype=nb.float64, requires_grad=True)
    with nb.autograd.teaching_mode(False):
        assert nb.gradcheck(Off.apply, (x,), atol=0.0, rtol=0.02)  # 1% is within 2%
        with pytest.raises(nb.GradcheckError):
            nb.gradcheck(Off.apply, (x,), atol=0.0, rtol=0.005)     # but not within 0.5%
