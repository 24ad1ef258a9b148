"""Intra-op threads (nnbook/ops/threads.py): the same bits whatever the number of threads.

The test command runs with one thread by default (OPENBLAS_NUM_THREADS=1), so every test
here sets the number itself and compares 2 and 3 threads against 1, bit for bit, on
batches large enough to be split, with odd sizes so the chunks differ in length.
"""
import os
import signal
import threading
import time

import numpy as np
import pytest

import nnbook as nb
from nnbook.nn import functional as F
from nnbook.ops import threads


@pytest.fixture(autouse=True)
def restore_threads():
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


@pytest.mark.parametrize("stride, padding, groups", [(1, 1, 1), (2, 0, 2), (1, (2, 0), 1)])
def test_conv2d_im2col_is_the_same_with_threads(rng, stride, padding, groups, chunks_made):
    x = rng.standard_normal((7, 8, 61, 47)).astype(np.float32)
    w = rng.standard_normal((6, 8 // groups, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    out, grad_x, grad_w, grad_b = same_bits(chunks_made, 2,
        lambda x, w, b: F.conv2d(x, w, b, stride=stride, padding=padding, groups=groups), x, w, b)
    assert grad_w.shape == w.shape and grad_x.shape == x.shape


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


def test_blas_threads_are_restored_after_a_split_op(rng):
    setter = threads._find_blas_setter()
    if setter is None:
        pytest.skip("this numpy's BLAS has no per-thread setting (OpenBLAS < 0.3.27)")
    before = setter(3)  # what the calling thread had; now 3
    try:
        nb.set_num_threads(2)
        F.relu(nb.tensor(rng.standard_normal((8, 3, 64, 64)).astype(np.float32)))
        assert setter(3) == 3  # the op set 1 for its chunk, then gave back 3
    finally:
        setter(before)


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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")  # Python 3.12+ warns
def test_a_forked_child_splits_with_threads_of_its_own(rng):
    nb.set_num_threads(2)
    x = nb.tensor(rng.standard_normal((8, 8, 64, 64)).astype(np.float32))
    expected = F.relu(x).detach().numpy()  # the parent's pool now has a worker thread
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 if the split op finishes with the right result
        ok = False
        try:
            ok = np.array_equal(F.relu(x).detach().numpy(), expected)
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 30
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:  # still running: it waits for threads it does not have
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung in a split op")
    assert os.WIFEXITED(done[1]) and os.WEXITSTATUS(done[1]) == 0
