"""nnbook.optim.lr_scheduler: PyTorch's learning-rate schedulers, with its names,
arguments, state dicts and trajectories (each rule is computed as PyTorch computes it).

    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(90):
        train(...)            # optimizer.step() for every batch
        scheduler.step()      # then the scheduler, once per epoch

Each scheduler's docstring gives its rule as maths.

Where nnbook differs from PyTorch (arguments checked when the scheduler is built, its own
error and warning classes, what state dicts keep), and why: the "schedulers" rows of the
table in ``nnbook/compat.py``, shown in docs/pytorch.md.
"""
from .base import LRScheduler, SchedulerWarning, _LRScheduler  # noqa: F401 (old tutorials)
from .combine import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cycles import CyclicLR, OneCycleLR
from .factors import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .plateau import ReduceLROnPlateau

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialLR", "LRScheduler",
           "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR",
           "PolynomialLR", "ReduceLROnPlateau", "SchedulerWarning", "SequentialLR",
           "StepLR"]
