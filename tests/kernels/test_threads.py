"""Intra-op threads (nnbook/kernels/threads.py): the same bits whatever the number of threads.

Every test here sets the number of threads itself and compares 2 and 3 threads against 1,
bit for bit, on batches large enough to be split, with odd sizes so the chunks differ in
length.  Threads are optional (where none can start, everything runs in the calling
thread), and a forked child starts threads of its own.
"""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import nnbook as nb
from nnbook.kernels import depthwise, im2col, scratch, threads
from nnbook.nn import functional as F


@pytest.fixture(autouse=True)
def restore_threads(monkeypatch):
    # The sizes below are chosen to split into chunks of at least this many values.
    monkeypatch.setattr(threads, "MIN_CHUNK", 1 << 16)
    before = nb.get_num_threads()
    yield
    nb.set_num_threads(before)


@pytest.fixture
def chunks_made(monkeypatch):
    """How many chunks each split made, to check that the batches here were split."""
    made, split = [], threads.batch_chunks

    def counting(*args):
        chunks = split(*args)
        made.append(len(chunks))
        return chunks
    monkeypatch.setattr(threads, "batch_chunks", counting)
    return made


def openblas_threads():
    """OpenBLAS's thread settings in this process, as threadpoolctl reads them."""
    import threadpoolctl

    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["internal_api"] == "openblas"]


def run(threads_n, fn, *arrays):
    """fn's output and every input's gradient, with ``threads_n`` threads."""
    nb.set_num_threads(threads_n)
    inputs = [nb.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*inputs)
    out.backward(nb.tensor(np.cos(np.arange(out.detach().numpy().size)).reshape(out.shape)
                           .astype(out.dtype)))
    return [out.detach().numpy()] + [t.grad.numpy() for t in inputs]


def same_bits(chunks_made, splits, fn, *arrays):
    """fn with 1, 2 and 3 threads: the same bits; with 3, ``splits`` ops split in 3."""
    one = run(1, fn, *arrays)
    for n in (2, 3):
        chunks_made.clear()
        for a, b in zip(one, run(n, fn, *arrays)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)  # bit for bit, not just close
    assert chunks_made.count(3) == splits, chunks_made
    return one


def test_a_batch_splits_into_one_chunk_per_thread_each_worth_it():
    nb.set_num_threads(3)
    chunks = threads.batch_chunks(13, threads.MIN_CHUNK // 4)
    assert chunks == [slice(0, 4), slice(4, 8), slice(8, 13)]  # all, in order, once
    assert threads.batch_chunks(13, threads.MIN_CHUNK // 6) == [slice(0, 6), slice(6, 13)]
    assert threads.batch_chunks(13, 10) == [slice(0, 13)]  # too little work: one chunk
    assert threads.batch_chunks(2, threads.MIN_CHUNK) == [slice(0, 1), slice(1, 2)]
    nb.set_num_threads(1)
    assert threads.batch_chunks(13, threads.MIN_CHUNK) == [slice(0, 13)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_is_the_same_with_threads(rng, dtype, chunks_made):
    x = rng.standard_normal((13, 8, 47, 41)).astype(dtype)   # 200 408 values: 3 chunks
    x[0, 0, 0, :3] = [0.0, -0.0, np.nan]
    out, grad = same_bits(chunks_made, 2, lambda t: t.relu(), x)  # forward and backward
    np.testing.assert_array_equal(out, np.where(x > 0, x, x * 0))


def test_tiled_max_pool_is_the_same_with_threads(rng, chunks_made):
    x = rng.standard_normal((13, 8, 47, 41)).astype(np.float32)
    x[1, 2, :2, :2] = 7.0                                     # a tie: the first tap wins
    out, grad = same_bits(chunks_made, 2, lambda t: F.max_pool2d(t, 2), x)
    assert out.shape == (13, 8, 23, 20)
    assert grad[1, 2, 0, 0] != 0 and (grad[1, 2, :2, :2] != 0).sum() == 1


@pytest.mark.parametrize("pool", [lambda t: F.max_pool2d(t, 3, 2, 1),
                                  lambda t: F.avg_pool2d(t, (3, 2), 1, (1, 0), ceil_mode=True)],
                         ids=["max", "avg"])
def test_pooling_over_planes_is_the_same_with_threads(rng, pool, chunks_made):
    x = rng.standard_normal((5, 7, 37, 29)).astype(np.float32)  # channels split: 7 = 2 + 2 + 3
    same_bits(chunks_made, 2, pool, x)


def test_max_pooling_channels_last_is_the_same_with_threads(rng, chunks_made):
    x = rng.standard_normal((13, 96, 9, 7)).astype(np.float32)  # many channels, small maps
    x[3, 5, :3, :3] = 2.0                                     # a tie: the first tap wins
    same_bits(chunks_made, 1, lambda t: F.max_pool2d(t, 3, 2, 1), x)  # (backward: a bincount)


@pytest.mark.parametrize("stride, padding, groups", [(1, 1, 1), (2, 0, 2), (1, (2, 0), 1)])
def test_conv2d_im2col_is_the_same_with_threads(rng, stride, padding, groups, chunks_made,
                                                monkeypatch):
    monkeypatch.setattr(im2col, "BLOCK_VALUES", 1 << 16)  # blocks of one or two samples
    x = rng.standard_normal((7, 8, 61, 47)).astype(np.float32)
    w = rng.standard_normal((6, 8 // groups, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    out, grad_x, grad_w, grad_b = same_bits(chunks_made, 2,
        lambda x, w, b: F.conv2d(x, w, b, stride=stride, padding=padding, groups=groups), x, w, b)
    assert grad_w.shape == w.shape and grad_x.shape == x.shape


@pytest.mark.parametrize("stride, padding, dilation", [(1, 1, 1), ((2, 1), (1, 0), (1, 2))])
def test_conv2d_depthwise_is_the_same_with_threads(rng, stride, padding, dilation, chunks_made,
                                                  monkeypatch):
    monkeypatch.setattr(depthwise, "BLOCK_VALUES", 1 << 17)
    x = rng.standard_normal((13, 11, 45, 41)).astype(np.float32)  # blocks of 5, 5 and 3 samples
    w = rng.standard_normal((11, 1, 3, 2)).astype(np.float32)
    b = rng.standard_normal(11).astype(np.float32)
    same_bits(chunks_made, 2, lambda x, w, b: F.conv2d(
        x, w, b, stride=stride, padding=padding, dilation=dilation, groups=11), x, w, b)


@pytest.mark.parametrize("stride", [1, (2, 3)])
def test_conv2d_pointwise_is_the_same_with_threads(rng, stride, chunks_made):
    x = rng.standard_normal((7, 12, 91, 83)).astype(np.float32)
    w = rng.standard_normal((10, 12, 1, 1)).astype(np.float32)
    same_bits(chunks_made, 2, lambda x, w: F.conv2d(x, w, stride=stride), x, w)


def test_an_error_in_a_chunk_reaches_the_caller():
    nb.set_num_threads(2)
    seen = []

    def part(samples):
        seen.append((samples, threading.current_thread().name))
        if samples.start > 0:
            raise ValueError("chunk failed")

    with pytest.raises(ValueError, match="chunk failed"):
        threads.over_batch(part, 8, threads.MIN_CHUNK)
    assert sorted(s.start for s, _ in seen) == [0, 4]
    assert any(name.startswith("nnbook") for _, name in seen)  # one ran in a worker


def test_a_chunk_does_not_split_again():
    nb.set_num_threads(2)
    inner = []
    threads.over_batch(lambda s: inner.append(threads.batch_chunks(8, threads.MIN_CHUNK)),
                       8, threads.MIN_CHUNK)
    assert inner == [[slice(0, 8)], [slice(0, 8)]]


def test_set_num_threads_sets_blas_and_a_split_op_holds_it_at_one_thread(rng):
    """As torch.set_num_threads, BLAS's own products get that many threads; once an op is
    split over nnbook's threads, BLAS stays at one (two pools on the same cores slow each
    other down) until set_num_threads sets both again."""
    x = nb.tensor(rng.standard_normal((8, 3, 64, 128)).astype(np.float32))
    for n in (2, 3, 1):
        nb.set_num_threads(n)
        assert openblas_threads() in ([n], [])  # [] : numpy without OpenBLAS
        nb.tensor(rng.standard_normal((5, 7))) @ nb.tensor(rng.standard_normal((7, 3)))
        assert openblas_threads() in ([n], [])  # a product alone changes nothing
        F.relu(x)  # 8 samples of 24 576 values: split in n (one chunk for n = 1)
        assert openblas_threads() in ([1], [])


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_set_num_threads_wants_a_positive_whole_number(bad):
    with pytest.raises(ValueError, match=r"set_num_threads needs a whole number of at least 1"
                                         r"(.|\n)*hint: e\.g\. nb\.set_num_threads\(1\)"):
        nb.set_num_threads(bad)


def test_the_default_follows_the_blas_environment(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert threads._default_threads() == 3
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert threads._default_threads() == 2
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "")
    assert threads._default_threads() >= 1


# ---------------------------------------------------------------------------
# Threads are optional
# ---------------------------------------------------------------------------

@pytest.fixture
def fresh_workers(monkeypatch):
    """No worker started yet (restored afterwards), so thread starts can be made to fail."""
    monkeypatch.setattr(threads, "_workers", [])
    monkeypatch.setattr(threads, "_cannot_start", False)


def conv_and_relu(x, w):
    return F.relu(F.conv2d(x, w, padding=1))


@pytest.mark.parametrize("starts_before_failing", [0, 1])
def test_where_threads_cannot_start_everything_runs_in_one(rng, starts_before_failing,
                                                           fresh_workers, monkeypatch):
    """As in Pyodide or a sandbox: Thread.start raises RuntimeError; no error, same bits."""
    x = rng.standard_normal((7, 8, 41, 37)).astype(np.float32)
    w = rng.standard_normal((6, 8, 3, 2)).astype(np.float32)
    expected = run(1, conv_and_relu, x, w)
    real_start, started = threading.Thread.start, []

    def start(thread):
        if len(started) >= starts_before_failing:
            raise RuntimeError("can't start new thread")
        started.append(thread)
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    for a, b in zip(expected, run(3, conv_and_relu, x, w)):
        np.testing.assert_array_equal(a, b)
    assert threads._cannot_start and len(threads._workers) == starts_before_failing
    for a, b in zip(expected, run(3, conv_and_relu, x, w)):  # and again, without retrying
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------
# Scratch memory
# ---------------------------------------------------------------------------

def test_release_scratch_frees_every_threads_buffers(rng):
    nb.set_num_threads(2)
    x = nb.tensor(rng.standard_normal((8, 16, 45, 39)).astype(np.float32))
    w = nb.tensor(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    F.conv2d(x, w, padding=1)
    held = scratch.scratch_bytes()
    assert held > x.numpy().nbytes  # planes and columns, in this thread and a worker's
    nb.kernels.release_scratch()
    assert scratch.scratch_bytes() == 0
    F.conv2d(x, w, padding=1)
    nb.set_num_threads(1)            # a new setting releases them too
    assert scratch.scratch_bytes() == 0


# ---------------------------------------------------------------------------
# Fork
# ---------------------------------------------------------------------------

FORK_WHILE_BUSY = textwrap.dedent("""
    import os, sys, threading, time
    import numpy as np
    import nnbook as nb
    from nnbook.nn import functional as F

    nb.set_num_threads(2)
    rng = np.random.default_rng(0)
    x = nb.tensor(rng.standard_normal((6, 16, 41, 37)).astype(np.float32))
    w = nb.tensor(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    dw = nb.tensor(rng.standard_normal((16, 1, 3, 3)).astype(np.float32))

    def work():  # im2col and depthwise convolutions, split over the two threads
        return F.relu(F.conv2d(F.conv2d(x, w, padding=1), dw, padding=1, groups=16)).numpy()

    expected = work()
    stop = threading.Event()

    def busy():  # threaded ops and the default generator, while the main thread forks
        while not stop.is_set():
            work()
            nb.randn(1000)
            nb.kernels.release_scratch()

    other = threading.Thread(target=busy)
    other.start()
    for i in range(FORKS):
        time.sleep(0.003 * (i % 7))  # fork at different moments of the other's work
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                ok = np.array_equal(work(), expected) and nb.randn(3).shape == (3,)
                code = 0 if ok else 1
            finally:
                os._exit(code)
        deadline = time.monotonic() + CHILD_SECONDS
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                print(f"child {i} hung", flush=True)
                os._exit(2)
            time.sleep(0.01)
        if not (os.WIFEXITED(done[1]) and os.WEXITSTATUS(done[1]) == 0):
            print(f"child {i} failed: status {done[1]}", flush=True)
            os._exit(3)
    stop.set()
    other.join()
    print("all children finished", flush=True)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_children_compute_with_threads_while_the_parent_is_busy():
    """Fork 30 times while another thread runs threaded ops and draws random numbers:
    every child must finish a threaded convolution quickly, with the right result."""
    script = f"FORKS, CHILD_SECONDS = 30, 20\n{FORK_WHILE_BUSY}"
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "all children finished" in done.stdout, \
        done.stdout + done.stderr


def test_split_ops_from_two_threads_at_once_leave_blas_at_one_thread(monkeypatch):
    """OpenBLAS's 'per-thread' setting is the whole process's in the pthreads builds numpy
    ships: chunks that each set it and gave back what they found raced, and could leave
    it at any value.  Split ops started from one thread and from two at once leave it at
    exactly one thread; set_num_threads gives it back."""
    x = np.random.default_rng(5).standard_normal((9, 5, 13, 11)).astype(np.float32)
    w = np.random.default_rng(6).standard_normal((7, 5, 3, 3)).astype(np.float32)

    def conv_steps():
        for _ in range(3):
            xt, wt = nb.tensor(x, requires_grad=True), nb.tensor(w, requires_grad=True)
            F.conv2d(xt, wt, padding=1).sum().backward()

    for n in (2, 3):
        nb.set_num_threads(n)
        conv_steps()
        assert openblas_threads() in ([1], [])
        nb.set_num_threads(n)
        assert openblas_threads() in ([n], [])
        callers = [threading.Thread(target=conv_steps) for _ in range(2)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        assert openblas_threads() in ([1], [])
    if not openblas_threads():  # numpy without OpenBLAS (MKL, Accelerate): nothing set
        assert threads._blas_setter is None
