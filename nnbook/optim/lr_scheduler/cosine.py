"""Cosine annealing (Loshchilov & Hutter, SGDR, 2017): the rate follows half a cosine
from lr_0 (the group's initial_lr) down to eta_min; with warm restarts it starts again."""
from __future__ import annotations

import math

from ...errors import InputError, message
from .base import LRScheduler
from .checks import check_int, check_real


class CosineAnnealingLR(LRScheduler):
    """lr_e = eta_min + (lr_0 - eta_min) * (1 + cos(pi * e / T_max)) / 2

    computed, as in PyTorch, from the current rate, so it can be chained: after T_max the
    cosine goes on, back up to lr_0 at 2 * T_max.
    """

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        check_real("CosineAnnealingLR", "T_max", T_max, low=0, low_open=True,
                   hint="the number of epochs (or steps) from lr down to eta_min, e.g. "
                   "T_max=100.")
        check_real("CosineAnnealingLR", "eta_min", eta_min,
                   hint="the lowest rate, reached at T_max, e.g. eta_min=0.0.")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups, e, T, low = self.optimizer.param_groups, self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and e > 0:  # resumed at epoch e: the closed form
            return [low + (base_lr - low) * (1 + math.cos(e * math.pi / T)) / 2
                    for base_lr in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:  # at the bottom: the ratio below would be 0 / 0
            return [group["lr"] + (base_lr - low) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
        return [ratio * (group["lr"] - low) + low for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """lr = eta_min + (lr_0 - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2,

    where T_cur counts the epochs since the last restart and T_i is the length of this
    cycle: T_0, then T_0 * T_mult, T_0 * T_mult**2, ...  ``step(epoch)`` may be given a
    fractional epoch (epoch + batch / batches) to move within an epoch.
    """

    def __init__(self, optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1):
        name = "CosineAnnealingWarmRestarts"
        check_int(name, "T_0", T_0, 1, hint="the length of the first cycle, e.g. T_0=10.")
        check_int(name, "T_mult", T_mult, 1,
                  hint="how much longer each cycle is than the last, e.g. T_mult=2 (or 1).")
        check_real(name, "eta_min", eta_min, hint="the lowest rate, e.g. eta_min=0.0.")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]

    def step(self, epoch=None) -> None:
        """The next epoch, or ``epoch`` (which may be fractional).  Unlike the other
        schedulers, PyTorch does not count these steps (``_step_count`` stays 0)."""
        if not self._is_initial:
            self._check_order()
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # a restart
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._jump(epoch)
        self.last_epoch = math.floor(epoch)
        self._check_groups()
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _jump(self, epoch) -> None:
        """T_cur and T_i at ``epoch``: which cycle it falls in, and how far into it."""
        if not (isinstance(epoch, (int, float)) and not isinstance(epoch, bool)
                and epoch >= 0 and math.isfinite(epoch)):
            raise InputError(message(
                f"step(epoch) needs a number >= 0, got {epoch!r:.40}.",
                where="CosineAnnealingWarmRestarts.step()",
                hint="call scheduler.step() once per epoch, or scheduler.step(epoch + "
                "i / iters) within an epoch."))
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:  # cycles end at T_0 * (T_mult**n - 1) / (T_mult - 1)
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n
