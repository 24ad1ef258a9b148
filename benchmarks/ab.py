"""nnbook at a git revision against the working tree, on one workload, in one process.

For a change worth a few percent: on a shared machine two runs of bench_vs_torch.py an
hour apart differ by more than that, so both versions are timed here side by side, in
alternating rounds (who goes first alternates too), and the median of the per-round
ratios is reported.  The workloads are those of bench_vs_torch.py ((a) to (g)); PyTorch
is needed only because they build its models too.

    python benchmarks/ab.py HEAD c               # the working tree against HEAD on (c)
    python benchmarks/ab.py main~3 b --rounds 31

How: ``git archive REV nnbook`` unpacks the old package as ``nnbook_base`` in a temporary
folder.  Its modules import each other relatively, except that ops load their kernels by
absolute name (``nnbook.kernels...``) on first use, so every kernel module of each version
is imported up front, and the old workload is built while ``nnbook`` names the old
package in ``sys.modules``.  Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_kernels(package: str, folder: Path) -> None:
    for path in sorted((folder / "kernels").glob("*.py")):
        importlib.import_module(f"{package}.kernels.{path.stem}")


def _old_step(rev: str, workload: str, folder: Path):
    """The step of ``workload`` built with nnbook as it was at ``rev``."""
    subprocess.run(f"git archive {rev} nnbook | tar -x -C {folder}", shell=True, check=True,
                   cwd=ROOT)
    (folder / "nnbook").rename(folder / "nnbook_base")
    sys.path.insert(0, str(folder))
    importlib.import_module("nnbook_base")
    _load_kernels("nnbook_base", folder / "nnbook_base")
    current = {name: module for name, module in sys.modules.items()
               if name == "nnbook" or name.startswith("nnbook.") or name == "bench_vs_torch"}
    for name in current:
        del sys.modules[name]
    try:  # while the old package answers to "nnbook", build the old workload
        for name, module in list(sys.modules.items()):
            if name == "nnbook_base" or name.startswith("nnbook_base."):
                sys.modules["nnbook" + name[len("nnbook_base"):]] = module
        bench = importlib.import_module("bench_vs_torch")
        return bench.WORKLOADS[workload][1]()[0]
    finally:
        for name in [n for n in sys.modules if n == "nnbook" or n.startswith("nnbook.")
                     or n == "bench_vs_torch"]:
            del sys.modules[name]
        sys.modules.update(current)


def _timed(step, min_time: float) -> float:
    """Milliseconds per call of ``step``, over at least ``min_time`` seconds."""
    step()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < min_time:
        step()
        calls += 1
    return (time.perf_counter() - start) / calls * 1e3


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare against, e.g. HEAD")
    parser.add_argument("workload", help="a workload of bench_vs_torch.py: a to g")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--min-time", type=float, default=0.25,
                        help="seconds each version runs per round")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import nnbook

    _load_kernels("nnbook", ROOT / "nnbook")
    bench = importlib.import_module("bench_vs_torch")
    new = bench.WORKLOADS[args.workload][1]()[0]
    folder = Path(tempfile.mkdtemp(prefix="nnbook-ab-"))
    try:
        old = _old_step(args.rev, args.workload, folder)
        assert sys.modules["nnbook"] is nnbook
        times = {"old": [], "new": []}
        for r in range(args.rounds):
            order = [("old", old), ("new", new)]
            for name, step in (order if r % 2 else order[::-1]):
                times[name].append(_timed(step, args.min_time))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ratio = statistics.median(n / o for n, o in zip(times["new"], times["old"]))
    print(f"({args.workload}) {args.rev}: {statistics.median(times['old']):.2f} ms, "
          f"working tree: {statistics.median(times['new']):.2f} ms; "
          f"working tree / {args.rev}: {ratio:.3f} (median of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
