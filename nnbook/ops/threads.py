"""Intra-op threads: a large op splits its batch into chunks that run side by side.

numpy lets go of the GIL inside its loops, copies and BLAS calls, so chunks of one
batch computed in Python threads use several cores at once (numpy alone computes
elementwise work on one core; PyTorch spreads it over all of them).

Results never depend on the number of threads: each chunk writes its own samples of
the output, and any sum over the batch is done afterwards, in one place, in the same
order as with one thread.

    nb.set_num_threads(2)   # as torch.set_num_threads
    nb.get_num_threads()

The default is OMP_NUM_THREADS, else OPENBLAS_NUM_THREADS, else the number of cores
this process may use: the same as numpy's BLAS.
"""
from __future__ import annotations

import os
import threading

from ..errors import InputError, message

# A chunk worth a thread: below this many values per chunk, starting threads costs
# more than it saves (measured: about 20 µs per extra thread and op).
MIN_CHUNK = 1 << 16

_state = threading.local()   # .inside: this thread is running a chunk already
_threads: int | None = None  # None: not set, read the environment
_pool = None                 # a concurrent.futures.ThreadPoolExecutor, made on first use
_pool_lock = threading.Lock()


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
    global _threads, _pool
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(message(f"set_num_threads needs a whole number of at least 1, "
                                 f"got {n!r}.", where="nb.set_num_threads", line=None,
                                 hint="e.g. nb.set_num_threads(1) to compute in one thread."))
    with _pool_lock:
        _threads = n
        if _pool is not None:
            _pool.shutdown(wait=True)
            _pool = None


def _forget_pool_after_fork() -> None:
    """A forked child has none of the parent's threads: it starts its own pool if needed
    (submitting to the parent's would wait forever)."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _executor():
    global _pool
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor  # only when threads are used

            _pool = ThreadPoolExecutor(max_workers=get_num_threads() - 1,
                                       thread_name_prefix="nnbook")
        return _pool


def batch_chunks(n: int, values_per_sample: int) -> list:
    """Split samples 0..n-1 into slices, one per thread, each worth a thread."""
    threads = 1 if getattr(_state, "inside", False) else get_num_threads()
    count = max(1, min(threads, n, (n * values_per_sample) // MIN_CHUNK))
    bounds = [n * i // count for i in range(count + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def over_batch(part, n: int, values_per_sample: int) -> None:
    """Call ``part(samples)`` for chunks of the batch, side by side in threads.

    ``part`` must write only its own samples of any shared output; it may use
    :func:`nnbook.ops.conv.scratch` (kept per thread).
    """
    chunks = batch_chunks(n, values_per_sample)
    if len(chunks) == 1:
        part(chunks[0])
        return
    futures = [_executor().submit(_run_inside, part, s) for s in chunks[1:]]
    try:
        _run_inside(part, chunks[0])
    finally:
        errors = [f.exception() for f in futures]  # wait for all before going on
    for error in errors:
        if error is not None:
            raise error


def _run_inside(part, samples) -> None:
    # One BLAS thread per chunk: the chunks are the parallelism (two levels of threads
    # on the same cores measured slower than one: 24 ms against 15 for a CNN step).
    before = _blas_threads_here(1)
    _state.inside = True
    try:
        part(samples)
    finally:
        _state.inside = False
        _blas_threads_here(before)


_blas_setter = False  # not looked up yet


def _blas_threads_here(n):
    """Set how many threads OpenBLAS uses for calls from this thread only; return the
    previous setting (None, and nothing done, where that cannot be set)."""
    global _blas_setter
    if _blas_setter is False:
        _blas_setter = _find_blas_setter()
    if _blas_setter is None or n is None:
        return None
    return _blas_setter(n)


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


def over_rows(part, array) -> None:
    """:func:`over_batch` along the first axis of ``array``; ``part(...)`` when it has none
    or is too small to split (so ``part`` can index every array it uses the same way)."""
    if array.ndim == 0 or array.size < 2 * MIN_CHUNK or get_num_threads() == 1:
        part(...)
    else:
        over_batch(part, array.shape[0], array.size // array.shape[0])
