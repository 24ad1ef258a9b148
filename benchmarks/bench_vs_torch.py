"""nnbook vs PyTorch CPU, side by side in one process.

Each workload runs forward + backward (and the optimiser step where it says so)
in nnbook and in PyTorch with the same weights, alternating round by round.  The
reported number is the median over rounds of (nnbook time / PyTorch time), so a busy
machine slows both sides alike.  Two protocols:

  settled       in each round a side first runs untimed for a moment (so neither pays
                for the other's still-spinning BLAS threads), then is timed: each
                library at its own steady state;
  back to back  no pause: the two sides' timed runs follow each other at once, as the
                cells of a user's notebook do.

Both protocols run at two thread settings: each library's default threads, and one
thread each (a fresh process with OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1, so
numpy's BLAS and nnbook's own threads are one, and torch.set_num_threads(1)).  The
last column is how much slower nnbook is with ``nb.reference_ops()`` (the reference
ops only, no kernels) than with its kernels, at the default threads.  Run:

    python benchmarks/bench_vs_torch.py            # every workload, every setting
    python benchmarks/bench_vs_torch.py b c --rounds 31
    python benchmarks/bench_vs_torch.py --threads default   # one setting only

Needs torch (pip install torch==2.13.0). Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402

TARGETS = {
    "a": 2.0,
    "b": 1.5,
    "c": 2.0,
    "d": 1.0,
    "e": 1.0,
    "f": 2.0,
    "g": 2.0,
}  # default threads, both protocols


def _copy_weights(nb_model, torch_model):
    """Give the torch model nnbook's parameters (state_dict keys match PyTorch's)."""
    import torch

    state = {
        k: torch.tensor(np.array(v.detach().numpy())) for k, v in nb_model.state_dict().items()
    }
    torch_model.load_state_dict(state)


def xception(torch_side: bool):
    """(a) the network of the swapped height and width: conv, BN, ReLU,
    Sum(1x1 s2, depthwise -> 1x1 -> BN -> pool)."""
    if torch_side:
        import torch.nn as tnn

        class Sum(tnn.Module):
            def __init__(self, *branches):  # branches named 0, 1, ... as nnbook's Sum
                super().__init__()
                for i, branch in enumerate(branches):
                    self.add_module(str(i), branch)

            def forward(self, x):
                outs = [branch(x) for branch in self.children()]
                return sum(outs[1:], outs[0])
        m = tnn
        dw = m.Conv2d(64, 64, 3, padding=1, groups=64)
        gap = [m.AdaptiveAvgPool2d(1), m.Flatten()]
    else:
        m, Sum = nn, nn.Sum
        dw = nn.DepthwiseConv2d(64, 3, padding=1)
        gap = [nn.GlobalAvgPool2d(), nn.Reshape(512)]
    return m.Sequential(
        m.Conv2d(3, 64, 3, 2, 1), m.BatchNorm2d(64), m.ReLU(),
        Sum(m.Conv2d(64, 512, 1, stride=2),
            m.Sequential(dw, m.Conv2d(64, 512, 1), m.BatchNorm2d(512), m.MaxPool2d(3, 2, 1))),
        m.ReLU(), *gap, m.Linear(512, 3), m.LogSoftmax(dim=1))


def small_cnn(torch_side: bool):
    """(b) conv 1->16, pool, conv 16->32, pool, linear."""
    if torch_side:
        import torch.nn as m
    else:
        m = nn
    return m.Sequential(m.Conv2d(1, 16, 3, padding=1), m.ReLU(), m.MaxPool2d(2),
                        m.Conv2d(16, 32, 3, padding=1), m.ReLU(), m.MaxPool2d(2),
                        m.Flatten(), m.Linear(32 * 7 * 7, 10))


def separable(torch_side: bool):
    """(c) depthwise 3x3 + pointwise 1x1, each with BN and ReLU."""
    if torch_side:
        import torch.nn as m
        dw = m.Conv2d(32, 32, 3, padding=1, groups=32)
    else:
        m = nn
        dw = nn.DepthwiseConv2d(32, 3, padding=1)
    return m.Sequential(dw, m.BatchNorm2d(32), m.ReLU(),
                        m.Conv2d(32, 32, 1), m.BatchNorm2d(32), m.ReLU())


def mlp(torch_side: bool):
    """(d) 2-16-16-1 MLP."""
    if torch_side:
        import torch.nn as m
    else:
        m = nn
    return m.Sequential(m.Linear(2, 16), m.Tanh(), m.Linear(16, 16), m.Tanh(), m.Linear(16, 1))


def encoder(torch_side: bool):
    """(f) two TransformerEncoderLayers, d_model 64, 4 heads, feed-forward 256, no dropout
    (so both sides do the same arithmetic)."""
    if torch_side:
        import torch.nn as m
    else:
        m = nn
    layer = m.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0,
                                      batch_first=True)
    return m.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def _model_workload(build, x_shape, loss, seed=0, optimizer=False):
    """Return (nnbook_step, torch_step) closures doing one forward+backward(+step)."""
    import torch

    nb.manual_seed(seed)
    model = build(False)
    tmodel = build(True)
    _copy_weights(model, tmodel)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(np.float32)
    xb, xt = nb.tensor(x), torch.tensor(x)
    n = x_shape[0]
    if loss == "nll":
        y = rng.integers(0, 3, n)
        yb, yt = nb.tensor(y), torch.tensor(y)
        lb, lt = nn.NLLLoss(), torch.nn.NLLLoss()
    elif loss == "ce":
        y = rng.integers(0, 10, n)
        yb, yt = nb.tensor(y), torch.tensor(y)
        lb, lt = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    elif loss == "mse":
        y = rng.standard_normal((n, 1)).astype(np.float32)
        yb, yt = nb.tensor(y), torch.tensor(y)
        lb, lt = nn.MSELoss(), torch.nn.MSELoss()
    else:  # sum of the output
        yb = yt = None
        lb = lt = lambda out, _: out.sum()
    ob = nb.optim.SGD(model.parameters(), lr=0.01) if optimizer else None
    ot = torch.optim.SGD(tmodel.parameters(), lr=0.01) if optimizer else None

    def step_nb():
        if ob:
            ob.zero_grad()
        else:
            model.zero_grad()
        lb(model(xb), yb).backward()
        if ob:
            ob.step()

    def step_torch():
        if ot:
            ot.zero_grad()
        else:
            tmodel.zero_grad()
        lt(tmodel(xt), yt).backward()
        if ot:
            ot.step()
    return step_nb, step_torch


def chained_adds():
    """(e) 100 chained adds on 10-element tensors, forward + backward."""
    import torch

    a, b = nb.randn(10, requires_grad=True), nb.randn(10, requires_grad=True)
    ta, tb = torch.randn(10, requires_grad=True), torch.randn(10, requires_grad=True)
    ones_nb, ones_t = nb.ones(10), torch.ones(10)

    def run(x, y, ones):
        h = x
        for _ in range(100):
            h = h + y
        h.backward(ones)
    return (lambda: run(a, b, ones_nb)), (lambda: run(ta, tb, ones_t))


def lstm_sequence():
    """(g) a one-layer LSTM, input 64, hidden 128, over T = 32 steps, batch 32; the loss
    reads every step's output (output.sum()), so backward runs through all of time."""
    import torch

    nb.manual_seed(0)
    model, tmodel = nn.LSTM(64, 128), torch.nn.LSTM(64, 128)
    _copy_weights(model, tmodel)
    x = np.random.default_rng(0).standard_normal((32, 32, 64)).astype(np.float32)
    xb, xt = nb.tensor(x), torch.tensor(x)

    def step_nb():
        model.zero_grad()
        model(xb)[0].sum().backward()

    def step_torch():
        tmodel.zero_grad()
        tmodel(xt)[0].sum().backward()
    return step_nb, step_torch


WORKLOADS = {
    "a": ("Xception block (the swapped height and width), batch 10, 3x16x8",
          lambda: _model_workload(xception, (10, 3, 16, 8), "nll")),
    "b": ("small CNN, batch 64, 1x28x28",
          lambda: _model_workload(small_cnn, (64, 1, 28, 28), "ce")),
    "c": ("depthwise-separable block, 32x32x32x32",
          lambda: _model_workload(separable, (32, 32, 32, 32), "sum")),
    "d": ("2-16-16-1 MLP step on 100 points (with SGD)",
          lambda: _model_workload(mlp, (100, 2), "mse", optimizer=True)),
    "e": ("100 chained adds on 10 elements", chained_adds),
    "f": ("2-layer TransformerEncoder, batch 16, T=32, C=64, 4 heads",
          lambda: _model_workload(encoder, (16, 32, 64), "sum")),
    "g": ("one-layer LSTM 64->128, T=32, batch 32", lstm_sequence),
}


def _time(fn, repeat, settle):
    """Run ``fn`` for ``settle`` seconds untimed, then time ``repeat`` calls.

    Settling matters: after one library's GEMMs, OpenBLAS worker threads keep spinning
    for about 0.1 s and take the other library's second core (and PyTorch's threads go
    cold when idle).  Timing only after both sides have run alone for a while compares
    each library at its own steady state.
    """
    end = time.perf_counter() + settle
    while time.perf_counter() < end:
        fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def _repeat_for(step, min_time):
    """How many calls of ``step`` take about ``min_time`` seconds."""
    t0 = time.perf_counter()
    step()
    return max(1, int(min_time / max(time.perf_counter() - t0, 1e-6)))


def measure(step_nb, step_torch, rounds, settle, min_time=0.3):
    """Median over rounds of (nnbook time / torch time) per step, and the median times.

    ``settle``: seconds each side runs untimed before it is timed (0: back to back).
    """
    for _ in range(3):  # warm up both (allocators, caches)
        step_nb()
        step_torch()
    repeat = _repeat_for(step_nb, min_time)
    ratios, times_nb, times_t = [], [], []
    for r in range(rounds):
        pair = [(step_nb, times_nb), (step_torch, times_t)]
        if r % 2:
            pair.reverse()  # alternate who goes first
        for fn, out in pair:
            out.append(_time(fn, repeat, settle))
        ratios.append(times_nb[-1] / times_t[-1])
    return statistics.median(ratios), statistics.median(times_nb), statistics.median(times_t)


def reference_slowdown(step_nb, rounds, min_time=0.3):
    """Median over rounds of (time with nb.reference_ops() / time with the kernels)."""
    def reference():
        with nb.reference_ops():
            step_nb()
    ratio, _, _ = measure(reference, step_nb, max(3, rounds // 3), settle=0, min_time=min_time)
    return ratio


def import_cost(rounds=15):
    """Median extra time of `import nnbook` over `import numpy`, in fresh interpreters."""
    root = str(Path(__file__).resolve().parents[1])

    # As a user imports it: from compiled bytecode (an installed package has it; a
    # checkout writes it on the first import).  Some environments switch bytecode off
    # (PYTHONDONTWRITEBYTECODE), which would time compiling nnbook's source instead.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="nnbook-bench-pycache-")

    def run(stmt):
        code = (f"import time, sys; sys.path.insert(0, {root!r}); t = time.perf_counter(); "
                f"{stmt}; print(time.perf_counter() - t)")
        return float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True, env=env).stdout)
    run("import nnbook")  # writes the bytecode of both
    numpy_t, nnbook_t = [], []
    for _ in range(rounds):
        numpy_t.append(run("import numpy"))
        nnbook_t.append(run("import nnbook"))
    return statistics.median(numpy_t), statistics.median(nnbook_t)


PROTOCOLS = {"settled": 0.15, "back to back": 0.0}


def run_setting(which, rounds, with_reference):
    """Every workload in this process, both protocols: {key: {column: value}}."""
    results = {}
    for key in which:
        row = {}
        for protocol, settle in PROTOCOLS.items():
            # Each workload starts as in a fresh session: once an op splits over nnbook's
            # threads, OpenBLAS stays at one thread (nnbook/kernels/threads.py); this
            # gives it back, as a new process would, so (g) is not timed with the BLAS
            # setting (c) left.
            nb.set_num_threads(nb.get_num_threads())
            step_nb, step_torch = WORKLOADS[key][1]()
            row[protocol] = measure(step_nb, step_torch, rounds, settle)
        if with_reference:
            row["reference"] = reference_slowdown(WORKLOADS[key][1]()[0], rounds)
        results[key] = row
    return results


def one_thread_each(which, rounds):
    """run_setting in a fresh process where numpy, nnbook and torch use one thread."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, __file__, *which, "--rounds", str(rounds),
                           "--threads", "1", "--json"], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=sorted(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", choices=["both", "default", "1"], default="both",
                        help="'1': one thread each (run with OPENBLAS_NUM_THREADS=1 "
                        "OMP_NUM_THREADS=1 set; 'both' does that in a subprocess)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    import torch

    if args.threads == "1":
        torch.set_num_threads(1)
        nb.set_num_threads(1)
    if args.json:  # the one-thread subprocess of a 'both' run
        print(json.dumps(run_setting(args.which, args.rounds, with_reference=False)))
        return
    settings = {}
    if args.threads in ("both", "default"):
        settings["default threads"] = run_setting(args.which, args.rounds,
                                                  with_reference=args.threads != "1")
    if args.threads == "both":
        settings["1 thread each"] = one_thread_each(args.which, args.rounds)
    elif args.threads == "1":
        settings["1 thread each"] = run_setting(args.which, args.rounds, with_reference=True)
    print(f"nnbook {nb.__version__}, numpy {np.__version__}, torch {torch.__version__}; "
          f"default threads: torch {torch.get_num_threads()}, nnbook {nb.get_num_threads()}; "
          f"median of {args.rounds} rounds; nnbook time / torch time\n")
    _print_table(args.which, settings)
    numpy_t, nnbook_t = import_cost()
    print(f"\nimport numpy {numpy_t * 1e3:.0f} ms, import nnbook {nnbook_t * 1e3:.0f} ms "
          f"(+{(nnbook_t - numpy_t) * 1e3:.0f} ms; target +50 ms)")
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, %r); import nnbook; "
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'IPython', 'torch') "
            "if m in sys.modules))"
            % str(Path(__file__).resolve().parents[1]),
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"heavy modules loaded by import nnbook: {loaded}")


def _print_table(which, settings):
    """One row per workload: the ratio (and nnbook/torch ms per step) per setting and
    protocol, the reference ops' slowdown, the target and whether it is met."""
    for key in which:
        print(f"({key}) {WORKLOADS[key][0]}")
    columns = [(setting, protocol) for setting in settings for protocol in PROTOCOLS]
    print("\n" + " " * 4 + "".join(f"{setting:>22}" for setting, _ in columns))
    print(" " * 4 + "".join(f"{protocol:>22}" for _, protocol in columns)
          + f"{'reference':>11}{'target':>9}")
    for key in which:
        cells, over = [], False
        for setting, protocol in columns:
            ratio, t_nb, t_t = settings[setting][key][protocol]
            cells.append(f"{ratio:.2f}x ({t_nb * 1e3:.1f}/{t_t * 1e3:.1f})")
            over |= setting == "default threads" and ratio > TARGETS[key]
        reference = next((r[key]["reference"] for r in settings.values()
                          if "reference" in r[key]), None)
        ref = f"{reference:.1f}x" if reference is not None else "-"
        print(f"({key})" + "".join(f"{c:>22}" for c in cells) + f"{ref:>11}"
              f"{'<= ' + str(TARGETS[key]):>9} {'OVER' if over else 'ok'}")
    print("\nratio: nnbook time / torch time per step (nnbook ms / torch ms); reference: "
          "nnbook's time with nb.reference_ops() / with its kernels; target: for the "
          "default threads, both protocols.")


if __name__ == "__main__":
    main()
