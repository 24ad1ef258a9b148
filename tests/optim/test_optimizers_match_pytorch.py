"""Every optimizer against PyTorch's: the same float64 model, the same loss, 20 steps, and
after every step the same parameters, the same state (entry by entry, by name) and the
same settings; state dicts of the same layout; a state dict saved half-way, through
nb.save, continues exactly as PyTorch does without stopping."""
import numpy as np
import pytest

import nnbook as nb
import nnbook.optim as optim
from nnbook import nn
from nnbook.optim import UnusedParameterWarning

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-9, 1e-11  # float64, after 20 steps of two implementations' roundings

# (optimizer, options for every group, options of the first group only, or None: one group)
CASES = [
    ("SGD", dict(lr=0.1), None),
    ("SGD", dict(lr=0.1, momentum=0.9), None),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01), None),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True),
     None),
    ("SGD", dict(lr=0.1, momentum=0.5), dict(lr=0.03, momentum=0.8, nesterov=True)),
    ("Adam", dict(lr=0.01), None),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.95), amsgrad=True, weight_decay=0.1,
                  maximize=True), None),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), None),
    ("Adam", dict(lr=0.01), dict(lr=0.03, amsgrad=True, weight_decay=0.05)),
    ("AdamW", dict(lr=0.01), None),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True, eps=1e-6), None),
    ("AdamW", dict(lr=0.01, weight_decay=0.1), dict(weight_decay=0.0, betas=(0.5, 0.9))),
    ("RMSprop", dict(lr=0.01), None),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, momentum=0.9, weight_decay=0.01),
     None),
    ("RMSprop", dict(lr=0.005, momentum=0.5, maximize=True), dict(centered=True, lr=0.01)),
    ("Adagrad", dict(lr=0.1), None),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1,
                     eps=1e-8, maximize=True), None),
    ("Adagrad", dict(lr=0.1), dict(lr=0.2, lr_decay=0.05, weight_decay=0.1)),
    ("Adadelta", dict(), None),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.01, maximize=True), None),
    ("Adadelta", dict(lr=0.5), dict(lr=0.9, rho=0.95)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in {**kw, **(first or {})}.items()) or 'defaults'}"
       + ("-two-groups" if first else "") for name, kw, first in CASES]

# Settings PyTorch keeps in its groups that choose among its implementations; nnbook
# has one implementation, and leaves them out (nnbook/optim/__init__.py).
SWITCHES = {"foreach", "fused", "capturable", "differentiable"}


def _weights(rng) -> dict:
    return {"0.weight": rng.standard_normal((7, 5)), "0.bias": rng.standard_normal(7),
            "2.weight": rng.standard_normal((3, 7)), "2.bias": rng.standard_normal(3)}


def _nnbook_model(weights):
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)).double()
    model.load_state_dict({k: nb.tensor(v.copy()) for k, v in weights.items()})
    return model


def _torch_model(weights):
    model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(),
                                torch.nn.Linear(7, 3)).double()
    model.load_state_dict({k: torch.tensor(v.copy()) for k, v in weights.items()})
    return model


def _optimizer(lib, name, model, kw, first):
    make = getattr(optim if lib is nb else torch.optim, name)
    if first is None:
        return make(model.parameters(), **kw)
    return make([{"params": model[0].parameters(), **first},
                 {"params": model[2].parameters()}], **kw)


def _step(lib, model, opt, x, y, sign):
    """One training step; maximize=True gets the negated loss, so both runs converge."""
    opt.zero_grad()
    out = model(lib.tensor(x))
    loss = sign * ((out - lib.tensor(y)) ** 2).mean()
    loss.backward()
    opt.step()


def _assert_same(nb_model, nb_opt, t_model, t_opt):
    """Parameters, each state entry by name, and each group's settings."""
    t_params = dict(t_model.named_parameters())
    for name, p in nb_model.named_parameters():
        tp = t_params[name]
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), RTOL, ATOL,
                                   err_msg=name)
        mine, theirs = nb_opt.state.get(p, {}), t_opt.state.get(tp, {})
        assert sorted(mine) == sorted(theirs), name
        for key, value in theirs.items():
            assert isinstance(mine[key], nb.Tensor), (name, key)
            ours = mine[key].numpy()
            assert ours.dtype == value.numpy().dtype, (name, key)  # step: float32, as torch
            np.testing.assert_allclose(ours, value.numpy(), RTOL, ATOL,
                                       err_msg=f"{name} {key}")
    for mine, theirs in zip(nb_opt.param_groups, t_opt.param_groups, strict=True):
        assert set(theirs) - set(mine) == SWITCHES & set(theirs)
        for key in set(mine) - {"params"}:
            assert mine[key] == pytest.approx(theirs[key], rel=1e-15), key


def _run(name, kw, first, rng):
    weights = _weights(rng)
    x, y = rng.standard_normal((9, 5)), rng.standard_normal((9, 3))
    sign = -1.0 if kw.get("maximize") else 1.0
    nb_model, t_model = _nnbook_model(weights), _torch_model(weights)
    nb_opt = _optimizer(nb, name, nb_model, kw, first)
    t_opt = _optimizer(torch, name, t_model, kw, first)
    return nb_model, nb_opt, t_model, t_opt, (x, y, sign)


@pytest.mark.parametrize("name, kw, first", CASES, ids=IDS)
def test_twenty_steps_follow_pytorchs_trajectory(name, kw, first, rng):
    nb_model, nb_opt, t_model, t_opt, data = _run(name, kw, first, rng)
    _assert_same(nb_model, nb_opt, t_model, t_opt)  # Adagrad has state before any step
    start = nb_model[0].weight.detach().numpy().copy()
    for _ in range(20):
        _step(nb, nb_model, nb_opt, *data)
        _step(torch, t_model, t_opt, *data)
        _assert_same(nb_model, nb_opt, t_model, t_opt)
    assert not np.allclose(nb_model[0].weight.detach().numpy(), start)  # it did move


@pytest.mark.parametrize("name, kw, first", CASES, ids=IDS)
def test_state_dict_has_pytorchs_layout(name, kw, first, rng):
    nb_model, nb_opt, t_model, t_opt, data = _run(name, kw, first, rng)
    for _ in range(3):
        _step(nb, nb_model, nb_opt, *data)
        _step(torch, t_model, t_opt, *data)
    mine, theirs = nb_opt.state_dict(), t_opt.state_dict()
    assert set(mine) - {"kind"} == set(theirs) and mine["kind"] == name
    assert sorted(mine["state"]) == sorted(theirs["state"])  # parameter numbers
    for index, entry in theirs["state"].items():
        assert sorted(mine["state"][index]) == sorted(entry), index
        for key, value in entry.items():
            assert isinstance(mine["state"][index][key], nb.Tensor)
            np.testing.assert_allclose(mine["state"][index][key].numpy(), value.numpy(),
                                       RTOL, ATOL, err_msg=f"{index} {key}")
    for group, t_group in zip(mine["param_groups"], theirs["param_groups"], strict=True):
        assert group["params"] == t_group["params"]
        assert set(t_group) - set(group) == SWITCHES & set(t_group)
        assert {k: group[k] for k in group} == {k: t_group[k] for k in group}


@pytest.mark.parametrize("name, kw, first", CASES, ids=IDS)
def test_a_state_dict_saved_half_way_continues_like_pytorch(name, kw, first, rng, tmp_path):
    nb_model, nb_opt, t_model, t_opt, data = _run(name, kw, first, rng)
    for _ in range(10):
        _step(nb, nb_model, nb_opt, *data)
        _step(torch, t_model, t_opt, *data)
    nb.save({"model": nb_model.state_dict(), "optimizer": nb_opt.state_dict()},
            tmp_path / "checkpoint.npz")
    checkpoint = nb.load(tmp_path / "checkpoint.npz")
    weights = {k: v.numpy() for k, v in checkpoint["model"].items()}
    resumed = _nnbook_model(weights)
    resumed_opt = _optimizer(nb, name, resumed, {**kw, "lr": 0.5}, first)  # lr is restored
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    _assert_same(resumed, resumed_opt, t_model, t_opt)
    for _ in range(10):
        _step(nb, resumed, resumed_opt, *data)
        _step(torch, t_model, t_opt, *data)
        _assert_same(resumed, resumed_opt, t_model, t_opt)


@pytest.mark.parametrize("name, kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                      ("Adam", dict(lr=0.01)), ("RMSprop", dict(lr=0.01)),
                                      ("Adagrad", dict(lr=0.1)), ("Adadelta", dict())])
def test_a_parameter_without_gradient_is_skipped_as_pytorch_skips_it(name, kw, rng):
    """Its step count and state stay behind; nnbook names it once."""
    nb_model, nb_opt, t_model, t_opt, data = _run(name, kw, None, rng)
    for step in range(6):
        for lib, model, opt in ((nb, nb_model, nb_opt), (torch, t_model, t_opt)):
            opt.zero_grad()
            out = model(lib.tensor(data[0]))
            ((out - lib.tensor(data[1])) ** 2).mean().backward()
            if step in (1, 2):
                model[2].bias.grad = None
            if lib is nb and step == 1:
                with pytest.warns(UnusedParameterWarning, match=r"2\.bias \(3,\)"):
                    opt.step()
            else:
                opt.step()
        _assert_same(nb_model, nb_opt, t_model, t_opt)
