"""Every learning-rate scheduler against PyTorch's: two parameter groups, 20 steps of
optimizer.step() then scheduler.step(), and after each the same rates (get_last_lr and
the groups' lr, momentum, betas, initial_lr, ...), the same last_epoch and the same
parameters; state dicts with PyTorch's entries; a scheduler saved half-way through nb.save,
loaded into a fresh one, continues as PyTorch's does without stopping."""
from collections import Counter

import numpy as np
import pytest

import nnbook as nb
import nnbook.optim as optim
from nnbook import nn
from nnbook.optim import lr_scheduler as nb_sched

torch = pytest.importorskip("torch")
from torch.optim import lr_scheduler as t_sched  # noqa: E402

RTOL, ATOL = 1e-12, 1e-15
GROUP_KEYS = ("lr", "momentum", "betas", "initial_lr", "max_lr", "min_lr", "max_momentum",
              "base_momentum")


class Decay:
    """A callable object as lr_lambda: its attributes are saved in the state dict."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


PLATEAU = [1.0, 0.9, 0.85, 0.85, 0.86, 0.9, 0.84, 0.84, 0.85, 0.85, 0.85, 0.86, 0.87, 0.7,
           0.7, 0.7, 0.7, 0.7, 0.7, 0.7]

# id: (optimizer, its options, make(scheduler module, optimizer), metrics or None)
CASES = {
    "StepLR": ("SGD", {}, lambda m, o: m.StepLR(o, step_size=3, gamma=0.5), None),
    # a whole float step_size, as in PyTorch's transformer tutorial (StepLR(opt, 1.0, ...))
    "StepLR-float": ("SGD", {}, lambda m, o: m.StepLR(o, 2.0, gamma=0.8), None),
    "MultiStepLR": ("SGD", {}, lambda m, o: m.MultiStepLR(o, [2, 5, 5, 11], gamma=0.3), None),
    "ExponentialLR": ("Adam", {}, lambda m, o: m.ExponentialLR(o, gamma=0.9), None),
    "CosineAnnealingLR": ("SGD", {}, lambda m, o: m.CosineAnnealingLR(o, T_max=7,
                                                                      eta_min=0.001), None),
    "CosineAnnealingWarmRestarts": ("SGD", {"momentum": 0.9}, lambda m, o:
                                    m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                  eta_min=0.001), None),
    "LambdaLR-functions": ("SGD", {}, lambda m, o: m.LambdaLR(
        o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]), None),
    "LambdaLR-callable-objects": ("SGD", {}, lambda m, o: m.LambdaLR(
        o, [Decay(0.9), Decay(0.8)]), None),
    "MultiplicativeLR": ("RMSprop", {}, lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95),
                         None),
    "LinearLR": ("AdamW", {}, lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                      total_iters=6), None),
    "ConstantLR": ("SGD", {}, lambda m, o: m.ConstantLR(o, factor=0.4, total_iters=4), None),
    "PolynomialLR": ("Adagrad", {}, lambda m, o: m.PolynomialLR(o, total_iters=8, power=2.0),
                     None),
    "OneCycleLR-SGD-cos": ("SGD", {"momentum": 0.9}, lambda m, o: m.OneCycleLR(
        o, max_lr=[0.3, 0.2], total_steps=20), None),
    "OneCycleLR-Adam-linear-three-phase": ("Adam", {}, lambda m, o: m.OneCycleLR(
        o, max_lr=0.01, epochs=4, steps_per_epoch=5, anneal_strategy="linear",
        three_phase=True, div_factor=10.0), None),
    "OneCycleLR-no-momentum": ("Adadelta", {}, lambda m, o: m.OneCycleLR(
        o, max_lr=1.0, total_steps=25, pct_start=0.2, cycle_momentum=False), None),
    "CyclicLR-SGD-triangular2": ("SGD", {"momentum": 0.9}, lambda m, o: m.CyclicLR(
        o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=3,
        mode="triangular2"), None),
    "CyclicLR-Adam-exp_range": ("Adam", {}, lambda m, o: m.CyclicLR(
        o, base_lr=0.001, max_lr=0.01, step_size_up=3, mode="exp_range", gamma=0.9), None),
    "CyclicLR-scale_fn": ("SGD", {}, lambda m, o: m.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.8 ** x,
        scale_mode="iterations", cycle_momentum=False), None),
    "SequentialLR-warmup-cosine": ("SGD", {}, lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=4), m.CosineAnnealingLR(o, T_max=10)],
        milestones=[5]), None),
    "SequentialLR-three": ("SGD", {}, lambda m, o: m.SequentialLR(
        o, [m.ConstantLR(o, factor=0.5, total_iters=2), m.ExponentialLR(o, 0.9),
            m.StepLR(o, 3, 0.5)], milestones=[3, 9]), None),
    "ChainedScheduler": ("SGD", {}, lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.5, total_iters=4), m.ExponentialLR(o, 0.9)]), None),
    "ReduceLROnPlateau-min-rel": ("SGD", {}, lambda m, o: m.ReduceLROnPlateau(
        o, factor=0.5, patience=2, cooldown=1, min_lr=[0.01, 0.0]), PLATEAU),
    "ReduceLROnPlateau-max-abs": ("Adam", {}, lambda m, o: m.ReduceLROnPlateau(
        o, mode="max", threshold_mode="abs", threshold=0.01, patience=1),
        [-x for x in PLATEAU]),
}


class Run:
    """An nnbook and a PyTorch optimizer, each with its scheduler, on the same weights."""

    def __init__(self, case, rng):
        self.opt_name, self.opt_kw, self.make, self.metrics = CASES[case]
        self.rng = rng
        weights = [rng.standard_normal((3, 2)) for _ in range(2)]
        self.nb_params = [nn.Parameter(nb.tensor(w.copy())) for w in weights]
        self.t_params = [torch.nn.Parameter(torch.tensor(w.copy())) for w in weights]
        self.nb_opt = self.optimizer(optim, self.nb_params)
        self.t_opt = self.optimizer(torch.optim, self.t_params)
        self.nb = self.make(nb_sched, self.nb_opt)
        self.t = self.make(t_sched, self.t_opt)
        self.steps = 0

    def optimizer(self, module, params):
        groups = [{"params": [p], "lr": lr} for p, lr in zip(params, (0.1, 0.05))]
        return getattr(module, self.opt_name)(groups, **self.opt_kw)

    def step(self, nb_opt=None, nb_scheduler=None, nb_params=None):
        """One optimizer step then one scheduler step, on both sides (the same gradients)."""
        grads = [self.rng.standard_normal((3, 2)) for _ in self.t_params]
        for p, g in zip(nb_params or self.nb_params, grads):
            p.grad = nb.tensor(g.copy())
        for p, g in zip(self.t_params, grads):
            p.grad = torch.tensor(g.copy())
        (nb_opt or self.nb_opt).step()
        self.t_opt.step()
        metric = () if self.metrics is None else (self.metrics[self.steps],)
        (nb_scheduler or self.nb).step(*metric)
        self.t.step(*metric)
        self.steps += 1

    def assert_same(self, nb_opt=None, nb_scheduler=None, nb_params=None):
        scheduler, opt = nb_scheduler or self.nb, nb_opt or self.nb_opt
        np.testing.assert_allclose(scheduler.get_last_lr(), self.t.get_last_lr(), RTOL, ATOL)
        assert getattr(scheduler, "last_epoch", None) == getattr(self.t, "last_epoch", None)
        for mine, theirs in zip(opt.param_groups, self.t_opt.param_groups, strict=True):
            for key in GROUP_KEYS:
                assert (key in mine) == (key in theirs), key
                if key in theirs:
                    np.testing.assert_allclose(mine[key], theirs[key], RTOL, ATOL,
                                               err_msg=key)
        for p, tp in zip(nb_params or self.nb_params, self.t_params):
            np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), 1e-10, 1e-13)


@pytest.mark.parametrize("case", CASES)
def test_twenty_steps_set_pytorchs_rates(case, rng):
    run = Run(case, rng)
    run.assert_same()  # after the first step each scheduler takes when it is built
    rates = []
    for _ in range(20):
        run.step()
        run.assert_same()
        rates.append(run.nb.get_last_lr()[0])
    assert len(set(rates)) > 1  # the schedule did change the rate


def _assert_same_state(mine: dict, theirs: dict, where: str = "") -> None:
    """nnbook's state dict holds PyTorch's entries, but those that are None (and functions,
    which neither saves), with the same values."""
    expected = {k for k, v in theirs.items() if v is not None}
    if "lr_lambdas" in theirs and all(v is None for v in theirs["lr_lambdas"]):
        expected.discard("lr_lambdas")
    assert set(mine) == expected, where
    for key in expected:
        a, b = mine[key], theirs[key]
        if key == "_schedulers":
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                _assert_same_state(x, y, f"{where}{key}.{i}.")
        elif key == "lr_lambdas":
            assert a == {str(i): v for i, v in enumerate(b) if v is not None}
        elif isinstance(b, (str, bool, Counter)) or key == "_schedule_phases":
            assert a == b, where + key
            assert type(a) is type(b), where + key
        else:
            np.testing.assert_allclose(a, b, RTOL, ATOL, err_msg=where + key)


@pytest.mark.parametrize("case", CASES)
def test_state_dict_holds_pytorchs_entries(case, rng):
    run = Run(case, rng)
    _assert_same_state(run.nb.state_dict(), run.t.state_dict())
    for _ in range(7):
        run.step()
    _assert_same_state(run.nb.state_dict(), run.t.state_dict())


@pytest.mark.parametrize("case", CASES)
def test_a_scheduler_saved_half_way_continues_like_pytorch(case, rng, tmp_path):
    run = Run(case, rng)
    for _ in range(10):
        run.step()
    nb.save({"params": {str(i): p.detach() for i, p in enumerate(run.nb_params)},
             "optimizer": run.nb_opt.state_dict(), "scheduler": run.nb.state_dict()},
            tmp_path / "checkpoint.npz")
    checkpoint = nb.load(tmp_path / "checkpoint.npz")

    # A fresh start, as a student resumes: build the optimizer and the scheduler, then load
    # the optimizer's state and the scheduler's.
    params = [nn.Parameter(checkpoint["params"][str(i)]) for i in range(2)]
    opt = run.optimizer(optim, params)
    if case == "LambdaLR-callable-objects":  # their attributes are restored
        scheduler = nb_sched.LambdaLR(opt, [Decay(0.5), Decay(0.6)])
    else:
        scheduler = run.make(nb_sched, opt)
    opt.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    run.assert_same(opt, scheduler, params)
    _assert_same_state(scheduler.state_dict(), run.t.state_dict())
    for _ in range(10):
        run.step(opt, scheduler, params)
        run.assert_same(opt, scheduler, params)


@pytest.mark.parametrize("case", CASES)
def test_a_pytorch_schedulers_state_dict_loads_and_continues_alike(case, rng):
    """PyTorch's layout (with its None entries) loads into nnbook's scheduler."""
    run = Run(case, rng)
    for _ in range(7):
        run.step()
    opt = run.optimizer(optim, run.nb_params)
    if case == "LambdaLR-callable-objects":
        scheduler = nb_sched.LambdaLR(opt, [Decay(0.5), Decay(0.6)])
    else:
        scheduler = run.make(nb_sched, opt)
    opt.load_state_dict(run.nb_opt.state_dict())
    scheduler.load_state_dict(run.t.state_dict())
    run.assert_same(opt, scheduler)
    for _ in range(7):
        run.step(opt, scheduler)
        run.assert_same(opt, scheduler)
