"""Where the time of one workload of bench_vs_torch.py goes: nnbook's time per op.

Wraps every op's forward and backward with a timer (and a count of minor page
faults, which fresh large arrays cost), runs the workload's step and prints the
ops by total time per step.  The wrapping adds a little to each op; the step
time printed first is measured without it.  Run:

    OPENBLAS_NUM_THREADS=1 python benchmarks/profile_ops.py b
"""
from __future__ import annotations

import argparse
import collections
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_vs_torch as bench  # noqa: E402

from nnbook.ops import class_targets, conv, dropout, losses, norm, pool, shape, softmax  # noqa: E402, F401  (load every op)
from nnbook.ops.base import Op  # noqa: E402


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _wrap(cls, method, seconds, faults):
    inner = cls.__dict__[method]

    def timed(self, *args):
        key = (self.name, method, tuple(args[0].shape))
        f0, t0 = _faults(), time.perf_counter()
        result = inner(self, *args)
        seconds[key] += time.perf_counter() - t0
        faults[key] += _faults() - f0
        return result
    setattr(cls, method, timed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="?", default="b")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    step, _ = bench.WORKLOADS[args.which][1]()
    for _ in range(10):
        step()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    plain = (time.perf_counter() - t0) / args.steps
    seconds, faults = collections.defaultdict(float), collections.defaultdict(int)
    for cls in set(_subclasses(Op)):
        for method in ("forward", "backward"):
            if method in cls.__dict__:
                _wrap(cls, method, seconds, faults)
    for _ in range(args.steps):
        step()
    print(f"({args.which}) {plain * 1e3:.2f} ms per step unwrapped; per op and step:")
    for key, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"{s / args.steps * 1e3:8.3f} ms {faults[key] / args.steps:7.0f} faults  "
              f"{key[0]} {key[1]} {key[2]}")


if __name__ == "__main__":
    main()
