"""Code written for torch.optim runs on nnbook.optim by changing the import: the same
argument names, order, kinds and defaults, and a warning where PyTorch warns."""
import inspect
import warnings

import numpy as np
import pytest

import nnbook as nb
import nnbook.optim as optim
from nnbook import nn
from nnbook.optim import lr_scheduler as nb_sched
from nnbook.optim.lr_scheduler import SchedulerWarning

torch = pytest.importorskip("torch")

OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"]
SCHEDULERS = [name for name in nb_sched.__all__ if name != "SchedulerWarning"]


def _parameters(cls) -> list:
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_signature_is_pytorchs(name):
    assert _parameters(getattr(optim, name)) == _parameters(getattr(torch.optim, name))


@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_signature_is_pytorchs(name):
    ours = getattr(nb_sched, name)
    assert _parameters(ours) == _parameters(getattr(torch.optim.lr_scheduler, name))
    assert issubclass(ours, nb_sched.LRScheduler)


def _pair(lib):
    if lib is nb:
        p = nn.Parameter(nb.tensor(np.ones(3)))
        return p, optim.SGD([p], lr=0.1), nb_sched
    p = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))
    return p, torch.optim.SGD([p], lr=0.1), torch.optim.lr_scheduler


@pytest.mark.parametrize("lib", [nb, torch], ids=["nnbook", "torch"])
def test_scheduler_step_before_optimizer_step_warns_once(lib):
    p, opt, sched = _pair(lib)
    scheduler = sched.StepLR(opt, step_size=2)
    expected = SchedulerWarning if lib is nb else UserWarning
    with pytest.warns(expected, match=r"before (any )?`?optimizer\.step\(\)") as record:
        scheduler.step()
    assert len(record) == 1 and record[0].filename == __file__  # the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.grad = lib.ones(3, dtype=p.dtype) if lib is torch else nb.tensor(np.ones(3))
        opt.step()
        scheduler.step()  # once is enough


@pytest.mark.parametrize("lib", [nb, torch], ids=["nnbook", "torch"])
def test_step_with_an_epoch_and_get_lr_by_hand_warn(lib):
    p, opt, sched = _pair(lib)
    scheduler = sched.StepLR(opt, step_size=2, gamma=0.5)
    p.grad = torch.ones(3, dtype=p.dtype) if lib is torch else nb.tensor(np.ones(3))
    opt.step()
    expected = SchedulerWarning if lib is nb else UserWarning
    with pytest.warns(expected, match="epoch"):
        scheduler.step(4)  # the closed form: lr * gamma ** (4 // 2)
    assert scheduler.get_last_lr() == pytest.approx([0.025])
    with pytest.warns(expected, match="get_last_lr"):
        scheduler.get_lr()


def test_nnbook_is_warned_where_torch_is_not_only_for_warm_restarts_order():
    """CosineAnnealingWarmRestarts: PyTorch forgets this warning; nnbook gives it."""
    for lib in (nb, torch):
        _, opt, sched = _pair(lib)
        scheduler = sched.CosineAnnealingWarmRestarts(opt, T_0=3)
        if lib is nb:
            with pytest.warns(SchedulerWarning, match="before any optimizer.step"):
                scheduler.step()
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                scheduler.step()
