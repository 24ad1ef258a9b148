"""Mistakes with optimizers: building them, their settings, gradients and state dicts.

See catalogue.py for what every entry is checked for; here "unchanged" includes every
parameter's bytes and version, and the optimizer's settings and state (momentum buffers,
Adam's moments and step counts).
"""
import warnings

import numpy as np
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, CheckpointError, DTypeError, InputError, ShapeError
from nnbook.optim import SGD, Adam


def model():
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


def trained(kind=SGD, **settings):
    """A model and an optimizer that has taken one step (so it has state)."""
    m = model()
    opt = kind(m.parameters(), **settings)
    m(nb.randn(5, 4)).sum().backward()
    opt.step()
    return m, opt


def with_grad(make_grad, kind=SGD, **settings):
    """A trained model and optimizer, after a backward, with one gradient replaced by hand."""
    def setup():
        m, opt = trained(kind, **settings)
        m(nb.randn(5, 4)).sum().backward()
        m[2].weight.grad = make_grad(m[2].weight)
        return m, opt
    return setup


def used_up_parameters():
    m = model()
    params = m.parameters()
    list(params)  # e.g. counting them first uses the generator up
    return m, params


BUILDING = [
    mistake("the model instead of its parameters", model, lambda m: SGD(m, lr=0.1),
            InputError, "SGD", r"given a Module; it needs an iterable of parameters",
            r"SGD\(model\.parameters\(\), lr=\.\.\.\)"),
    mistake("a single tensor", lambda: nb.randn(3, requires_grad=True),
            lambda w: Adam(w, lr=0.1),
            InputError, "Adam", r"given a single Tensor", r"a list: \[w, b\]"),
    mistake("an empty parameter list", None, lambda: SGD([], lr=0.1),
            InputError, "SGD", r"empty parameter list", r"registered when they are assigned"),
    mistake("a parameter generator already used up", used_up_parameters,
            lambda mp: SGD(mp[1], lr=0.1),
            InputError, "SGD", r"empty parameter list", r"generator was not used up"),
    mistake("a number in the parameter list", lambda: nb.randn(3, requires_grad=True),
            lambda w: SGD([w, 0.5], lr=0.1),
            InputError, "SGD", r"item 1 of the parameters is a float", r"model\.parameters\(\)"),
    mistake("integer parameters", None, lambda: SGD([nb.arange(3)], lr=0.1),
            DTypeError, "SGD", r"int64; only floating point tensors can be optimised",
            r"dtype=nb\.float32"),
    mistake("a result instead of a leaf", lambda: nb.randn(3, requires_grad=True),
            lambda w: SGD([w * 2], lr=0.1),
            InputError, "SGD", r"not a leaf: it is the result of mul", r"requires_grad=True"),
    mistake("the same parameter twice", model,
            lambda m: SGD([*m.parameters(), m[0].weight], lr=0.1),
            InputError, "SGD", r"0\.weight \(3, 4\) was given to SGD twice", r"only one group"),
    mistake("a parameter in two groups", model,
            lambda m: SGD([{"params": m.parameters()}, {"params": m[0].parameters()}], lr=0.1),
            InputError, "SGD", r"given to SGD twice", r"no layer is in two groups"),
    mistake("a misspelt setting in a group", model,
            lambda m: SGD([{"params": m.parameters(), "learning_rate": 0.1}]),
            InputError, "SGD", r"no setting 'learning_rate'.*settings: lr", r"spelling"),
    mistake("a group without params", model, lambda m: SGD([{"lr": 0.1}]),
            InputError, "SGD", r"dict with a 'params' key", r"\{'params': model\.fc\.parameters"),
]

SETTINGS = [
    mistake("lr=nan", model, lambda m: SGD(m.parameters(), lr=float("nan")),
            InputError, "SGD", r"lr must be a finite number >= 0, got nan", r"0\.01 to 0\.1"),
    mistake("lr=inf", model, lambda m: SGD(m.parameters(), lr=float("inf")),
            InputError, "SGD", r"got inf.*turn every parameter into nan", r"0\.01 to 0\.1"),
    mistake("a negative lr", model, lambda m: Adam(m.parameters(), lr=-1e-3),
            InputError, "Adam", r"got -0\.001.*backwards", r"1e-3 for Adam"),
    mistake("lr as a string", model, lambda m: SGD(m.parameters(), lr="0.1"),
            ArgumentError, "SGD", r"got '0\.1' \(it is a str, not a number\)",
            r"a plain number, e\.g\. lr=0\.01"),
    mistake("eps=nan", model, lambda m: Adam(m.parameters(), eps=float("nan")),
            InputError, "Adam", r"eps must be a finite number >= 0, got nan", r"eps=1e-8"),
    mistake("a negative momentum", model, lambda m: SGD(m.parameters(), lr=0.1, momentum=-0.9),
            InputError, "SGD", r"momentum must be a finite number >= 0, got -0\.9",
            r"momentum=0 switches it off"),
    mistake("a negative weight decay", model,
            lambda m: SGD(m.parameters(), lr=0.1, weight_decay=-1e-4),
            InputError, "SGD", r"weight_decay.*got -0\.0001", r"weight_decay=0"),
    mistake("nesterov without momentum", model,
            lambda m: SGD(m.parameters(), lr=0.1, nesterov=True),
            InputError, "SGD", r"nesterov=True needs momentum > 0.*momentum=0",
            r"momentum=0\.9, nesterov=True"),
    mistake("a beta of 1", model, lambda m: Adam(m.parameters(), betas=(0.9, 1.0)),
            InputError, "Adam", r"beta parameter at index 1.*\[0, 1\), got \(0\.9, 1\.0\)",
            r"betas=\(0\.9, 0\.999\)"),
    mistake("a single beta", model, lambda m: Adam(m.parameters(), betas=0.9),
            InputError, "Adam", r"betas must be two numbers in \[0, 1\), got 0\.9",
            r"betas=\(0\.9, 0\.999\)"),
    mistake("lr=nan in a group added later", lambda: (model(), nn.Linear(2, 2)),
            lambda ml: SGD(ml[0].parameters(), lr=0.1).add_param_group(
                {"params": ml[1].parameters(), "lr": float("nan")}),
            InputError, "SGD", r"lr must be a finite number >= 0, got nan", r"0\.01 to 0\.1"),
]

GRADIENTS = [
    mistake("a hand-set gradient of the wrong shape", with_grad(lambda w: nb.zeros(3)),
            lambda mo: mo[1].step(),
            ShapeError, "SGD.step()", r"gradient of 2\.weight \(2, 3\) has shape \(3,\); no "
            r"parameter was updated", r"parameter's shape and dtype"),
    mistake("a transposed gradient", with_grad(lambda w: nb.zeros(3, 2), Adam, lr=0.01),
            lambda mo: mo[1].step(),
            ShapeError, "Adam.step()", r"has shape \(3, 2\).*parameter \(2, 3\) float32",
            r"parameter's shape and dtype"),
    mistake("a numpy gradient", with_grad(lambda w: np.zeros((2, 3), np.float32), momentum=0.9,
                                          lr=0.1),
            lambda mo: mo[1].step(),
            DTypeError, "SGD.step()", r"is a ndarray, not a Tensor", r"nb\.tensor\(values"),
    mistake("a float64 gradient for a float32 parameter",
            with_grad(lambda w: nb.zeros(2, 3, dtype=nb.float64), Adam),
            lambda mo: mo[1].step(),
            DTypeError, "Adam.step()", r"is float64, the parameter float32",
            r"p\.grad\.to\(nb\.float32\)"),
]

STATE_DICTS = [
    mistake("an SGD state dict loaded into Adam",
            lambda: (lambda m, opt: (Adam(m.parameters()), opt.state_dict()))(
                *trained(SGD, lr=0.1, momentum=0.9)),
            lambda ad: ad[0].load_state_dict(ad[1]),
            CheckpointError, "Adam.load_state_dict", r"saved from SGD, and this optimizer is Adam",
            r"build the same kind of optimizer as was saved \(SGD\)"),
    mistake("an SGD state dict without its kind, loaded into Adam",
            lambda: (lambda m, opt: (Adam(m.parameters()), {
                k: v for k, v in opt.state_dict().items() if k != "kind"}))(
                *trained(SGD, lr=0.1, momentum=0.9)),
            lambda ad: ad[0].load_state_dict(ad[1]),
            CheckpointError, "Adam.load_state_dict", r"setting\(s\) 'dampening', 'momentum', "
            r"'nesterov'.*which Adam does not have", r"another kind of optimizer"),
    mistake("a state dict of an optimizer over another model",
            lambda: (SGD(nn.Linear(4, 3).parameters(), lr=0.1), trained()[1].state_dict()),
            lambda od: od[0].load_state_dict(od[1]),
            CheckpointError, "SGD.load_state_dict", r"saved group 0 holds 4 parameter\(s\), the "
            r"matching group here holds 2", r"exactly as when it was saved"),
    mistake("the model's state dict into the optimizer", lambda: trained(Adam),
            lambda mo: mo[1].load_state_dict(mo[0].state_dict()),
            CheckpointError, "Adam.load_state_dict",
            r"no list of parameter groups.*its keys: 0\.weight", r"model\.load_state_dict"),
    mistake("a whole checkpoint into the optimizer", lambda: trained(Adam),
            lambda mo: mo[1].load_state_dict({"model": mo[0].state_dict(),
                                              "optimizer": mo[1].state_dict()}),
            CheckpointError, "Adam.load_state_dict", r"no list of parameter groups.*its keys: "
            r"model, optimizer", r"checkpoint\['optimizer'\]"),
    mistake("a saved lr of nan", lambda: trained(SGD, lr=0.1),
            lambda mo: mo[1].load_state_dict({**mo[1].state_dict(), "param_groups": [
                {**mo[1].state_dict()["param_groups"][0], "lr": float("nan")}]}),
            CheckpointError, "SGD.load_state_dict", r"got nan.*in saved group 0\. Nothing was "
            r"loaded", r"0\.01 to 0\.1"),
    mistake("saved moments of the wrong shape", lambda: trained(Adam),
            lambda mo: mo[1].load_state_dict({**mo[1].state_dict(), "state": {
                **mo[1].state_dict()["state"], 0: {"step": 1.0, "exp_avg": np.zeros(3),
                                                    "exp_avg_sq": np.zeros(3)}}}),
            CheckpointError, "Adam.load_state_dict", r"saved 'exp_avg' has shape \(3,\), but the "
            r"parameter it belongs to has shape \(3, 4\)", r"exactly as when it was saved"),
    mistake("a list instead of a state dict", lambda: trained()[1],
            lambda opt: opt.load_state_dict([opt.state_dict()]),
            CheckpointError, "SGD.load_state_dict", r"needs a dict made by "
            r"optimizer\.state_dict\(\), got list", r"same kind of optimizer"),
]

MISTAKES = BUILDING + SETTINGS + GRADIENTS + STATE_DICTS


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)


def test_step_before_backward_is_not_an_error_but_a_warning_with_the_fix():
    """PyTorch allows a step without gradients; nnbook allows it too, and says why
    nothing moved, naming each parameter once."""
    m = model()
    opt = SGD(m.parameters(), lr=0.1)
    before = [p.detach().numpy().copy() for p in m.parameters()]
    with pytest.warns(UserWarning) as caught:
        opt.step()
    text = str(caught[0].message)
    assert "none of its 4 parameter(s) has a gradient" in text
    assert "0.weight (3, 4)" in text and "2.bias (2,)" in text
    assert "hint: call loss.backward() before optimizer.step()" in text
    assert all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before, m.parameters()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()  # each parameter is named once
