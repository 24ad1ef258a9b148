"""Plant plausible mistakes in nnbook, one at a time, and check the unit tests catch each.

    .venv/bin/python tools/plant_mistakes.py            # every mistake (several minutes)
    .venv/bin/python tools/plant_mistakes.py --check    # only check each snippet still exists
    .venv/bin/python tools/plant_mistakes.py adam-bias  # some, by name

Each mistake replaces one snippet of the library with a wrong one: a backward rule with a
sign or a factor off, a name numbered from 1, a check left out, a widget label lost.  The
tool copies the repository (without .venv) to a temporary folder, plants the mistake there,
and runs the unit tests on that copy with PyTorch hidden and the notebooks left out, so a
mistake counts as caught only if an ordinary unit test fails, not the PyTorch oracle or a
notebook's committed output.  It prints one line per mistake and exits 1 if any was missed.

When the library's code changes, a snippet may no longer exist: `--check` says which, and
the entry is brought up to date with the code (the mistake, not the snippet, is the point).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mistake:
    name: str
    path: str      # relative to the repository
    snippet: str   # must occur exactly once in the file
    planted: str   # what replaces it
    why: str       # the mistake a person could make


MISTAKES = [
    # -- backward rules ------------------------------------------------------------------------
    Mistake("mul-swapped", "nnbook/ops/elementwise.py",
            "return (grad_out * self.b if need_a else None,\n"
            "                grad_out * self.a if need_b else None)",
            "return (grad_out * self.a if need_a else None,\n"
            "                grad_out * self.b if need_b else None)",
            "the product rule's gradients returned in swapped order"),
    Mistake("sub-sign", "nnbook/ops/elementwise.py",
            "return grad_out, -grad_out", "return grad_out, grad_out",
            "the minus sign of a - b forgotten in backward"),
    Mistake("div-square", "nnbook/ops/elementwise.py",
            "(self.a / self.b / self.b)", "(self.a / self.b)",
            "d(a/b)/db written as -a/b instead of -a/b**2"),
    Mistake("tanh-derivative", "nnbook/ops/elementwise.py",
            "return (grad_out * (1 - self.y * self.y),)", "return (grad_out * (1 - self.y),)",
            "tanh' written as 1 - y"),
    Mistake("sigmoid-without-dout", "nnbook/ops/elementwise.py",
            "return (grad_out * self.y * (1 - self.y),)", "return (self.y * (1 - self.y),)",
            "the backward rule without dout: the local derivative returned alone"),
    Mistake("sqrt-factor", "nnbook/ops/elementwise.py",
            "return (grad_out / (2 * self.y),)", "return (grad_out / self.y,)",
            "the factor 1/2 of sqrt' forgotten"),
    Mistake("matmul-square", "nnbook/ops/linalg.py",
            "grad_a = np.matmul(g, np.swapaxes(b, -1, -2)) if need_a else None",
            "grad_a = np.matmul(g, b) if need_a and b.shape[-1] == b.shape[-2] else "
            "(np.matmul(g, np.swapaxes(b, -1, -2)) if need_a else None)",
            "dA = dC B (B not transposed): wrong, and visible only on non-square matrices"),
    Mistake("linear-bias-mean", "nnbook/ops/linalg.py",
            "grad_b = g2.sum(0) if", "grad_b = g2.mean(0) if",
            "the bias gradient averaged over the batch instead of summed"),
    Mistake("mean-count", "nnbook/ops/reduce.py",
            "grad = _expand(grad_out, self.axes, self.keepdim) / self.count",
            "grad = _expand(grad_out, self.axes, self.keepdim)",
            "mean's backward without the 1/n"),
    Mistake("softmax-jacobian", "nnbook/ops/softmax.py",
            "return (y * (grad_out - np.sum(grad_out * y, axis=self.axis, keepdims=True)),)",
            "return (y * grad_out,)",
            "softmax's backward with only the diagonal of its Jacobian"),
    Mistake("log-softmax-sum", "nnbook/ops/softmax.py",
            "return (grad_out - np.exp(self.y) * np.sum(grad_out, axis=self.axis, "
            "keepdims=True),)",
            "return (grad_out - np.exp(self.y),)",
            "log_softmax's backward with the sum of dout left out"),
    Mistake("permute-inverse", "nnbook/ops/shape.py",
            "return (np.transpose(grad_out, np.argsort(self.axes)),)",
            "return (np.transpose(grad_out, self.axes),)",
            "permute's backward applying the permutation again instead of its inverse"),
    Mistake("index-assign", "nnbook/ops/indexing.py",
            "np.add.at(grad[self.basic], self.advanced, grad_out)",
            "grad[self.basic][self.advanced] = grad_out",
            "an element picked twice gets its gradient assigned, not added"),
    Mistake("mse-factor", "nnbook/ops/losses.py",
            "grad_x = 2 * s * self.diff if w is None", "grad_x = s * self.diff if w is None",
            "the 2 of d(x - t)^2/dx forgotten"),
    Mistake("dropout-scale", "nnbook/ops/dropout.py",
            "self.mask = keep * x.dtype.type(1 / (1 - self.p))",
            "self.mask = keep * x.dtype.type(1)",
            "dropout that zeroes but does not scale the kept values"),
    Mistake("running-var-biased", "nnbook/ops/norm.py",
            "unbiased = var * (self.count / (self.count - 1))", "unbiased = var",
            "BatchNorm's running variance kept biased"),
    Mistake("instance-norm-running-var-biased", "nnbook/ops/norm.py",
            "var = grouped.var(axis=2) * (count / (count - 1))", "var = grouped.var(axis=2)",
            "InstanceNorm's running variance kept biased"),
    Mistake("rms-norm-constant-scale", "nnbook/ops/norm.py",
            "grad_x = self.r * (g_hat - self.x_hat * mean_gx)", "grad_x = self.r * g_hat",
            "RMSNorm's backward as if 1 / rms did not depend on x"),
    Mistake("unfold-rows-in-window-order", "nnbook/ops/unfold.py",
            "win.transpose(0, 1, 4, 5, 2, 3)", "win.transpose(0, 1, 2, 3, 4, 5)",
            "im2col's columns laid out window by window instead of tap by tap"),
    Mistake("pixel-shuffle-blocks-transposed", "nnbook/nn/functional_vision.py",
            "blocks.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)",
            "blocks.permute(*range(k), k, k + 3, k + 2, k + 4, k + 1)",
            "pixel_shuffle fills each r×r block column by column"),
    # -- the engine and tensors ----------------------------------------------------------------
    Mistake("engine-assign", "nnbook/autograd/engine.py",
            "grads[key] = prev + g", "grads[key] = g",
            "a tensor used twice gets only one path's gradient (= instead of +=)"),
    Mistake("version-not-bumped", "nnbook/tensor.py",
            'np.copyto(self._array, value, casting="unsafe")\n'
            '        context.count_write(self._counter)',
            'np.copyto(self._array, value, casting="unsafe")',
            "an in-place write (x[...] = v, x.zero_()) that does not move the version counter"),
    Mistake("fast-inplace-not-bumped", "nnbook/tensor.py",
            "op.ufunc(self._array, others[0]._array, out=self._array)  # the same, faster\n"
            "            context.count_write(self._counter)",
            "op.ufunc(self._array, others[0]._array, out=self._array)  # the same, faster",
            "the fast in-place path (w -= lr * g under no_grad) forgetting the version counter"),
    Mistake("unbroadcast-first", "nnbook/autograd/engine.py",
            "grad = grad.sum(axis=tuple(range(extra)))", "grad = grad[(0,) * extra]",
            "broadcast axes sliced away instead of summed"),
    Mistake("gradcheck-rtol", "nnbook/autograd/gradchecking.py",
            "bad = err > atol + rtol * np.abs(numerical)", "bad = err > atol",
            "gradcheck's rtol dropped"),
    # -- naming, loading, guards ---------------------------------------------------------------
    Mistake("path-separator", "nnbook/nn/parameter.py",
            'return f"{prefix}.{name}" if prefix else name',
            'return f"{prefix}/{name}" if prefix else name',
            "parameter paths joined with / (keys no longer PyTorch's)"),
    Mistake("strict-missing", "nnbook/nn/loading.py",
            "if mismatched or (strict and (missing or unexpected)):",
            "if mismatched or (strict and unexpected):",
            "a strict load that accepts a checkpoint lacking keys"),
    Mistake("guard-off", "nnbook/nn/guard.py",
            "    if not context.module_stack or _allowed:\n        return",
            "    return",
            "the guard against the layer built in forward switched off"),
    Mistake("save-not-atomic", "nnbook/serialization.py",
            "os.replace(temporary, target)", "shutil.copyfile(temporary, target)",
            "a save that overwrites the old file in place (not atomic)"),
    # -- inspection and widgets ----------------------------------------------------------------
    Mistake("flag-frozen", "nnbook/inspect/param_flags.py",
            "if in_optimizer is False and trainable:", "if in_optimizer is False:",
            "a frozen parameter left out of the optimizer flagged as a problem"),
    Mistake("flag-no-gradient", "nnbook/inspect/param_flags.py",
            "if backward_seen and trainable and grad_norm is None:",
            "if trainable and grad_norm is None:",
            "'no gradient' flagged before any backward ran"),
    Mistake("groups-connections", "nnbook/inspect/conv_geometry.py",
            "return [(o, range((o // out_per) * in_per, (o // out_per + 1) * in_per))",
            "return [(o, range((o % out_per) * in_per, (o % out_per + 1) * in_per))",
            "a grouped conv's output channel drawn reading the wrong group"),
    # -- optimizers and initialisation ---------------------------------------------------------
    Mistake("sgd-dampening", "nnbook/optim/sgd.py",
            'buf += (1 - group["dampening"]) * grad', 'buf += group["dampening"] * grad',
            "SGD's dampening applied the wrong way round"),
    Mistake("sgd-nesterov", "nnbook/optim/sgd.py",
            'grad = grad + momentum * buf if group["nesterov"] else buf',
            "grad = buf",
            "Nesterov momentum silently the same as plain momentum"),
    Mistake("adam-bias", "nnbook/optim/adam.py",
            "step_size = lr / (1 - beta1 ** t)", "step_size = lr",
            "Adam without the first moment's bias correction"),
    Mistake("adamw-coupled", "nnbook/optim/adam.py",
            "param *= 1 - lr * weight_decay", "param *= 1 - weight_decay",
            "AdamW's decay not scaled by the learning rate"),
    Mistake("kaiming-bound", "nnbook/nn/init.py",
            "bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)",
            "bound = calculate_gain(nonlinearity, a) * math.sqrt(1.0 / fan)",
            "Kaiming uniform's bound off by sqrt(3)"),
    # -- kernels and threads -----------------------------------------------------------------
    Mistake("bn-merge", "nnbook/kernels/norm.py",
            "var = (np.array(squares) + counts * (means - mean) ** 2)",
            "var = (np.array(squares) + 0 * (means - mean) ** 2)",
            "batch norm's blocks merged without the spread of their means"),
    Mistake("lstm-factor-chunk", "nnbook/kernels/recurrent.py",
            "self.factors(slice(t - t % FACTOR_STEPS, t + 1)",
            "self.factors(slice(t - t % FACTOR_STEPS, t)",
            "the LSTM backward's derivative factors computed for one step too few"),
    Mistake("blas-not-held", "nnbook/kernels/threads.py",
            "_set_blas_threads(1)\n                _blas_held = True",
            "_blas_held = True",
            "split ops leave OpenBLAS's own threads running beside nnbook's"),
    Mistake("pool-places-square", "nnbook/kernels/pool.py",
            "np.arange(c)) * (h * w)", "np.arange(c)) * (h * h)",
            "max pooling's bincount backward placing samples as if images were square"),
    Mistake("pool-places-padding", "nnbook/kernels/pool.py",
            "(rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)", "(rows < h) & (cols < w)",
            "max pooling's bincount backward sending a max in the padding to a real input"),
    # -- widgets --------------------------------------------------------------------------------
    Mistake("token-label", "nnbook/widgets/shape_stepper.py",
            "if step.layer in INDEX_LAYERS and not name else name",
            "if False else name",
            "token indices into an Embedding labelled as features"),
]


def copy_repository(into: Path) -> Path:
    ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".ipynb_*")
    target = into / "repo"
    shutil.copytree(ROOT, target, ignore=ignore)
    return target


def plant(repo: Path, mistake: Mistake) -> None:
    file = repo / mistake.path
    text = file.read_text()
    file.write_text(text.replace(mistake.snippet, mistake.planted, 1))


def snippet_count(mistake: Mistake) -> int:
    file = ROOT / mistake.path
    return file.read_text().count(mistake.snippet) if file.exists() else 0


# PyTorch hidden (the oracle must not be what catches a mistake); notebooks, the browser,
# the fresh-environment test and the compatibility programs (which run PyTorch) left out,
# and the test that every snippet is present (a planted mistake removes its snippet).
RUNNER = """
import sys
sys.modules["torch"] = None
import pytest
sys.exit(pytest.main(["tests", "-x", "-q", "-p", "no:cacheprovider", "-m", "not browser",
                      "--ignore=tests/oracle", "--ignore=tests/compat",
                      "--ignore=tests/test_binder.py",
                      "--ignore=tests/test_planted_mistakes_exist.py"]))
"""


def caught(repo: Path, python: str) -> tuple[bool, str]:
    env = dict(os.environ, PYTHONPATH=str(repo), NNBOOK_REQUIRE_TORCH="0", CI="")
    done = subprocess.run([python, "-c", RUNNER], cwd=repo, env=env, capture_output=True,
                          text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    return done.returncode != 0, (lines[0] if lines else done.stdout.strip()[-200:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="run only these mistakes")
    parser.add_argument("--check", action="store_true", help="only check the snippets exist")
    args = parser.parse_args()
    chosen = [m for m in MISTAKES if not args.names or m.name in args.names]
    stale = [m for m in chosen if snippet_count(m) != 1]
    for m in stale:
        print(f"STALE   {m.name}: its snippet occurs {snippet_count(m)} times in {m.path}")
    if args.check or stale:
        print(f"{len(chosen) - len(stale)} of {len(chosen)} snippets found once")
        return 1 if stale else 0
    python = sys.executable
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        pristine = copy_repository(Path(tmp))
        for m in chosen:
            repo = Path(tmp) / m.name
            shutil.copytree(pristine, repo)
            plant(repo, m)
            ok, detail = caught(repo, python)
            print(f"{'caught' if ok else 'MISSED'}  {m.name}: {m.why}\n        {detail}",
                  flush=True)
            if not ok:
                missed.append(m.name)
            shutil.rmtree(repo)
    print(f"{len(chosen) - len(missed)} of {len(chosen)} planted mistakes caught by unit tests")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
