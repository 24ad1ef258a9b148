"""The new optimizers (AdamW, RMSprop, Adagrad, Adadelta) and the new options (maximize,
decoupled_weight_decay, PyTorch's implementation switches): every setting a student can
get wrong is refused with a four-part error; state is Tensors; state dicts of another
kind are refused naming both."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, CheckpointError, InputError, NnbookError
from nnbook.optim import SGD, Adadelta, Adagrad, Adam, AdamW, RMSprop

NAN, INF = float("nan"), float("inf")


def _model():
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))


def _assert_four_parts(err, where, words):
    text = str(err)
    assert isinstance(err, NnbookError)
    assert text.startswith(where + ": "), text
    assert "test_optimizer_settings_refused.py" in text, text  # the user's line
    assert "\n  hint: " in text, text
    for word in words:
        assert word in text, f"{word!r} not in:\n{text}"


VALUES = [  # (make, where, words): InputError (a ValueError)
    (lambda ps: SGD(ps, momentum=1.0), "SGD", ["invalid momentum value", "[0, 1)", "got 1.0"]),
    (lambda ps: SGD(ps, momentum=0.9, nesterov=True, dampening=0.1), "SGD",
     ["nesterov=True needs momentum > 0 and dampening = 0"]),
    (lambda ps: AdamW(ps, lr=-1e-3), "AdamW", ["invalid learning rate", "-0.001"]),
    (lambda ps: AdamW(ps, weight_decay=-0.01), "AdamW", ["invalid weight_decay value"]),
    (lambda ps: AdamW(ps, betas=(0.9, 1.0)), "AdamW", ["invalid beta parameter at index 1"]),
    (lambda ps: AdamW(ps, eps=0), "AdamW", ["invalid epsilon value", "eps must be > 0", "0 / 0"]),
    (lambda ps: Adam(ps, eps=0.0), "Adam", ["eps must be > 0"]),
    (lambda ps: RMSprop(ps, lr=NAN), "RMSprop", ["invalid learning rate", "nan"]),
    (lambda ps: RMSprop(ps, alpha=1.5), "RMSprop", ["invalid alpha value", "[0, 1]", "1.5"]),
    (lambda ps: RMSprop(ps, alpha=-0.1), "RMSprop", ["invalid alpha value", "-0.1"]),
    (lambda ps: RMSprop(ps, momentum=1.2), "RMSprop", ["invalid momentum value", "[0, 1)"]),
    (lambda ps: RMSprop(ps, eps=-1e-8), "RMSprop", ["invalid epsilon value"]),
    (lambda ps: Adagrad(ps, lr_decay=-0.1), "Adagrad", ["invalid lr_decay value"]),
    (lambda ps: Adagrad(ps, initial_accumulator_value=-1), "Adagrad",
     ["invalid initial_accumulator_value value"]),
    (lambda ps: Adagrad(ps, eps=0), "Adagrad", ["eps must be > 0"]),
    (lambda ps: Adadelta(ps, rho=1.1), "Adadelta", ["invalid rho value", "[0, 1]"]),
    (lambda ps: Adadelta(ps, lr=INF), "Adadelta", ["invalid learning rate", "inf"]),
    (lambda ps: Adadelta(ps, eps=0), "Adadelta", ["eps must be > 0", "every step after it"]),
    (lambda ps: Adam(ps, differentiable=True), "Adam", ["differentiable=True", "never recorded"]),
    (lambda ps: RMSprop(ps, capturable=True), "RMSprop", ["capturable=True", "CPU"]),
    (lambda ps: SGD(ps, foreach=True, fused=True), "SGD", ["fused=True and foreach=True"]),
    (lambda ps: Adagrad([{"params": ps, "initial_lr": -0.1}]), "Adagrad",
     ["invalid initial_lr value"]),
]


@pytest.mark.parametrize("make, where, words", VALUES)
def test_a_bad_value_is_an_input_error(make, where, words):
    with pytest.raises(InputError) as info:
        make(_model().parameters())
    assert isinstance(info.value, ValueError)
    _assert_four_parts(info.value, where, words)


TYPES = [  # (make, where, words): ArgumentError (a TypeError, as PyTorch's)
    (lambda ps: RMSprop(ps, lr="1e-2"), "RMSprop", ["lr must be a number", "it is a str"]),
    (lambda ps: Adagrad(ps, eps=None), "Adagrad", ["eps must be a number"]),
    (lambda ps: Adam(ps, amsgrad="yes"), "Adam", ["amsgrad must be True or False", "'yes'"]),
    (lambda ps: SGD(ps, momentum=0.9, nesterov=1), "SGD", ["nesterov must be True or False"]),
    (lambda ps: RMSprop(ps, centered="False"), "RMSprop", ["centered must be True or False"]),
    (lambda ps: Adadelta(ps, maximize=None), "Adadelta", ["maximize must be True or False"]),
    (lambda ps: SGD(ps, foreach="no"), "SGD", ["foreach must be True or False"]),
]


@pytest.mark.parametrize("make, where, words", TYPES)
def test_a_value_of_the_wrong_type_is_an_argument_error(make, where, words):
    with pytest.raises(ArgumentError) as info:
        make(_model().parameters())
    assert isinstance(info.value, TypeError)
    _assert_four_parts(info.value, where, words)


@pytest.mark.parametrize("make", [
    lambda ps: SGD(ps, foreach=False, fused=None, differentiable=False),
    lambda ps: Adam(ps, foreach=None, fused=True, capturable=False),
    lambda ps: AdamW(ps, foreach=True),
    lambda ps: RMSprop(ps, foreach=False),
    lambda ps: Adagrad(ps, fused=False),
    lambda ps: Adadelta(ps, foreach=True),
])
def test_pytorchs_implementation_switches_are_accepted_and_not_kept(make):
    opt = make(_model().parameters())
    assert not {"foreach", "fused", "capturable", "differentiable"} & set(opt.param_groups[0])


def test_defaults_are_pytorchs():
    ps = list(_model().parameters())
    assert SGD(ps).defaults["lr"] == 1e-3
    assert AdamW(ps).defaults["weight_decay"] == 1e-2
    assert AdamW(ps).defaults["decoupled_weight_decay"] is True
    assert Adam(ps).defaults["decoupled_weight_decay"] is False
    assert RMSprop(ps).defaults == dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0,
                                        momentum=0, centered=False, maximize=False)
    assert Adagrad(ps).defaults == dict(lr=1e-2, lr_decay=0, eps=1e-10, weight_decay=0,
                                        initial_accumulator_value=0, maximize=False)
    assert Adadelta(ps).defaults == dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0,
                                         maximize=False)


def _step(model, opt, rng):
    opt.zero_grad()
    x = nb.tensor(rng.standard_normal((4, 5)).astype(np.float32))
    (model(x) ** 2).sum().backward()
    opt.step()


@pytest.mark.parametrize("make, entries", [
    (lambda ps: SGD(ps, momentum=0.9), {"momentum_buffer"}),
    (lambda ps: AdamW(ps, amsgrad=True), {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}),
    (lambda ps: RMSprop(ps, momentum=0.5, centered=True),
     {"step", "square_avg", "momentum_buffer", "grad_avg"}),
    (lambda ps: Adagrad(ps), {"step", "sum"}),
    (lambda ps: Adadelta(ps), {"step", "square_avg", "acc_delta"}),
])
def test_state_entries_are_tensors_that_the_update_changes(make, entries, rng):
    model = _model()
    opt = make(model.parameters())
    w = model[0].weight
    version = w._version
    for _ in range(2):
        _step(model, opt, rng)
    assert w._version >= version + 2  # each update is in place, counted (AdamW: two)
    state = opt.state[w]
    assert set(state) == entries
    for key, value in state.items():
        assert isinstance(value, nb.Tensor) and not value.requires_grad, key
        shape = () if key == "step" else w.shape
        assert value.shape == shape, key
    if "step" in state:
        assert state["step"].item() == 2.0 and state["step"].dtype == nb.float32
    before = {k: v.numpy().copy() for k, v in state.items()}
    _step(model, opt, rng)
    changed = [k for k in state if not np.array_equal(state[k].numpy(), before[k])]
    assert sorted(changed) == sorted(entries)  # the same Tensors, updated


def test_sgd_without_momentum_keeps_no_state_as_pytorch(rng):
    model = _model()
    opt = SGD(model.parameters(), lr=0.1)
    _step(model, opt, rng)
    assert len(opt.state) == 0 and opt.state_dict()["state"] == {}


def test_adagrad_fills_its_sums_when_a_group_is_added():
    model = _model()
    opt = Adagrad(model[0].parameters(), initial_accumulator_value=0.5)
    opt.add_param_group({"params": model[2].parameters(), "initial_accumulator_value": 0.25})
    assert np.all(opt.state[model[0].weight]["sum"].numpy() == 0.5)
    assert np.all(opt.state[model[2].bias]["sum"].numpy() == 0.25)
    assert sorted(opt.state_dict()["state"]) == [0, 1, 2, 3]  # before any step


def test_maximize_climbs_the_function(rng):
    for make in (lambda ps: SGD(ps, lr=0.1, maximize=True), lambda ps: AdamW(ps, lr=0.1,
                                                                            maximize=True),
                 lambda ps: RMSprop(ps, lr=0.01, maximize=True),
                 lambda ps: Adagrad(ps, lr=0.1, maximize=True),
                 lambda ps: Adadelta(ps, maximize=True)):
        w = nn.Parameter(nb.tensor(rng.standard_normal(3)))
        opt = make([w])
        values = []
        for _ in range(5):
            opt.zero_grad()
            value = -((w - 2.0) ** 2).sum()  # highest at w = 2
            value.backward()
            opt.step()
            values.append(value.item())
        assert values[-1] > values[0], type(opt).__name__


@pytest.mark.parametrize("source, target", [
    (lambda ps: Adam(ps), lambda ps: AdamW(ps)),
    (lambda ps: RMSprop(ps), lambda ps: Adadelta(ps)),
    (lambda ps: Adagrad(ps), lambda ps: SGD(ps, momentum=0.9)),
])
def test_a_state_dict_of_another_kind_is_refused_naming_both(source, target, rng):
    model = _model()
    saved_from, opt = source(model.parameters()), target(model.parameters())
    _step(model, saved_from, rng)
    _step(model, opt, rng)
    before = {k: v.numpy().copy() for k, v in opt.state_dict()["state"][0].items()}
    with pytest.raises(CheckpointError) as info:
        opt.load_state_dict(saved_from.state_dict())
    a, b = type(saved_from).__name__, type(opt).__name__
    text = str(info.value)
    assert f"saved from {a}, and this optimizer is {b}" in text and "Nothing was loaded" in text
    after = opt.state_dict()["state"][0]
    assert all(np.array_equal(after[k].numpy(), v) for k, v in before.items())


def test_without_its_kind_a_foreign_state_dict_is_refused_by_its_entries(rng):
    model = _model()
    saved_from, opt = RMSprop(model.parameters(), momentum=0.5), Adadelta(model.parameters())
    _step(model, saved_from, rng)
    sd = saved_from.state_dict()
    del sd["kind"]
    with pytest.raises(CheckpointError, match=r"state entries 'momentum_buffer'[\s\S]*which "
                       r"Adadelta does not have"):
        opt.load_state_dict(sd)


def test_a_state_dict_with_scheduler_keys_loads_and_a_typo_does_not(rng):
    model = _model()
    opt = AdamW(model.parameters())
    for group in opt.param_groups:
        group.update(initial_lr=1e-3, max_lr=1e-2, min_lr=1e-5)
    _step(model, opt, rng)
    fresh = AdamW(model.parameters(), lr=0.5)
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0]["max_lr"] == 1e-2 and fresh.param_groups[0]["lr"] == 1e-3
    sd = opt.state_dict()
    sd["param_groups"][0]["max_lrr"] = 0.1
    with pytest.raises(CheckpointError, match="'max_lrr', which AdamW does not have"):
        fresh.load_state_dict(sd)


def test_adamw_stays_decoupled_after_loading():
    model = _model()
    sd = AdamW(model.parameters()).state_dict()
    sd["param_groups"][0]["decoupled_weight_decay"] = False
    opt = AdamW(model.parameters())
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["decoupled_weight_decay"] is True


def test_a_closure_records_its_graph_even_under_no_grad():
    """PyTorch runs the closure under enable_grad, so LBFGS-style loops work anywhere."""
    w = nn.Parameter(nb.tensor(np.array([1.0, -2.0])))
    opt = RMSprop([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with nb.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0 and w.grad is not None
    assert np.all(np.abs(w.detach().numpy()) < [1.0, 2.0])
