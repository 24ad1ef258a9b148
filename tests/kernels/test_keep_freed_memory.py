"""nnbook.kernels.memory: glibc keeps freed memory for reuse after the first kernel call,
unless NNBOOK_KEEP_FREED_MEMORY=0; where there is no glibc nothing happens."""
import ctypes
import os
import subprocess
import sys

import pytest

SCRIPT = """
import nnbook as nb
from nnbook.kernels import memory
assert not memory._done                      # nothing at import
nb.relu(nb.randn(3, 4))                      # the first kernel call
print(memory._done, memory.keep_freed_memory())  # done once; a second call does nothing
"""


def run(env_value):
    env = dict(os.environ)
    env.pop("NNBOOK_KEEP_FREED_MEMORY", None)
    if env_value is not None:
        env["NNBOOK_KEEP_FREED_MEMORY"] = env_value
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_set_once_at_the_first_kernel_call():
    assert run(None) == ["True", "False"]


def test_the_environment_switches_it_off(monkeypatch):
    from nnbook.kernels import memory

    monkeypatch.setattr(memory, "_done", False)
    monkeypatch.setenv("NNBOOK_KEEP_FREED_MEMORY", "0")
    assert memory.keep_freed_memory() is False and memory._done


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallopt"), reason="needs glibc's mallopt")
def test_glibc_takes_the_thresholds(monkeypatch):
    from nnbook.kernels import memory

    monkeypatch.setattr(memory, "_done", False)
    monkeypatch.delenv("NNBOOK_KEEP_FREED_MEMORY", raising=False)
    assert memory.keep_freed_memory() is True
