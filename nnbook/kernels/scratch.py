"""Scratch arrays, reused from call to call.

Writing a freshly allocated large array costs a page fault (and the kernel zeroing
the page) every 4 KiB; for a convolution that was ~40% of its time.  Arrays that
never leave one call of a kernel's forward or backward (columns, planes,
temporaries) therefore come from here: one buffer per named slot and dtype, kept
per thread.  Two arrays alive at the same time must use different slots, and
nothing from here may be returned or saved on the op.

The buffers grow to the largest call seen and stay; :func:`release_scratch` gives
the memory back (every thread's), and ``nb.set_num_threads`` and a fork call it.
"""
from __future__ import annotations

import math
import threading
import weakref

import numpy as np

_local = threading.local()         # .buffers: this thread's _Buffers
_every = weakref.WeakSet()         # every thread's buffers (a thread's go when it ends)
_every_lock = threading.Lock()


class _Buffers:
    """One thread's scratch arrays: {(slot, dtype): 1-D array}."""

    def __init__(self):
        self.arrays = {}


def scratch(slot: str, shape, dtype, fill=None) -> np.ndarray:
    """A reusable array of ``shape`` (contents undefined unless ``fill`` is given)."""
    buffers = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = _Buffers()
        with _every_lock:
            _every.add(buffers)
    dtype, size = np.dtype(dtype), math.prod(shape)
    buffer = buffers.arrays.get((slot, dtype))
    if buffer is None or buffer.size < size:
        buffer = buffers.arrays[(slot, dtype)] = np.empty(size, dtype=dtype)
    array = buffer[:size].reshape(shape)
    if fill is not None:
        array.fill(fill)
    return array


def release_scratch() -> None:
    """Free the scratch arrays of every thread (arrays in use stay valid until dropped)."""
    with _every_lock:
        for buffers in list(_every):
            buffers.arrays = {}


def scratch_bytes() -> int:
    """How much memory the scratch arrays of every thread hold now."""
    with _every_lock:
        return sum(b.nbytes for buffers in list(_every) for b in buffers.arrays.values())


def after_fork_in_child() -> None:
    """A forked child keeps only the forking thread: new lock, no buffers."""
    global _every_lock, _every, _local
    _every_lock, _every, _local = threading.Lock(), weakref.WeakSet(), threading.local()


def zeros(shape, dtype, skip=False) -> np.ndarray:
    """A new array of zeros (``skip``: the caller overwrites all of it anyway).

    np.empty + fill rather than np.zeros: glibc serves large calloc requests with
    fresh pages, and first touches of fresh pages are what ``scratch`` avoids.
    """
    out = np.empty(shape, dtype=dtype)
    if not skip:
        out.fill(0)
    return out
