"""Schedulers refuse what a student can get wrong -- what they are built on, each argument,
a lambda that returns no factor, stepping past the end, a state dict that does not fit --
with four-part errors, and a refused load changes nothing."""
import copy
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, CheckpointError, InputError, NnbookError
from nnbook.optim import SGD, Adagrad, Adam
from nnbook.optim import lr_scheduler as S


def _opt(groups=1, kind=SGD, **kw):
    params = [nn.Parameter(nb.tensor(np.ones((3, 2)))) for _ in range(groups)]
    return kind([{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)], **kw)


def _step(opt):
    for group in opt.param_groups:
        for p in group["params"]:
            p.grad = nb.tensor(np.full((3, 2), 0.5))
    opt.step()


def _assert_four_parts(err, where, words):
    text = str(err)
    assert isinstance(err, NnbookError)
    assert text.startswith(where + ": "), text
    assert "test_scheduler_misuse_refused.py" in text and "\n  hint: " in text, text
    for word in words:
        assert word in text, f"{word!r} not in:\n{text}"


TYPES = [  # ArgumentError, a TypeError (PyTorch's TypeError: "... is not an Optimizer")
    (lambda o: S.StepLR(nn.Linear(2, 3), 3), "StepLR",
     ["Linear is not an optimizer", "pass the optimizer, not the model"]),
    (lambda o: S.ExponentialLR(SGD, 0.9), "ExponentialLR",
     ["SGD is not an optimizer", "build the optimizer first"]),
    (lambda o: S.OneCycleLR(None, max_lr=0.1, total_steps=10), "OneCycleLR",
     ["NoneType is not an optimizer"]),
    (lambda o: S.ReduceLROnPlateau([o]), "ReduceLROnPlateau", ["list is not an optimizer"]),
    (lambda o: S.StepLR(o, 2.5), "StepLR", ["step_size must be an int, got 2.5"]),
    (lambda o: S.ExponentialLR(o, "0.9"), "ExponentialLR", ["gamma must be a number"]),
    (lambda o: S.LambdaLR(o, 0.95), "LambdaLR", ["lr_lambda must be a function, got 0.95"]),
    (lambda o: S.MultiplicativeLR(o, [None]), "MultiplicativeLR", ["must be a function"]),
    (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=1.5),
     "CosineAnnealingWarmRestarts", ["T_mult must be an int"]),
    (lambda o: S.StepLR(o, 3, last_epoch=None), "StepLR", ["last_epoch must be an int"]),
    (lambda o: S.OneCycleLR(o, 0.1, 10, three_phase="yes"), "OneCycleLR",
     ["three_phase must be True or False"]),
]


@pytest.mark.parametrize("make, where, words", TYPES)
def test_an_argument_of_the_wrong_type_is_an_argument_error(make, where, words):
    with pytest.raises(ArgumentError) as info:
        make(_opt())
    assert isinstance(info.value, TypeError)
    _assert_four_parts(info.value, where, words)


VALUES = [  # InputError, a ValueError
    (lambda o: S.StepLR(o, 0), "StepLR", ["step_size must be an int >= 1, got 0"]),
    (lambda o: S.StepLR(o, 3, gamma=0), "StepLR", ["gamma must be a finite number > 0"]),
    (lambda o: S.ExponentialLR(o, gamma=float("nan")), "ExponentialLR", ["gamma", "nan"]),
    (lambda o: S.MultiStepLR(o, [3, -1]), "MultiStepLR", ["each milestone must be an int >= 0"]),
    (lambda o: S.MultiStepLR(o, 30), "MultiStepLR", ["milestones must be a list of epochs"]),
    (lambda o: S.CosineAnnealingLR(o, T_max=0), "CosineAnnealingLR",
     ["T_max must be a finite number > 0, got 0"]),
    (lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=-0.1), "CosineAnnealingLR",
     ["eta_min must be a finite number >= 0"]),
    (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=0), "CosineAnnealingWarmRestarts",
     ["T_0 must be an int >= 1"]),
    (lambda o: S.ConstantLR(o, factor=1.5), "ConstantLR", ["factor must be a number in (0, 1]"]),
    (lambda o: S.ConstantLR(o, factor=0), "ConstantLR", ["factor must be a number in (0, 1]"]),
    (lambda o: S.LinearLR(o, start_factor=0), "LinearLR", ["start_factor", "(0, 1]"]),
    (lambda o: S.LinearLR(o, end_factor=2), "LinearLR", ["end_factor", "[0, 1]"]),
    (lambda o: S.LinearLR(o, total_iters=0), "LinearLR", ["total_iters must be an int >= 1"]),
    (lambda o: S.PolynomialLR(o, power=-1), "PolynomialLR", ["power"]),
    (lambda o: S.LambdaLR(o, [lambda e: 1.0] * 2), "LambdaLR",
     ["the optimizer has 1 group(s), the list has 2"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1), "OneCycleLR",
     ["the length of the cycle is missing", "total_steps=None, epochs=None", "len(train_loader)"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1, epochs=5), "OneCycleLR",
     ["the length of the cycle is missing"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=0), "OneCycleLR",
     ["total_steps must be an int >= 1"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=0.1), "OneCycleLR",
     ["phase 1 of the cycle has no steps", "divide by zero"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=1.5), "OneCycleLR",
     ["pct_start must be a number in [0, 1]"]),
    (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="cosine"),
     "OneCycleLR", ["anneal_strategy must be one of 'cos', 'linear'"]),
    (lambda o: S.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=10), "OneCycleLR",
     ["max_lr must have one value per parameter group", "1 group(s), max_lr has 2"]),
    (lambda o: S.CyclicLR(o, 0.01, 0.1, mode="triangle"), "CyclicLR", ["mode must be one of"]),
    (lambda o: S.CyclicLR(o, -0.01, 0.1), "CyclicLR", ["base_lr must be a finite number >= 0"]),
    (lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=0), "CyclicLR", ["step_size_up"]),
    (lambda o: S.CyclicLR(_opt(kind=Adagrad), 0.01, 0.1), "CyclicLR",
     ["Adagrad has none", "cycle_momentum=False"]),
    (lambda o: S.OneCycleLR(_opt(kind=Adagrad), 0.1, 10), "OneCycleLR", ["Adagrad has none"]),
    (lambda o: S.ReduceLROnPlateau(o, mode="minimum"), "ReduceLROnPlateau",
     ["mode must be one of 'min', 'max'"]),
    (lambda o: S.ReduceLROnPlateau(o, factor=1.0), "ReduceLROnPlateau",
     ["factor must be a number in (0, 1)"]),
    (lambda o: S.ReduceLROnPlateau(o, patience=-1), "ReduceLROnPlateau", ["patience"]),
    (lambda o: S.ReduceLROnPlateau(o, min_lr=[0.0, 0.1]), "ReduceLROnPlateau",
     ["min_lr must have one value per parameter group"]),
    (lambda o: S.StepLR(o, 3, last_epoch=4), "StepLR",
     ["last_epoch=4 resumes a schedule", "no 'initial_lr'", "load_state_dict"]),
    (lambda o: S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(o, 0.9)], milestones=[]),
     "SequentialLR", ["2 scheduler(s) need 1 milestone(s)"]),
    (lambda o: S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(o, 0.9),
                                  S.StepLR(o, 2)], milestones=[5, 3]),
     "SequentialLR", ["milestones must increase"]),
    (lambda o: S.SequentialLR(o, [S.ReduceLROnPlateau(o)], milestones=[]), "SequentialLR",
     ["is a ReduceLROnPlateau, whose step() needs the metric"]),
    (lambda o: S.ChainedScheduler([S.ConstantLR(o), S.ExponentialLR(_opt(), 0.9)]),
     "ChainedScheduler", ["scheduler 1 (ExponentialLR) drives another optimizer"]),
    (lambda o: S.ChainedScheduler([]), "ChainedScheduler", ["at least one scheduler"]),
]


@pytest.mark.parametrize("make, where, words", VALUES)
def test_a_bad_value_is_an_input_error(make, where, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # building two schedulers may warn on the way
        with pytest.raises(InputError) as info:
            make(_opt())
    assert isinstance(info.value, ValueError)
    _assert_four_parts(info.value, where, words)


def test_a_lambda_that_returns_no_factor_is_refused_at_that_step():
    opt = _opt(groups=2)
    scheduler = S.LambdaLR(opt, [lambda e: 1.0, lambda e: None if e == 2 else 0.5])
    _step(opt)
    scheduler.step()
    _step(opt)
    with pytest.raises(InputError) as info:
        scheduler.step()
    _assert_four_parts(info.value, "LambdaLR.step()",
                       ["lr_lambda of parameter group 1 returned None at epoch 2"])
    scheduler = S.MultiplicativeLR(opt, lambda e: -0.5)
    _step(opt)
    with pytest.raises(InputError, match="returned -0.5 at epoch 1"):
        scheduler.step()


def test_one_cycle_refuses_a_step_past_its_end():
    opt = _opt(momentum=0.9)
    scheduler = S.OneCycleLR(opt, max_lr=0.1, total_steps=4)
    for _ in range(4):
        _step(opt)
        scheduler.step()
    _step(opt)
    with pytest.raises(InputError) as info:
        scheduler.step()
    _assert_four_parts(info.value, "OneCycleLR.step()",
                       ["stepped 5 times, but the schedule has total_steps=4", "once per batch"])


def test_a_group_added_after_the_scheduler_is_refused_at_the_next_step():
    opt = _opt()
    scheduler = S.ExponentialLR(opt, 0.9)
    opt.add_param_group({"params": [nn.Parameter(nb.tensor(np.zeros((3, 2))))]})
    _step(opt)
    with pytest.raises(InputError) as info:
        scheduler.step()
    _assert_four_parts(info.value, "ExponentialLR.step()",
                       ["the optimizer has 2 parameter group(s), but the scheduler was built "
                        "for 1", "add every group first"])


def test_plateau_needs_its_metric():
    scheduler = S.ReduceLROnPlateau(_opt())
    with pytest.raises(ArgumentError) as info:
        scheduler.step()
    _assert_four_parts(info.value, "ReduceLROnPlateau.step()", ["needs the metric",
                                                                "scheduler.step(val_loss)"])
    with pytest.raises(ArgumentError, match="one-element tensor"):
        scheduler.step(nb.ones(3))
    scheduler.step(nb.tensor(0.5))  # a one-element tensor is a metric
    assert scheduler.best == 0.5


def test_initial_lr_and_base_lrs_are_set_as_pytorch_sets_them():
    opt = _opt(groups=2)
    scheduler = S.StepLR(opt, 2)
    assert [g["initial_lr"] for g in opt.param_groups] == scheduler.base_lrs == [0.1, 0.2]
    opt.param_groups[0]["lr"] = 0.7  # a second scheduler keeps the first's initial_lr
    assert S.ExponentialLR(opt, 0.9).base_lrs == [0.1, 0.2]
    resumed = S.StepLR(opt, 2, last_epoch=6)  # groups with initial_lr can resume
    assert resumed.last_epoch == 7 and resumed.base_lrs == [0.1, 0.2]


def test_a_subclass_of_the_old_name_works_as_in_old_tutorials():
    class Halving(S._LRScheduler):
        def get_lr(self):
            return [base * 0.5 ** self.last_epoch for base in self.base_lrs]

    opt = _opt()
    scheduler = Halving(opt)
    _step(opt)
    scheduler.step()
    scheduler.step()
    assert scheduler.get_last_lr() == [0.025] and opt.param_groups[0]["lr"] == 0.025


def _trained(make, steps=4):
    opt = _opt(groups=2)
    scheduler = make(opt)
    metric = [1.0] if isinstance(scheduler, S.ReduceLROnPlateau) else []
    for _ in range(steps):
        _step(opt)
        scheduler.step(*metric)
    return opt, scheduler


BROKEN = [  # (scheduler, change the state dict, words)
    (lambda o: S.StepLR(o, 3), lambda sd: [sd], ["needs a dict made by scheduler.state_dict()"]),
    (lambda o: S.CosineAnnealingLR(o, 10), lambda sd: {**sd, "step_size": 3, "gamma": 0.1},
     ["holds 'gamma', 'step_size', which CosineAnnealingLR does not have", "another kind"]),
    (lambda o: S.StepLR(o, 3), lambda sd: {**sd, "base_lrs": [0.1]},
     ["the saved 'base_lrs' has 1 value(s), this scheduler has 2"]),
    (lambda o: S.StepLR(o, 3), lambda sd: {**sd, "gamma": "half"},
     ["the saved 'gamma' should be a number, got 'half'"]),
    (lambda o: S.StepLR(o, 3), lambda sd: {**sd, "last_epoch": 2.5},
     ["the saved 'last_epoch' should be a whole number"]),
    (lambda o: S.ReduceLROnPlateau(o), lambda sd: {**sd, "mode": "lowest"},
     ["the saved 'mode' is 'lowest'"]),
    (lambda o: S.SequentialLR(o, [S.LinearLR(o), S.StepLR(o, 2)], [3]),
     lambda sd: {**sd, "_schedulers": sd["_schedulers"][:1]},
     ["should hold the states of 2 scheduler(s)"]),
    (lambda o: S.SequentialLR(o, [S.LinearLR(o), S.StepLR(o, 2)], [3]),
     lambda sd: {**sd, "_schedulers": [sd["_schedulers"][0], {**sd["_schedulers"][1],
                                                               "T_max": 4}]},
     ["StepLR.load_state_dict", "'T_max', which StepLR does not have"]),
]


@pytest.mark.parametrize("make, change, words", BROKEN)
def test_a_state_dict_that_does_not_fit_is_refused_and_changes_nothing(make, change, words):
    _, saved_from = _trained(make, steps=5)
    sd = change(copy.deepcopy(saved_from.state_dict()))
    opt, scheduler = _trained(make, steps=2)
    before = copy.deepcopy(scheduler.state_dict())
    with pytest.raises(CheckpointError) as info:
        scheduler.load_state_dict(sd)
    text = str(info.value)
    assert "Nothing was loaded." in text and "\n  hint: " in text
    for word in words:
        assert word in text, text
    assert scheduler.state_dict() == before


def test_a_state_dict_round_trip_through_nb_save_restores_every_type(tmp_path):
    opt, scheduler = _trained(lambda o: S.MultiStepLR(o, [2, 2, 5], gamma=0.5), steps=3)
    nb.save({"scheduler": scheduler.state_dict()}, tmp_path / "s.npz")
    _, fresh = _trained(lambda o: S.MultiStepLR(o, [1], gamma=0.9), steps=0)
    fresh.load_state_dict(nb.load(tmp_path / "s.npz")["scheduler"])
    assert fresh.state_dict() == scheduler.state_dict()
    assert type(fresh.milestones[2]) is int and type(fresh.last_epoch) is int
    assert all(type(lr) is float for lr in fresh.get_last_lr())


def test_adam_cycles_its_beta1_as_momentum():
    opt = _opt(kind=Adam)
    S.OneCycleLR(opt, max_lr=0.01, total_steps=10, base_momentum=0.8, max_momentum=0.9)
    assert opt.param_groups[0]["betas"] == (0.9, 0.999)
    assert opt.param_groups[0]["base_momentum"] == 0.8


def test_a_scheduler_that_fails_while_it_is_built_leaves_the_groups_as_they_were():
    opt = _opt(groups=2, momentum=0.5)
    before = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    with pytest.raises(ZeroDivisionError):
        S.LambdaLR(opt, lambda epoch: 1 / epoch)  # fails at epoch 0
    with pytest.raises(ZeroDivisionError):
        S.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1 / (x - 1))
    with pytest.raises(InputError):
        S.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: None)
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == before


def test_a_scheduler_without_get_lr_says_what_to_define_and_leaves_the_optimizer_alone():
    w = nb.zeros(3, 2, requires_grad=True)
    optimizer = nb.optim.SGD([{"params": [w]}, {"params": [nb.zeros(5, requires_grad=True)],
                                                "lr": 0.3}], lr=0.1)
    before = [dict(g) for g in optimizer.param_groups]

    class Halving(nb.optim.lr_scheduler.LRScheduler):  # forgot get_lr
        pass

    with pytest.raises(NotImplementedError) as info:
        Halving(optimizer)
    text = str(info.value)
    assert isinstance(info.value, nb.NnbookError)
    assert "Halving does not define get_lr()" in text and "base_lrs [0.1, 0.3]" in text
    assert "\n  hint: define get_lr(self)" in text
    assert [dict(g) for g in optimizer.param_groups] == before  # no 'initial_lr' left behind
