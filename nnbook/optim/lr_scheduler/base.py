"""LRScheduler: what every learning-rate scheduler shares, with PyTorch's protocol.

A scheduler sets ``group['lr']`` of each of its optimizer's parameter groups.  When it
is built it stores each group's starting rate as ``group['initial_lr']`` (and in
``base_lrs``) and takes a first step, to epoch 0; then ``scheduler.step()`` -- after
``optimizer.step()``, once per epoch (or per batch for OneCycleLR and CyclicLR) --
moves ``last_epoch`` on by one and sets the next rates.  ``get_last_lr()`` reads them.

Subclasses define ``get_lr()``, the rates for ``last_epoch``.  As in PyTorch it is
usually *chainable*: computed from the groups' current rates, so that two schedulers
can act on one optimizer; ``_get_closed_form_lr()``, where there is one, gives the rate
at any epoch directly (for the deprecated ``step(epoch)``).
"""
from __future__ import annotations

import math
from contextlib import contextmanager

from ...errors import InputError, NnbookError, message, warn_from_user_code
from ..checks import is_number
from .checks import check_int, check_optimizer
from .state import refuse, restore


@contextmanager
def unchanged_on_error(optimizer):
    """If building a scheduler fails (a lambda that fails at epoch 0), leave the
    optimizer's groups as they were."""
    saved = [dict(group) for group in optimizer.param_groups]
    try:
        yield
    except BaseException:
        for group, before in zip(optimizer.param_groups, saved):
            group.clear()
            group.update(before)
        raise


class SchedulerError(NnbookError, NotImplementedError):
    """A scheduler subclass that lacks ``get_lr`` (PyTorch raises NotImplementedError)."""


class SchedulerWarning(UserWarning):
    """A scheduler used in a way that skips or hides part of its schedule."""


class LRScheduler:
    """Base class of the schedulers (``last_epoch=-1`` starts a new schedule)."""

    _get_lr_called_within_step = False
    _is_initial = False
    _unsaved = ("optimizer",)  # attributes that state_dict() leaves out

    def __init__(self, optimizer, last_epoch: int = -1):
        name = type(self).__name__
        check_optimizer(name, optimizer)
        check_int(name, "last_epoch", last_epoch, -1, hint="leave it out to start the "
                  "schedule (last_epoch=-1); to resume, load the scheduler's state_dict.")
        self.optimizer = optimizer
        groups = optimizer.param_groups
        lacking = [i for i, g in enumerate(groups) if "initial_lr" not in g]
        if last_epoch != -1 and lacking:
            keys = ", ".join(k for k in groups[lacking[0]] if k != "params")
            raise InputError(message(
                f"last_epoch={last_epoch} resumes a schedule, but parameter group(s) "
                f"{', '.join(map(str, lacking))} of the optimizer have no 'initial_lr' (the "
                "rate the schedule started from).", where=name, values=f"group keys: {keys}",
                hint="to resume, build the scheduler with last_epoch=-1 and load its "
                "state: scheduler.load_state_dict(checkpoint['scheduler']) (after "
                "optimizer.load_state_dict, whose groups hold 'initial_lr')."))
        with unchanged_on_error(optimizer):
            for group in groups:
                group.setdefault("initial_lr", group["lr"])
            self.base_lrs = [group["initial_lr"] for group in groups]
            self.last_epoch = last_epoch
            self._initial_step()

    def _initial_step(self) -> None:
        """Count no steps yet, and take the first one (to epoch 0)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    # -- stepping -------------------------------------------------------------------
    def get_lr(self) -> list:
        """The rates for ``last_epoch``; ``step()`` calls it (to read them, use
        ``get_last_lr()``).  Subclasses define it."""
        name = type(self).__name__
        raise SchedulerError(message(
            f"{name} does not define get_lr(), which step() calls for the new rates.",
            where=name, values=f"base_lrs {self.base_lrs}   last_epoch {self.last_epoch}",
            hint="define get_lr(self) to return one learning rate per parameter group for "
            "self.last_epoch (e.g. [lr * 0.9 ** self.last_epoch for lr in self.base_lrs]), "
            "or use a ready scheduler such as LambdaLR."))

    def get_last_lr(self) -> list:
        """The learning rates the last step set, one per parameter group."""
        return list(self._last_lr)

    def step(self, epoch=None) -> None:
        """Move to the next epoch and set the optimizer's learning rates.

        ``step(epoch)`` jumps to ``epoch`` instead (deprecated in PyTorch; it warns).
        """
        if self._step_count == 1:
            self._check_order()
        self._step_count += 1
        if epoch is not None:
            self._warn_epoch(epoch)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        self._check_groups()
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _set_lrs(self, values) -> None:
        """Give each group its new rate, once every rate has been checked."""
        values = list(values)
        for i, lr in enumerate(values):
            if not (is_number(lr) and math.isfinite(lr)):
                raise InputError(message(
                    f"the schedule gives parameter group {i} the learning rate {lr!r:.40} at "
                    f"epoch {self.last_epoch}; a learning rate must be a finite number.",
                    where=f"{type(self).__name__}.step()", values=f"all rates: {values!r:.80}",
                    hint="check what computes it (get_lr, scale_fn) at this epoch: it should "
                    "return a number for every group."))
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _check_groups(self) -> None:
        groups, built = len(self.optimizer.param_groups), len(self.base_lrs)
        if groups != built:
            raise InputError(message(
                f"the optimizer has {groups} parameter group(s), but the scheduler was built "
                f"for {built}.", where=f"{type(self).__name__}.step()",
                hint="a group added with add_param_group() after the scheduler has no place "
                "in its schedule: add every group first, then build the scheduler."))

    def _warn_outside_step(self) -> None:
        """get_lr() read by hand: PyTorch warns too (it computes, it does not read)."""
        if not self._get_lr_called_within_step:
            warn_from_user_code(SchedulerWarning(message(
                "get_lr() computes the next learning rates from the current ones; called "
                "outside step() it does not tell the rates in use.",
                where=f"{type(self).__name__}.get_lr()",
                hint="read the current rates with scheduler.get_last_lr().", line=False)))

    def _check_order(self) -> None:
        if getattr(self.optimizer, "_opt_called", False):
            return
        warn_from_user_code(SchedulerWarning(message(
            "scheduler.step() was called before any optimizer.step(): the first learning "
            "rate of the schedule was never used, and the schedule runs one step ahead.",
            where=f"{type(self).__name__}.step()",
            values=f"rates never used: {self._last_lr}",
            hint="in each step (or epoch) call optimizer.step() first, then "
            "scheduler.step(), as in PyTorch since version 1.1.", line=False)))

    def _warn_epoch(self, epoch) -> None:
        if not is_number(epoch):
            raise InputError(message(
                f"step(epoch) needs a number, got {epoch!r:.40}.",
                where=f"{type(self).__name__}.step()",
                hint="call scheduler.step() without an argument, once per epoch."))
        warn_from_user_code(SchedulerWarning(message(
            f"step({epoch}) jumps the schedule to epoch {epoch}; PyTorch has deprecated the "
            "epoch argument, and the rate then comes from the schedule's closed form where "
            "it has one, which can differ from stepping there one epoch at a time.",
            where=f"{type(self).__name__}.step()",
            hint="call scheduler.step() without an argument, once per epoch.", line=False)))

    # -- state dicts ----------------------------------------------------------------
    def state_dict(self) -> dict:
        """Every attribute but the optimizer, as in PyTorch, leaving out those that are
        None (nb.save stores numbers and strings; a missing entry loads as unchanged)."""
        return {key: _copy(value) for key, value in vars(self).items()
                if key not in self._unsaved and value is not None}

    def load_state_dict(self, state_dict) -> None:
        """Restore what ``state_dict()`` saved (directly or through nb.save and nb.load).

        Every entry is checked against this scheduler's own -- its name, type and, for
        per-group lists, length -- before anything changes.
        """
        self._apply(self._checked(state_dict))

    def _checked(self, state_dict) -> dict:
        """The new attributes, or a CheckpointError; changes nothing."""
        where = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, dict):
            refuse(where, f"it needs a dict made by scheduler.state_dict(), got "
                   f"{type(state_dict).__name__}.")
        mine = {k: v for k, v in vars(self).items() if k not in self._unsaved}
        unknown = sorted(str(k) for k in state_dict if k not in mine and
                         k not in self._optional())
        if unknown:
            refuse(where, f"the state dict holds {', '.join(map(repr, unknown))}, which "
                   f"{type(self).__name__} does not have.",
                   values=f"{type(self).__name__}'s entries: {', '.join(sorted(mine))}",
                   hint="it was probably saved from another kind of scheduler; build that "
                   "kind before loading, or start this one fresh.")
        return {key: None if value is None else restore(where, key, value, mine.get(key))
                for key, value in state_dict.items()}  # None: PyTorch's layout, kept

    def _optional(self) -> tuple:
        """Entries a saved dict may hold that this scheduler's attributes lack (None)."""
        return ()

    def _apply(self, new: dict) -> None:
        self.__dict__.update(new)


class _LRScheduler(LRScheduler):
    """The old name of LRScheduler, which older tutorials subclass."""


def _copy(value):
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return type(value)({k: _copy(v) for k, v in value.items()})
    return value
