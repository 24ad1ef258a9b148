"""The run-time context: what is going on while nnbook computes.

All the state that changes while a model runs lives here, in one small module that
every floor may read (it imports nothing from nnbook):

* **grad mode** -- whether ops record a graph (``no_grad``, ``enable_grad``,
  ``set_grad_enabled``, ``inference_mode``);
* **the module stack** -- the layers whose ``forward`` is running, outermost first, so
  an error deep inside an op can say ``features.2 (Conv2d)``;
* **observers** -- objects that watch a run (shape-only passes, recordings, anomaly
  detection); there is one way to watch a run, :class:`Observer`;
* **kernels** -- whether registered faster implementations replace the reference ops
  (``reference_ops()`` turns them off);
* **the clock** -- one counter that numbers the graph's nodes and the in-place changes,
  so a backward can tell whether a value it saved was changed after it was saved.

The hot paths pay one truth test for the observers (``if context.observers:``).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import itertools

# ---------------------------------------------------------------------------
# Grad mode
# ---------------------------------------------------------------------------
grad_enabled = True


def is_grad_enabled() -> bool:
    """True when ops record the graph that ``backward()`` walks."""
    return grad_enabled


class set_grad_enabled:
    """Switch graph recording on or off: as a call, a ``with`` block or a decorator.

    ``nb.set_grad_enabled(False)`` switches it off until switched on again, as in
    PyTorch; ``with nb.set_grad_enabled(is_training):`` only for the block.
    """

    def __init__(self, mode: bool):
        global grad_enabled
        self.prev = grad_enabled
        self.mode = bool(mode)
        grad_enabled = self.mode

    def __enter__(self):
        global grad_enabled
        grad_enabled = self.mode
        return self

    def __exit__(self, *exc):
        global grad_enabled
        grad_enabled = self.prev
        return False

    def _fresh(self):
        """A new context for one decorated call (each call restores its own mode)."""
        return set_grad_enabled(self.mode)

    def __call__(self, func):
        global grad_enabled
        grad_enabled = self.prev  # as a decorator, building it must not switch the mode

        @functools.wraps(func)
        def inner(*args, **kwargs):
            with self._fresh():
                return func(*args, **kwargs)
        return inner


class no_grad(set_grad_enabled):
    """Inside ``with nb.no_grad():`` ops record no graph (evaluation, parameter updates)."""

    def __init__(self):
        self.prev, self.mode = grad_enabled, False

    def __enter__(self):
        global grad_enabled
        self.prev, grad_enabled = grad_enabled, False
        return self

    def _fresh(self):
        return copy.copy(self)  # __enter__ remembers the mode it replaces


class enable_grad(no_grad):
    """Record the graph again inside a ``no_grad`` block."""

    def __enter__(self):
        global grad_enabled
        self.prev, grad_enabled = grad_enabled, True
        return self


class inference_mode(no_grad):
    """PyTorch's faster ``no_grad`` for inference; in nnbook the same as ``no_grad``."""

    def __init__(self, mode: bool = True):
        super().__init__()
        self.mode = not mode

    def __enter__(self):
        global grad_enabled
        self.prev, grad_enabled = grad_enabled, self.mode and grad_enabled
        return self


# ---------------------------------------------------------------------------
# The clock
# ---------------------------------------------------------------------------
# One counter numbers the graph's nodes as they are made (``node.seq``) and the
# in-place changes as they happen, so "was this tensor changed after that node saved
# it?" is one comparison (autograd/saved.py).  ``last_write`` is the clock at the last
# in-place change anywhere: a backward through nodes made after it has nothing to check.
tick = itertools.count(1).__next__
last_write = 0


def count_write(counter) -> None:
    """Count one in-place change of a tensor's memory; ``counter`` is the tensor's
    [version, clock at its last change], shared with its views."""
    global last_write
    counter[0] += 1
    counter[1] = last_write = tick()


# ---------------------------------------------------------------------------
# The module stack
# ---------------------------------------------------------------------------
# (path, module) of every module whose forward is running, outermost first; pushed
# and popped by Module.__call__.  Lower floors read it without knowing what a Module
# is: errors name the innermost entry as "features.2 (Conv2d)".
module_stack: list[tuple[str, object]] = []


def layer_name(path: str, module) -> str:
    """'features.2 (Conv2d)', or just 'Net' for the outermost model (path '').

    ``module`` may be a module or a class name; every message that names a layer
    uses this one function.
    """
    cls = module if isinstance(module, str) else type(module).__name__
    return f"{path} ({cls})" if path else cls


def current_layer() -> str | None:
    """The innermost running layer as 'features.2 (Conv2d)', or None outside any."""
    if not module_stack:
        return None
    return layer_name(*module_stack[-1])


# ---------------------------------------------------------------------------
# Observers: the one way to watch a run
# ---------------------------------------------------------------------------

class Observer:
    """Something that watches ops, module calls and backward steps; override what you need.

    ``meta = True`` asks for a shape-only pass: every op runs its shape rule and
    returns a tensor with a shape and no memory.
    """

    meta = False
    wants_sites = False  # True: remember the user's line that made each op (slower)

    def module_started(self, module, path: str, inputs) -> None:
        pass

    def module_ended(self, module, path: str, inputs, output) -> None:
        pass

    def op_ran(self, op, inputs, out) -> None:
        pass

    def backward_step(self, op, grad_out, grads) -> None:
        """After each node of a backward: ``grads`` per input, fitted to its shape."""

    def recurrent_step(self, module, index: int, t: int, h) -> None:
        """A recurrent layer computed h_t (a tensor) of its layer-and-direction ``index``."""


observers: list[Observer] = []


@contextlib.contextmanager
def watching(observer: Observer):
    """Install ``observer`` for the duration of a ``with`` block."""
    observers.append(observer)
    try:
        yield observer
    finally:
        observers.remove(observer)


def shape_only() -> bool:
    """True inside a shape-only pass (``nb.infer_shapes``): nothing is computed."""
    return any(o.meta for o in observers)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------
kernels_enabled = True


@contextlib.contextmanager
def reference_ops():
    """Compute with the reference ops only, every faster kernel switched off.

        with nb.reference_ops():
            y = model(x)        # the clear numpy of nnbook/ops, nothing else

    The results agree with the kernels' to rounding; the reference is slower.
    """
    global kernels_enabled
    previous, kernels_enabled = kernels_enabled, False
    try:
        yield
    finally:
        kernels_enabled = previous
