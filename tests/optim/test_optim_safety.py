"""Optimizers refuse bad settings, bad gradients and foreign or broken state dicts, and a
refused step or load changes nothing: every parameter, setting and state array stays
bit for bit as it was."""
import copy
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import (
    ArgumentError,
    CheckpointError,
    DTypeError,
    InputError,
    NnbookError,
    ShapeError,
)
from nnbook.optim import SGD, Adam

NAN, INF = float("nan"), float("inf")


def _model(seed=0):
    nb.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))


def _backward(model, seed):
    rng = np.random.default_rng(seed)
    x = nb.tensor(rng.standard_normal((4, 5)).astype(np.float32))
    y = model(x)
    (y * y).sum().backward()


MAKERS = {
    "sgd": lambda ps: SGD(ps, lr=0.1),
    "sgd-nesterov": lambda ps: SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "adam": lambda ps: Adam(ps, lr=0.01),
    "adam-amsgrad": lambda ps: Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.1),
}


def _trained(kind: str, steps=2, seed=0):
    model = _model(seed)
    opt = MAKERS[kind](model.parameters())
    for step in range(steps):
        opt.zero_grad()
        _backward(model, seed * 10 + step)
        opt.step()
    return model, opt


def _snapshot(model, opt) -> dict:
    names = {id(p): name for name, p in model.named_parameters()}
    return {
        "params": {name: p.detach().numpy().copy() for name, p in model.named_parameters()},
        "groups": [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups],
        "order": [[names[id(p)] for p in g["params"]] for g in opt.param_groups],
        "state": {names[id(p)]: {k: np.array(v, copy=True) for k, v in s.items()}
                  for p, s in opt.state.items() if s},  # step() may leave empty entries
    }


def _assert_same(a: dict, b: dict):
    assert a["groups"] == b["groups"] and a["order"] == b["order"]
    for part in ("params", "state"):
        assert list(a[part]) == list(b[part])
    for name in a["params"]:
        assert a["params"][name].tobytes() == b["params"][name].tobytes(), name
    for name in a["state"]:
        assert list(a["state"][name]) == list(b["state"][name])
        for key, value in a["state"][name].items():
            other = b["state"][name][key]
            assert value.dtype == other.dtype and value.tobytes() == other.tobytes(), key


def _assert_message(err, cls, builtin, where, words):
    assert isinstance(err, cls) and isinstance(err, builtin) and isinstance(err, NnbookError)
    text = str(err)
    assert text.startswith(where + ": "), text
    assert "\n  hint: " in text and "test_optim_safety.py" in text, text  # the user's line
    for word in words:
        assert word in text, f"{word!r} not in:\n{text}"


# ------------------------------------------------------------------------ settings

@pytest.mark.parametrize("make, words", [
    (lambda ps: SGD(ps, lr=-1), ["invalid learning rate", "got -1", "work backwards"]),
    (lambda ps: SGD(ps, lr=NAN), ["invalid learning rate", "got nan"]),
    (lambda ps: SGD(ps, lr=INF), ["invalid learning rate", "got inf"]),
    (lambda ps: SGD(ps, lr=0.1, momentum=-0.9), ["invalid momentum value", "-0.9"]),
    (lambda ps: SGD(ps, lr=0.1, momentum=NAN), ["invalid momentum value", "nan"]),
    (lambda ps: SGD(ps, lr=0.1, momentum=INF), ["invalid momentum value", "inf"]),
    (lambda ps: SGD(ps, lr=0.1, weight_decay=-1e-4), ["invalid weight_decay value"]),
    (lambda ps: SGD(ps, lr=0.1, weight_decay=NAN), ["invalid weight_decay value", "nan"]),
    (lambda ps: SGD(ps, lr=0.1, momentum=0.9, dampening=INF), ["invalid dampening value"]),
    (lambda ps: SGD([{"params": ps, "lr": NAN}], lr=0.1), ["invalid learning rate", "nan"]),
    (lambda ps: Adam(ps, lr=-1e-3), ["invalid learning rate", "1e-3 for Adam"]),
    (lambda ps: Adam(ps, lr=INF), ["invalid learning rate", "inf"]),
    (lambda ps: Adam(ps, eps=NAN), ["invalid epsilon value", "eps=1e-8"]),
    (lambda ps: Adam(ps, eps=-1e-8), ["invalid epsilon value"]),
    (lambda ps: Adam(ps, eps=INF), ["invalid epsilon value"]),
    (lambda ps: Adam(ps, weight_decay=INF), ["invalid weight_decay value"]),
    (lambda ps: Adam(ps, betas=(1.0, 0.999)), ["invalid beta parameter at index 0", "[0, 1)"]),
    (lambda ps: Adam(ps, betas=(-0.1, 0.999)), ["invalid beta parameter at index 0"]),
    (lambda ps: Adam(ps, betas=(0.9, NAN)), ["invalid beta parameter at index 1", "nan"]),
    (lambda ps: Adam(ps, betas=(0.9, INF)), ["invalid beta parameter at index 1"]),
    (lambda ps: Adam(ps, betas=0.9), ["betas must be two numbers", "0.9"]),
    (lambda ps: Adam(ps, betas=(0.9, 0.99, 0.9)), ["betas must be two numbers"]),
    (lambda ps: Adam([{"params": ps, "betas": (0.9, 1)}]), ["index 1"]),
])
def test_bad_settings_are_refused_as_pytorch_does_and_nan_inf_too(make, words):
    model = _model()
    with pytest.raises(InputError) as info:
        make(model.parameters())
    name = "SGD" if "SGD" in str(info.value).split(":")[0] else "Adam"
    _assert_message(info.value, InputError, ValueError, name, words)


@pytest.mark.parametrize("lr, kind", [("0.1", "str"), (True, "bool"), (None, "NoneType")])
def test_settings_that_are_not_numbers_are_type_errors(lr, kind):
    """PyTorch raises a TypeError for lr='0.1'; nnbook's ArgumentError is one too."""
    with pytest.raises(ArgumentError) as info:
        SGD(_model().parameters(), lr=lr)
    _assert_message(info.value, ArgumentError, TypeError, "SGD",
                    ["invalid learning rate", f"it is a {kind}"])


@pytest.mark.parametrize("make, words", [
    (lambda ps: SGD(ps, lr="0.1"), ["invalid learning rate", "it is a str"]),
    (lambda ps: SGD(ps, lr=True), ["invalid learning rate", "it is a bool"]),
])
def test_a_setting_of_the_wrong_type_is_an_argument_error_as_pytorchs_type_error(make, words):
    with pytest.raises(ArgumentError) as info:
        make(_model().parameters())
    _assert_message(info.value, ArgumentError, TypeError, "SGD", words)


def test_good_settings_at_the_edges_are_accepted():
    ps = list(_model().parameters())
    SGD(ps, lr=0)  # PyTorch allows lr=0, momentum=0 and betas of 0
    Adam(ps, lr=np.float32(1e-3), betas=[0.0, 0.0], eps=1e-30)  # eps=0 is refused (0 / 0)
    assert Adam(ps, betas=[0.5, 0.9]).param_groups[0]["betas"] == (0.5, 0.9)


# ----------------------------------------------------------------------- gradients

BAD_GRADS = [
    ("transposed", lambda w: nb.tensor(np.zeros(w.shape[::-1], np.float32)), ShapeError,
     ValueError, ["has shape (7, 3)", "gradient (7, 3) float32", "parameter (3, 7) float32"]),
    ("broadcastable", lambda w: nb.tensor(np.zeros((1, 7), np.float32)), ShapeError,
     ValueError, ["has shape (1, 7)"]),
    ("float64", lambda w: nb.tensor(np.zeros(w.shape)), DTypeError, TypeError,
     ["is float64, the parameter float32", "p.grad.to(nb.float32)"]),
    ("ndarray", lambda w: np.zeros(w.shape, np.float32), DTypeError, TypeError,
     ["is a ndarray, not a Tensor", "nb.tensor(values, dtype=p.dtype)"]),
]


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize("make_grad, cls, builtin, words", [b[1:] for b in BAD_GRADS],
                         ids=[b[0] for b in BAD_GRADS])
def test_a_bad_gradient_is_refused_before_any_parameter_changes(kind, make_grad, cls, builtin,
                                                                words):
    model, opt = _trained(kind)
    opt.zero_grad()
    _backward(model, 99)  # 0.weight and 0.bias (updated first) get good gradients
    model[2].weight.grad = make_grad(model[2].weight)
    before = _snapshot(model, opt)
    with pytest.raises(cls) as info:
        opt.step()
    _assert_message(info.value, cls, builtin, f"{type(opt).__name__}.step()",
                    ["the gradient of 2.weight (3, 7)", "no parameter was updated"] + words)
    _assert_same(before, _snapshot(model, opt))


def test_a_parameter_in_no_model_is_described_by_its_shape():
    p = nn.Parameter(nb.zeros(3, 2))
    opt = SGD([p], lr=0.1)
    p.grad = nb.zeros(2, 3)
    with pytest.raises(ShapeError, match=r"the gradient of a parameter of shape \(3, 2\) "
                       r"\(in no model\) has shape \(2, 3\)"):
        opt.step()
    assert np.all(p.detach().numpy() == 0)


# --------------------------------------------------------------------- state dicts

@pytest.mark.parametrize("via_file", [False, True], ids=["in-memory", "nb.save"])
@pytest.mark.parametrize("source, target, with_kind, words", [
    ("sgd-nesterov", "adam", True, ["saved from SGD, and this optimizer is Adam",
                                    "saved: SGD   here: Adam", "Adam starts fresh"]),
    ("adam", "sgd-nesterov", True, ["saved from Adam, and this optimizer is SGD"]),
    ("sgd-nesterov", "adam", False, ["state entries 'momentum_buffer'", "setting(s) "
                                     "'dampening', 'momentum', 'nesterov'",
                                     "Adam's state entries: exp_avg"]),
    ("adam-amsgrad", "sgd-nesterov", False, ["state entries 'exp_avg', 'exp_avg_sq', "
                                             "'max_exp_avg_sq', 'step'", "'amsgrad', 'betas'"]),
])
def test_a_state_dict_of_another_kind_is_refused(tmp_path, via_file, source, target,
                                                 with_kind, words):
    _, saved_from = _trained(source)
    sd = saved_from.state_dict()
    if not with_kind:
        del sd["kind"]  # as a state dict made by hand, or by PyTorch's layout
    if via_file:
        nb.save(sd, tmp_path / "opt.npz")
        sd = nb.load(tmp_path / "opt.npz")
    model, opt = _trained(target, seed=1)
    before = _snapshot(model, opt)
    with pytest.raises(CheckpointError) as info:
        opt.load_state_dict(sd)
    _assert_message(info.value, CheckpointError, ValueError,
                    f"{type(opt).__name__}.load_state_dict", ["Nothing was loaded."] + words)
    _assert_same(before, _snapshot(model, opt))


def _set(path, value):
    def change(sd):
        node = sd
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _delete(path):
    def change(sd):
        node = sd
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


BROKEN = [  # each on an Adam (amsgrad) state dict whose first group also sets lr=0.5
    ("not-a-dict", lambda sd: [sd], ["needs a dict made by optimizer.state_dict(), got list"]),
    ("whole-checkpoint", lambda sd: {"model": {}, "optimizer": sd},
     ["no list of parameter groups", "its keys: ", "optimizer", "checkpoint['optimizer']"]),
    ("kind-not-a-name", _set(["kind"], 5), ["'kind' should name an optimizer, got 5"]),
    ("extra-group", lambda sd: sd["param_groups"].append(dict(sd["param_groups"][0])),
     ["has 2 parameter group(s), this Adam has 1"]),
    ("fewer-params", _set(["param_groups", 0, "params"], [0, 1, 2]),
     ["saved group 0 holds 3 parameter(s), the matching group here holds 4"]),
    ("params-not-numbers", _set(["param_groups", 0, "params"], ["a", "b", "c", "d"]),
     ["saved group 0 has no list of parameter numbers"]),
    ("repeated-param", _set(["param_groups", 0, "params"], [0, 1, 1, 2]),
     ["parameter number 1 appears twice"]),
    ("unknown-index", lambda sd: sd["state"].__setitem__(9, sd["state"][0]),
     ["the saved state is for parameter number 9, which no saved group lists"]),
    ("wrong-shape-last", _set(["state", 3, "exp_avg"], nb.zeros(4)),
     ["the saved 'exp_avg' has shape (4,), but the parameter it belongs to has shape (3,)",
      "parameter: 2.bias (3,)"]),
    ("lacks-exp_avg_sq", _delete(["state", 2, "exp_avg_sq"]),
     ["the saved state of 2.weight (3, 7) lacks exp_avg_sq"]),
    ("lacks-max", _delete(["state", 0, "max_exp_avg_sq"]), ["lacks max_exp_avg_sq"]),
    ("step-nan", _set(["state", 1, "step"], NAN), ["'step' of 0.bias (7,) must be one finite "
                                                   "number >= 0, got nan"]),
    ("step-negative", _set(["state", 1, "step"], -2.0), ["must be one finite number >= 0"]),
    ("text-state", _set(["state", 1, "exp_avg"], "zeros"),
     ["the saved 'exp_avg' of 0.bias (7,) is not a number or numeric array"]),
    ("state-not-a-dict", _set(["state", 1], 3.0), ["the saved state of parameter 1 is a ",
                                                   "not a dict"]),
    ("lr-nan", _set(["param_groups", 0, "lr"], NAN), ["invalid learning rate", "got nan"]),
    ("betas-one", _set(["param_groups", 0, "betas"], (1.0, 0.999)),
     ["invalid beta parameter at index 0"]),
    ("typo-setting", _set(["param_groups", 0, "lrr"], 0.1),
     ["holds setting(s) 'lrr', which Adam does not have"]),
]


# Through nb.save and nb.load too, where nb.save can store the broken dict.
IN_MEMORY_ONLY = {"not-a-dict", "kind-not-a-name", "params-not-numbers"}


@pytest.mark.parametrize("change, words, via_file", [
    pytest.param(change, words, via_file, id=f"{name}-{'nb.save' if via_file else 'in-memory'}")
    for name, change, words in BROKEN
    for via_file in ((False,) if name in IN_MEMORY_ONLY else (False, True))])
def test_a_broken_state_dict_is_refused_and_changes_nothing(tmp_path, change, words, via_file):
    _, saved_from = _trained("adam-amsgrad")
    saved_from.param_groups[0]["lr"] = 0.5  # if settings were applied early, lr would change
    sd = copy.deepcopy(saved_from.state_dict())
    sd = change(sd) or sd
    if via_file:
        nb.save(sd, tmp_path / "opt.npz")
        sd = nb.load(tmp_path / "opt.npz")
    model, opt = _trained("adam-amsgrad", steps=3, seed=1)
    before = _snapshot(model, opt)
    with pytest.raises(CheckpointError) as info:
        opt.load_state_dict(sd)
    _assert_message(info.value, CheckpointError, ValueError, "Adam.load_state_dict",
                    ["Nothing was loaded."] + words)
    _assert_same(before, _snapshot(model, opt))
    assert opt.param_groups[0]["lr"] == 0.01


@pytest.mark.parametrize("kind", MAKERS)
def test_a_round_trip_through_a_file_restores_kind_settings_and_state(tmp_path, kind):
    model, opt = _trained(kind, steps=3)
    first, second = list(model.parameters())[:2], list(model.parameters())[2:]
    opt2 = MAKERS[kind]([{"params": first, "lr": 0.05}, {"params": second}])
    for step in range(2):
        opt2.zero_grad()
        _backward(model, 50 + step)
        opt2.step()
    nb.save({"model": model.state_dict(), "optimizer": opt2.state_dict()},
            tmp_path / "ckpt.npz")
    checkpoint = nb.load(tmp_path / "ckpt.npz")
    assert checkpoint["optimizer"]["kind"] == type(opt2).__name__

    again = _model(seed=5)
    again.load_state_dict(checkpoint["model"])
    a, b = list(again.parameters())[:2], list(again.parameters())[2:]
    opt3 = MAKERS[kind]([{"params": a, "lr": 0.3}, {"params": b, "lr": 0.4}])
    opt3.load_state_dict(checkpoint["optimizer"])
    saved, loaded = _snapshot(model, opt2), _snapshot(again, opt3)
    assert loaded["groups"] == saved["groups"]  # lr 0.05 and the default come back
    _assert_same(saved, loaded)
    for step in range(2):  # and both continue identically
        for m, o in ((model, opt2), (again, opt3)):
            o.zero_grad()
            _backward(m, 70 + step)
            o.step()
    _assert_same(_snapshot(model, opt2), _snapshot(again, opt3))


def test_a_pytorch_layout_state_dict_without_a_kind_still_loads():
    model, opt = _trained("adam", steps=2)
    sd = opt.state_dict()
    del sd["kind"]
    model2, opt2 = _trained("adam", steps=0, seed=3)
    opt2.load_state_dict(sd)
    assert opt2.state[list(model2.parameters())[0]]["step"] == 2.0
    assert math.isclose(opt2.param_groups[0]["lr"], 0.01)


def test_a_state_dict_is_a_copy():
    model, opt = _trained("sgd-nesterov", steps=1)
    sd = opt.state_dict()
    sd["state"][0]["momentum_buffer"].detach().numpy()[...] = 123.0
    assert not np.any(np.asarray(opt.state[model[0].weight]["momentum_buffer"]) == 123.0)
