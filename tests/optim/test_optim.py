"""Optimizers: update rules worked by hand, argument errors, groups, state dicts, the warning."""
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import CheckpointError, DTypeError, InputError
from nnbook.optim import SGD, Adam, UnusedParameterWarning


def _param(values, dtype=np.float32):
    return nn.Parameter(np.array(values, dtype=dtype))


def _set_grad(p, values):
    p.grad = nb.tensor(np.array(values, dtype=p.dtype))


def test_sgd_momentum_nesterov_and_weight_decay_by_hand():
    p = _param([1.0, -2.0, 0.5])
    opt = SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)
    expected, buf = p.detach().numpy().astype(np.float64), None
    for g in ([0.3, 0.2, -0.1], [0.1, -0.4, 0.2], [-0.2, 0.1, 0.0]):
        _set_grad(p, g)
        opt.step()
        d = np.array(g) + 0.01 * expected
        buf = d.copy() if buf is None else 0.9 * buf + d  # the first buffer is the gradient
        expected = expected - 0.1 * (d + 0.9 * buf)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-6)
    assert p.detach().numpy().dtype == np.float32


def test_sgd_dampening_and_plain():
    p, q = _param([1.0, 2.0]), _param([3.0])
    opt = SGD([{"params": [p], "momentum": 0.5, "dampening": 0.5}, {"params": [q]}], lr=1.0)
    for _ in range(2):
        _set_grad(p, [1.0, 1.0])
        _set_grad(q, [2.0])
        opt.step()
    # p: buf = 1, then 0.5*1 + 0.5*1 = 1 -> two steps of 1
    np.testing.assert_allclose(p.detach().numpy(), [-1.0, 0.0])
    np.testing.assert_allclose(q.detach().numpy(), [-1.0])
    assert "momentum_buffer" not in opt.state.get(q, {})


def test_adam_by_hand_with_bias_correction_and_amsgrad():
    for amsgrad in (False, True):
        p = _param([0.5, -1.5], np.float64)
        opt = Adam([p], lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1,
                   amsgrad=amsgrad)
        x, m, v, vmax = p.detach().numpy().copy(), 0.0, 0.0, 0.0
        for t, g in enumerate(([0.2, -0.1], [-0.3, 0.4], [0.05, 0.0]), start=1):
            _set_grad(p, g)
            opt.step()
            d = np.array(g) + 0.1 * x
            m = 0.8 * m + 0.2 * d
            v = 0.9 * v + 0.1 * d * d
            vmax = np.maximum(vmax, v)
            vhat = (vmax if amsgrad else v) / (1 - 0.9 ** t)
            x = x - 0.01 * (m / (1 - 0.8 ** t)) / (np.sqrt(vhat) + 1e-6)
        np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-6, atol=1e-12)
        assert opt.state[p]["step"] == 3


def test_adamw_by_hand_decay_scaled_by_the_learning_rate():
    from nnbook.optim import AdamW

    p = _param([0.5, -1.5], np.float64)
    opt = AdamW([p], lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.3)
    x, m, v = p.detach().numpy().copy(), 0.0, 0.0
    for t, g in enumerate(([0.2, -0.1], [-0.3, 0.4], [0.05, 0.0]), start=1):
        _set_grad(p, g)
        opt.step()
        x = x * (1 - 0.05 * 0.3)                 # decoupled: p shrinks by lr * weight_decay
        m = 0.8 * m + 0.2 * np.array(g)         # the moments see the plain gradient
        v = 0.9 * v + 0.1 * np.array(g) ** 2
        x = x - 0.05 * (m / (1 - 0.8 ** t)) / (np.sqrt(v / (1 - 0.9 ** t)) + 1e-6)
    np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("make, match", [
    (lambda p: SGD([p], lr=-0.1), r"invalid learning rate: lr must be a finite number >= 0, "
     r"got -0.1"),
    (lambda p: SGD([], lr=0.1), "empty parameter list"),
    (lambda p: SGD(iter([]), lr=0.1), "empty parameter list"),
    (lambda p: SGD([p, p], lr=0.1), r"given to SGD twice"),
    (lambda p: Adam([{"params": [p]}, {"params": [p]}]), "twice"),
    (lambda p: SGD([p * 2], lr=0.1), r"not a leaf: it is the result of mul"),
    (lambda p: SGD(nn.Linear(2, 2), lr=0.1), r"was given a Module[\s\S]*model.parameters"),
    (lambda p: SGD(p, lr=0.1), "a single Tensor"),
    (lambda p: SGD([3.0], lr=0.1), "is a float, not a Tensor"),
    (lambda p: SGD([p], lr=0.1, momentum=0, nesterov=True), "nesterov=True needs momentum"),
    (lambda p: Adam([p], betas=(0.9, 1.5)), "invalid beta parameter at index 1: betas must "
     r"be two numbers in \[0, 1\)"),
    (lambda p: SGD([{"params": [p], "lrr": 0.1}], lr=0.1), "no setting 'lrr'"),
])
def test_clear_errors_for_bad_arguments(make, match):
    p = _param([1.0, 2.0])
    with pytest.raises(InputError, match=match):
        make(p)


def test_integer_tensor_refused():
    with pytest.raises(DTypeError, match="only floating point tensors can be optimised"):
        SGD([nb.tensor([1, 2])], lr=0.1)


def test_zero_grad_and_the_default_set_to_none():
    p = _param([1.0])
    opt = SGD([p], lr=0.1)
    _set_grad(p, [2.0])
    opt.zero_grad(set_to_none=False)
    assert p.grad.numpy().tolist() == [0.0]
    opt.zero_grad()
    assert p.grad is None


def test_warning_names_parameters_without_gradient_once():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.used = nn.Linear(3, 2)
            self.unused = nn.Linear(3, 4)

        def forward(self, x):
            return self.used(x)

    model = Model()
    stray = nn.Parameter(nb.zeros(5, 2))
    opt = SGD(list(model.parameters()) + [stray], lr=0.1)
    model(nb.ones(7, 3)).sum().backward()
    with pytest.warns(UnusedParameterWarning) as record:
        opt.step()
    assert len(record) == 1
    text = str(record[0].message)
    assert "3 of its 5 parameter(s) received no gradient" in text
    assert "unused.weight (4, 3)" in text and "unused.bias (4,)" in text
    assert "a parameter of shape (5, 2) (in no model)" in text
    assert "probably not used in the forward pass" in text
    assert record[0].filename == __file__  # points at the user's line, not at nnbook
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()  # once per parameter, not every step


def test_frozen_parameters_are_skipped_quietly():
    layer = nn.Linear(3, 2)
    layer.bias.requires_grad_(False)
    opt = SGD(layer.parameters(), lr=0.1)
    layer(nb.ones(4, 3)).sum().backward()
    bias = layer.bias.detach().numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    np.testing.assert_array_equal(layer.bias.detach().numpy(), bias)


def test_step_before_backward_says_so():
    p = _param([1.0])
    with pytest.warns(UnusedParameterWarning, match=r"none of its 1 parameter\(s\) has a "
                      r"gradient[\s\S]*call loss.backward\(\) before optimizer.step\(\)"):
        SGD([p], lr=0.1).step()


def test_closure_and_param_group_settings():
    p = _param([1.0])
    opt = SGD([{"params": [p], "lr": 0.5}], lr=0.1)
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["momentum"] == 0

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 1.0
    np.testing.assert_allclose(p.detach().numpy(), [0.0])  # 1 - 0.5 * 2


@pytest.mark.parametrize("make", [
    lambda ps: SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: Adam(ps, lr=0.01, amsgrad=True),
])
def test_state_dict_round_trip_continues_identically(make, tmp_path):
    nb.manual_seed(3)
    grads = [np.random.default_rng(i).standard_normal((3, 2)).astype(np.float32)
             for i in range(4)]
    a, b = _param(np.ones((3, 2))), _param(np.ones((3, 2)))
    opt_a, opt_b = make([a]), make([b])
    for g in grads[:2]:
        a.grad = nb.tensor(g)
        opt_a.step()
    b.detach().numpy()[...] = a.detach().numpy()
    nb.save(opt_a.state_dict(), tmp_path / "opt.npz")
    opt_b.load_state_dict(nb.load(tmp_path / "opt.npz"))
    for g in grads[2:]:
        a.grad, b.grad = nb.tensor(g), nb.tensor(g)
        opt_a.step()
        opt_b.step()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_state_dict_refuses_a_different_layout():
    opt = SGD([_param([1.0]), _param([2.0])], lr=0.1, momentum=0.9)
    other = SGD([_param([1.0])], lr=0.1, momentum=0.9)
    with pytest.raises(CheckpointError, match="holds 1 parameter"):
        opt.load_state_dict(other.state_dict())
    with pytest.raises(CheckpointError, match="parameter group"):
        opt.load_state_dict({"param_groups": [], "state": {}})


def test_state_dict_layout_is_pytorchs():
    p = _param([1.0, 2.0])
    opt = Adam([p], lr=0.01)
    _set_grad(p, [0.1, 0.2])
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups", "kind"} and sd["kind"] == "Adam"
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert sd["param_groups"][0]["params"] == [0]
    assert sd["param_groups"][0]["betas"] == (0.9, 0.999)
