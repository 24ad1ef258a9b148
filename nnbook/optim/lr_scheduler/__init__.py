"""nnbook.optim.lr_scheduler: PyTorch's learning-rate schedulers, with its names,
arguments, state dicts and trajectories (each rule is computed as PyTorch computes it).

    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(90):
        train(...)            # optimizer.step() for every batch
        scheduler.step()      # then the scheduler, once per epoch

Each scheduler's docstring gives its rule as maths.

Where nnbook differs from PyTorch, on purpose:

- Arguments are checked when the scheduler is built, with a four-part error, also
  where PyTorch checks nothing or fails later: a gamma <= 0, a step_size, T_max or
  total_iters < 1, a lambda that is not a function, ConstantLR's factor=0 (PyTorch
  divides by it), a OneCycleLR phase with no steps (PyTorch divides by zero in it),
  ReduceLROnPlateau's factor <= 0.  A rate a schedule computes must be a finite
  number >= 0 (a lambda returning -0.1 or None is refused at that step).
- A scheduler needs an nnbook optimizer (an ArgumentError, PyTorch's TypeError);
  resuming with last_epoch >= 0 on groups without 'initial_lr' is an InputError (a
  ValueError; PyTorch raises a KeyError).
- The misuses PyTorch warns about give a SchedulerWarning (a UserWarning) pointing
  at your line: scheduler.step() before optimizer.step(), step(epoch), get_lr()
  read outside step().  CosineAnnealingWarmRestarts warns about the order too.
- state_dict() leaves out entries that are None (nb.save stores numbers and strings),
  and saves a lambda that is a callable object as {group: its attributes} rather
  than a list with None for plain functions; both layouts load.  load_state_dict
  checks every entry (name, type, one value per group) before changing anything.
- OneCycleLR's pct_start may be any number in [0, 1] (PyTorch wants a float).
"""
from .base import LRScheduler, SchedulerWarning, _LRScheduler  # noqa: F401 (old tutorials)
from .combine import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cycles import CyclicLR, OneCycleLR
from .factors import (ConstantLR, ExponentialLR, LambdaLR, LinearLR, MultiplicativeLR,
                      MultiStepLR, PolynomialLR, StepLR)
from .plateau import ReduceLROnPlateau

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialLR", "LRScheduler",
           "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR",
           "PolynomialLR", "ReduceLROnPlateau", "SchedulerWarning", "SequentialLR",
           "StepLR"]
