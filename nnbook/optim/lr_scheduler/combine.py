"""Schedulers made of schedulers: one after another (SequentialLR, e.g. a warm-up and
then a decay), or all at once (ChainedScheduler, their factors multiplied)."""
from __future__ import annotations

from bisect import bisect_right

from ...errors import InputError, message
from .base import LRScheduler
from .checks import check_int, check_optimizer
from .plateau import ReduceLROnPlateau
from .state import plain, refuse


def _check_schedulers(where: str, schedulers, optimizer) -> list:
    """A non-empty list of nnbook schedulers, all on ``optimizer``, none a plateau one."""
    if not isinstance(schedulers, (list, tuple)) or not schedulers:
        raise InputError(message(
            f"{where} needs a list of at least one scheduler, got {schedulers!r:.60}.",
            where=where, hint=f"e.g. {where}([warmup, decay], ...), each built on the same "
            "optimizer."))
    for i, scheduler in enumerate(schedulers):
        if isinstance(scheduler, ReduceLROnPlateau):
            raise InputError(message(
                f"scheduler {i} is a ReduceLROnPlateau, whose step() needs the metric; "
                f"{where} steps its schedulers without one.", where=where,
                hint="step the ReduceLROnPlateau yourself, beside the others: "
                "plateau.step(val_loss)."))
        if not isinstance(scheduler, LRScheduler):
            raise InputError(message(
                f"scheduler {i} is a {type(scheduler).__name__}, not a learning-rate "
                "scheduler.", where=where, hint="build each with nb.optim.lr_scheduler, on "
                "the optimizer."))
        if scheduler.optimizer is not optimizer:
            raise InputError(message(
                f"scheduler {i} ({type(scheduler).__name__}) drives another optimizer than "
                f"the {type(optimizer).__name__} given.", where=where,
                hint="build every scheduler on the same optimizer."))
    return list(schedulers)


class _OfSchedulers(LRScheduler):
    """State dicts hold each scheduler's own state dict, under '_schedulers'."""

    _unsaved = ("optimizer", "_schedulers")

    def state_dict(self) -> dict:
        sd = super().state_dict()
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def _checked(self, state_dict) -> dict:
        where = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, dict):
            return super()._checked(state_dict)  # which refuses it
        inner = plain(state_dict.get("_schedulers"))
        if not isinstance(inner, list) or len(inner) != len(self._schedulers):
            refuse(where, f"the state dict should hold the states of {len(self._schedulers)} "
                   "scheduler(s) under '_schedulers'.",
                   values=f"saved: {inner!r:.60}" if inner is not None else None)
        new = super()._checked({k: v for k, v in state_dict.items() if k != "_schedulers"})
        new["_schedulers"] = [s._checked(sd) for s, sd in zip(self._schedulers, inner)]
        return new

    def _apply(self, new: dict) -> None:
        for scheduler, inner in zip(self._schedulers, new.pop("_schedulers")):
            scheduler._apply(inner)
        super()._apply(new)


class SequentialLR(_OfSchedulers):
    """schedulers[i] sets the rate from milestones[i-1] to milestones[i]; at a milestone
    the next one starts from its own epoch 0."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch: int = -1):
        name = "SequentialLR"
        check_optimizer(name, optimizer)
        schedulers = _check_schedulers(name, schedulers, optimizer)
        hint = "one milestone between each two schedulers, in increasing order: e.g. " \
            "SequentialLR(opt, [warmup, decay], milestones=[5])."
        milestones = list(milestones) if isinstance(milestones, (list, tuple)) else milestones
        if not isinstance(milestones, list) or len(milestones) != len(schedulers) - 1:
            raise InputError(message(
                f"{len(schedulers)} scheduler(s) need {len(schedulers) - 1} milestone(s), got "
                f"{milestones!r:.60}.", where=name, hint=hint))
        for m in milestones:
            check_int(name, "each milestone", m, 0, hint=hint)
        if milestones != sorted(milestones):
            raise InputError(message(f"milestones must increase, got {milestones}.",
                                     where=name, hint=hint))
        check_int(name, "last_epoch", last_epoch, -1, hint="leave it out (last_epoch=-1).")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # back to the start, before the first one
            group["lr"] = group["initial_lr"]
        self._undo(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _undo(self, scheduler) -> None:
        """Take back the first step each scheduler took when it was built."""
        for inner in getattr(scheduler, "_schedulers", ()):
            if hasattr(inner, "_schedulers"):
                self._undo(inner)
            else:
                inner.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._update_lr(0)  # the next scheduler starts at its epoch 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_OfSchedulers):
    """Every step steps each scheduler in turn, so their factors multiply (chainable
    schedulers only, the ones computed from the current rate)."""

    def __init__(self, schedulers, optimizer=None):
        name = "ChainedScheduler"
        if optimizer is not None:
            check_optimizer(name, optimizer)
        elif isinstance(schedulers, (list, tuple)) and schedulers:
            optimizer = getattr(schedulers[0], "optimizer", None)
        self._schedulers = _check_schedulers(name, schedulers, optimizer)
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
