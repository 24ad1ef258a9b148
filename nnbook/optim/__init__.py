"""nnbook.optim: PyTorch's optimizers and learning-rate schedulers, with its names,
defaults, update rules and state dicts, so that ``import nnbook.optim as optim`` can
stand in for ``import torch.optim as optim``.

    opt = nb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = nb.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
        scheduler.step()

Each optimizer's file gives its update rule as maths, in its docstring.

Where nnbook differs from PyTorch (settings refused where they can only be a mistake,
``foreach``/``fused`` accepted and ignored, strict parameter groups, state dicts that are
copies and name their kind, Adagrad's per-group accumulator, steps that check every
gradient first), and why: the "optimizers" rows of the table in ``nnbook/compat.py``,
shown in docs/pytorch.md.
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer, UnusedParameterWarning
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD",
           "UnusedParameterWarning", "lr_scheduler"]
