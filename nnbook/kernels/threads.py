"""Intra-op threads: a large op splits its batch into chunks that run side by side.

numpy lets go of the GIL inside its loops, copies and BLAS calls, so chunks of one
batch computed in Python threads use several cores at once (numpy alone computes
elementwise work on one core; PyTorch spreads it over all of them).

Results never depend on the number of threads: each chunk writes its own samples of
the output, and any sum over the batch is done afterwards, in one place, in the same
order as with one thread.

    nb.set_num_threads(2)   # as torch.set_num_threads: numpy's OpenBLAS too
    nb.get_num_threads()

The default is OMP_NUM_THREADS, else OPENBLAS_NUM_THREADS, else the number of cores
this process may use: the same as numpy's BLAS.

Threads are optional.  Where none can be started (Pyodide in JupyterLite, some
sandboxes) every chunk runs in the calling thread, with the same results.  After
``os.fork`` the child forgets the parent's workers and locks and starts its own.
"""
from __future__ import annotations

import os
import queue
import threading

import numpy as np

from ..errors import InputError, message
from . import scratch
from .memory import keep_freed_memory

# A chunk worth a thread: below this many values per chunk, handing it to a worker
# costs more than it saves (a worker's wake-up measured 20-100 µs on a shared VM, and
# numpy's memory-bound passes gain little from a second thread: the Xception block of
# the benchmark, all ops of 10×512×8×4 or smaller, ran 60% slower split at 1 << 16).
MIN_CHUNK = 1 << 17

_threads: int | None = None  # None: not set, read the environment
_state = threading.local()   # .inside: this thread is running a chunk already
_workers: list = []          # started worker threads, each with its own task queue
_lock = threading.Lock()     # guards _workers
_cannot_start = False        # a thread failed to start here: compute in one thread


def _default_threads() -> int:
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def get_num_threads() -> int:
    """How many threads a large op uses (see :func:`set_num_threads`)."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def set_num_threads(n: int) -> None:
    """Use up to ``n`` threads in large ops (1: everything in the calling thread)."""
    global _threads
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(message(f"set_num_threads needs a whole number of at least 1, "
                                 f"got {n!r}.", where="nb.set_num_threads", line=None,
                                 hint="e.g. nb.set_num_threads(1) to compute in one thread."))
    _threads = n
    _release_blas(n)  # as torch.set_num_threads: BLAS's own products too
    # Workers beyond n - 1 stay, idle (blocked on their queues, using no CPU); their
    # scratch arrays are freed here, with everyone's, so the memory comes back.
    scratch.release_scratch()


class _Task:
    """One chunk handed to a worker, and what the calling thread waits on."""

    __slots__ = ("part", "samples", "done", "error")

    def __init__(self, part, samples):
        self.part, self.samples = part, samples
        self.done, self.error = threading.Event(), None


class _Worker:
    """A thread that runs the chunks put in its queue, one after the other, for good."""

    def __init__(self, number: int):
        self.tasks = queue.SimpleQueue()
        thread = threading.Thread(target=self._run, name=f"nnbook-{number}", daemon=True)
        thread.start()  # RuntimeError where threads cannot start

    def _run(self):
        _blas_threads_here(1)  # a worker only runs chunks: one BLAS thread, for good
        np.seterr(all="ignore")  # this thread's own numpy settings: ops make inf and NaN
        while True:                # silently (see ops.base.quiet), in every thread
            task = self.tasks.get()
            try:
                _run_inside(task.part, task.samples)
            except BaseException as error:  # handed to the calling thread, raised there
                task.error = error
            task.done.set()


def _get_workers(count: int) -> list:
    """Up to ``count`` running workers (fewer, maybe none, where threads cannot start)."""
    global _cannot_start
    with _lock:
        while len(_workers) < count and not _cannot_start:
            try:
                _workers.append(_Worker(len(_workers) + 1))
            except RuntimeError:  # "can't start new thread": carry on in one thread
                _cannot_start = True
        return _workers[:count]


def _after_fork_in_child() -> None:
    """The child of os.fork has only the thread that forked: forget the parent's workers,
    and make new locks (another thread may have held one at the fork)."""
    global _workers, _lock, _state, _cannot_start, _blas_lock
    _workers, _lock, _state, _cannot_start = [], threading.Lock(), threading.local(), False
    _blas_lock = threading.Lock()
    scratch.after_fork_in_child()


def _before_fork() -> None:
    # Wait until no thread is inside OpenBLAS's setting, and keep others out until the
    # fork is done: it may start OpenBLAS's own threads under a lock of OpenBLAS's,
    # which a child forked meanwhile would inherit locked (and wait on for good).
    _blas_lock.acquire()


def _after_fork_in_parent() -> None:
    _blas_lock.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


def batch_chunks(n: int, values_per_sample: int) -> list:
    """Split samples 0..n-1 into slices, one per thread, each worth a thread."""
    threads = 1 if getattr(_state, "inside", False) else get_num_threads()
    count = max(1, min(threads, n, (n * values_per_sample) // MIN_CHUNK))
    bounds = [n * i // count for i in range(count + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def over_batch(part, n: int, values_per_sample: int) -> None:
    """Call ``part(samples)`` for chunks of the batch, side by side in threads.

    ``part`` must write only its own samples of any shared output; it may use
    :func:`nnbook.kernels.scratch.scratch` (kept per thread).  Chunks no worker
    takes run here, in the calling thread.
    """
    keep_freed_memory()  # once, at the first kernel call (see memory.py)
    chunks = batch_chunks(n, values_per_sample)
    if len(chunks) == 1 and getattr(_state, "inside", False):  # a chunk's own op
        part(chunks[0])
        return
    # One BLAS thread, even for a single chunk: BLAS splits some products (few rows and
    # columns, a long sum) over its threads and adds the pieces in another order, so a
    # product must run on one BLAS thread whatever the chunks, for the same bits.
    _hold_blas_at_one_thread()
    workers = _get_workers(len(chunks) - 1)
    tasks = [_Task(part, samples) for samples in chunks[1:1 + len(workers)]]
    for worker, task in zip(workers, tasks):
        worker.tasks.put(task)
    try:
        for samples in [chunks[0]] + chunks[1 + len(workers):]:
            _run_inside(part, samples)
    finally:
        for task in tasks:  # wait for all before going on
            task.done.wait()
    for task in tasks:
        if task.error is not None:
            raise task.error


def over_blocks(part, n: int, block: int, values_per_item: int) -> int:
    """Call ``part(index, items)`` for items 0..n-1 in blocks of ``block`` (the last one
    shorter), the blocks split over threads; returns the number of blocks.

    The blocks depend on ``n`` and ``block`` only, never on the number of threads, so
    a kernel that keeps one partial sum per block and adds them up in block order
    afterwards gets the same bits for any number of threads.
    """
    blocks = [slice(a, min(a + block, n)) for a in range(0, n, block)]

    def run(chunk):  # a chunk of the blocks
        for index in range(len(blocks))[chunk]:
            part(index, blocks[index])

    over_batch(run, len(blocks), block * values_per_item)
    return len(blocks)


def over_rows(part, array) -> None:
    """:func:`over_batch` along the first axis of ``array``; ``part(...)`` when it has none
    or is too small to split (so ``part`` can index every array it uses the same way)."""
    keep_freed_memory()
    if array.ndim == 0 or array.size < 2 * MIN_CHUNK or get_num_threads() == 1:
        part(...)
    else:
        over_batch(part, array.shape[0], array.size // array.shape[0])


def _run_inside(part, samples) -> None:
    _state.inside = True
    try:
        part(samples)
    finally:
        _state.inside = False


# ---------------------------------------------------------------------------
# OpenBLAS's own threads: one, once nnbook's threads have work
# ---------------------------------------------------------------------------
# Two pools of threads on the same cores slow each other down: a CNN step took 24 ms
# against 15 with BLAS's threads inside the chunks.  Nor is it enough to give BLAS its
# threads back after each split op: OpenBLAS's threads keep spinning for a while after
# each product, on the cores the next op's chunks need ((b) ran 7-17% slower so, while
# an LSTM, which splits nothing, ran 10% faster with them).  So the first op that
# splits (or runs as one chunk: see over_batch) sets OpenBLAS to one thread, and it
# stays so until nb.set_num_threads sets both again.  OpenBLAS's "per-thread" setting
# sets the whole process in the pthreads builds numpy ships (only its OpenMP builds
# keep one per thread), so it is set once, under a lock, never raced; a worker also
# sets it for itself (for the OpenMP builds) when it starts.
_blas_setter = False  # not looked up yet
_blas_lock = threading.Lock()
_blas_held = False    # OpenBLAS set to one thread by a split op (until set_num_threads)


def _hold_blas_at_one_thread() -> None:
    global _blas_held
    if not _blas_held:
        with _blas_lock:  # one thread at a time, and never across a fork (see _before_fork)
            if not _blas_held:
                _set_blas_threads(1)
                _blas_held = True


def _blas_threads_here(n):
    """Set how many threads OpenBLAS uses for calls from this thread (in its pthreads
    builds: from every thread); return the previous setting (None, and nothing done,
    where that cannot be set)."""
    with _blas_lock:
        return _set_blas_threads(n)


def _release_blas(n) -> None:
    """Give OpenBLAS ``n`` threads, held at one no longer."""
    global _blas_held
    with _blas_lock:
        _set_blas_threads(n)
        _blas_held = False


def _set_blas_threads(n):
    """:func:`_blas_threads_here` for a caller that holds ``_blas_lock``."""
    global _blas_setter
    if n is None:
        return None
    if _blas_setter is False:
        _blas_setter = _find_blas_setter()
    return None if _blas_setter is None else _blas_setter(n)


def _find_blas_setter():
    """OpenBLAS's per-thread setting (0.3.27 and later) in the library numpy loaded."""
    try:
        import ctypes

        with open("/proc/self/maps") as maps:  # the libraries this process has loaded
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
        for path in sorted(paths):
            setter = getattr(ctypes.CDLL(path), "openblas_set_num_threads_local", None)
            if setter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
                return setter
    except (OSError, ImportError):
        pass  # no /proc (not Linux), or no such library: chunks share BLAS's threads
    return None
