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
    Mistake("unfold-overlap", "nnbook/ops/shape.py",
            "grad[(slice(None),) * self.axis + (read,)] += grad_out[..., k]",
            "grad[(slice(None),) * self.axis + (read,)] = grad_out[..., k]",
            "overlapping windows' gradients assigned instead of added"),
    Mistake("index-add-alpha", "nnbook/ops/selection.py",
            "return grad_out, None, self.alpha * grad_out[self.at]",
            "return grad_out, None, grad_out[self.at]",
            "alpha forgotten in the gradient of index_add's source"),
    Mistake("take-repeats", "nnbook/ops/selection.py",
            "np.add.at(grad, self.at, grad_out)\n        return grad.reshape(self.in_shape), None",
            "grad[self.at] = grad_out\n        return grad.reshape(self.in_shape), None",
            "a position taken twice gets one gradient, not their sum"),
    Mistake("scatter-mean-count", "nnbook/ops/selection.py",
            "count = np.full(x.shape, int(self.include_self))",
            "count = np.zeros(x.shape, dtype=int)",
            "scatter_reduce's mean forgets to count the input's own value"),
    Mistake("relayout-is-a-write", "nnbook/tensor.py",
            "self._counter[0] += 1\n        return self",
            "context.count_write(self._counter)\n        return self",
            "a shape change in place counted as a change of values: nodes that saved the "
            "tensor would refuse a backward that is right"),
    Mistake("linear-bias-mean", "nnbook/ops/linalg.py",
            "grad_b = g2.sum(0) if", "grad_b = g2.mean(0) if",
            "the bias gradient averaged over the batch instead of summed"),
    Mistake("addmm-beta-forgotten", "nnbook/ops/linalg.py",
            "grad_x = grad_out * self.beta if need[0] else None",
            "grad_x = grad_out if need[0] else None",
            "the gradient of beta * x passed back without its factor beta"),
    Mistake("addmm-reads-nan", "nnbook/ops/linalg.py",
            "if self.beta == 0:  # x is ignored, NaN and all",
            "if False:  # x is ignored, NaN and all",
            "beta = 0 multiplied into the input, so NaN * 0 leaks into the result"),
    Mistake("addcmul-factors-swapped", "nnbook/ops/ternary.py",
            "grad_out * self.value * self.t2 if need[1] else None,\n"
            "                grad_out * self.value * self.t1 if need[2] else None)",
            "grad_out * self.value * self.t1 if need[1] else None,\n"
            "                grad_out * self.value * self.t2 if need[2] else None)",
            "each factor's gradient multiplied by itself instead of by the other factor"),
    Mistake("addcdiv-square", "nnbook/ops/ternary.py",
            "-scaled * self.t1 / self.t2 if need[2]", "-scaled * self.t1 if need[2]",
            "d(t1/t2)/dt2 written as -t1/t2 instead of -t1/t2**2"),
    Mistake("cross-sign", "nnbook/methods/linalg.py",
            "return self.roll(-1, d) * other.roll(-2, d) - self.roll(-2, d) * other.roll(-1, d)",
            "return self.roll(-2, d) * other.roll(-1, d) - self.roll(-1, d) * other.roll(-2, d)",
            "the cross product's two terms subtracted the other way round (b x a)"),
    Mistake("kron-interleave", "nnbook/methods/linalg.py",
            "spread_a = [s for size in a_shape for s in (size, 1)]",
            "spread_a = [s for size in a_shape for s in (1, size)]",
            "a's and b's indices interleaved in the wrong order: b's blocks scaled by a"),
    Mistake("linalg-inv-sign", "nnbook/ops/decompositions.py",
            "return (-(y_t @ grad_out @ y_t),)", "return ((y_t @ grad_out @ y_t),)",
            "the minus sign of d(A^-1) = -A^-1 dA A^-1 forgotten"),
    Mistake("det-cofactors-transposed", "nnbook/ops/decompositions.py",
            "return (grad_out[..., None, None] * cofactors(self.a),)",
            "return (grad_out[..., None, None] * mT(cofactors(self.a)),)",
            "det's gradient written as det(A) A^-1 instead of det(A) A^-T"),
    Mistake("solve-grad-a-sign", "nnbook/ops/decompositions.py",
            "grad_a = -grad_b @ mT(self.x)", "grad_a = grad_b @ mT(self.x)",
            "the minus sign of solve's dA = -A^-T dX X^T forgotten"),
    Mistake("pinv-projection-term", "nnbook/ops/decompositions.py",
            "+ x_t @ x @ g_t @ (eye_n - x @ a),)", ",)",
            "the pseudo-inverse's gradient without its term for the null space of A"),
    Mistake("cholesky-phi-diagonal", "nnbook/ops/decompositions.py",
            "inner = inner - 0.5 * np.eye(lower.shape[-1], dtype=lower.dtype) * inner  # phi",
            "inner = inner  # phi", "Cholesky's phi without halving the diagonal"),
    Mistake("eigh-gaps-order", "nnbook/ops/decompositions.py",
            "gaps = values[..., None, :] - values[..., :, None]     # L_j - L_i",
            "gaps = values[..., :, None] - values[..., None, :]     # L_j - L_i",
            "the eigenvector gradient's F matrix with 1 / (L_i - L_j): its sign flipped"),
    Mistake("svd-u-outside-forgotten", "nnbook/ops/decompositions.py",
            "return (u @ inner @ vh + (outside / self.s[..., None, :]) @ vh,)",
            "return (u @ inner @ vh,)",
            "U's gradient without the part outside U's columns (a tall A)"),
    Mistake("qr-copyltu-half", "nnbook/ops/decompositions.py",
            "copyltu = np.tril(m) + mT(np.tril(m, -1))", "copyltu = np.tril(m)",
            "QR's backward with the lower triangle of M not mirrored onto the upper one"),
    Mistake("rot90-direction", "nnbook/methods/shapes.py",
            "return self.flip(second).transpose(first, second)",
            "return self.flip(first).transpose(first, second)",
            "a quarter turn the other way: the flip along the wrong dim"),
    Mistake("vjp-last-output-only", "nnbook/autograd/functional.py",
            "total[j] += grad", "total[j] = grad",
            "vjp keeps the last output's gradient instead of summing over the outputs"),
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
    # -- packed sequences ----------------------------------------------------------------------
    Mistake("packed-reverse-order", "nnbook/nn/layers/recurrent.py",
            "for t in (range(steps - 1, -1, -1) if reverse else range(steps)):",
            "for t in range(steps):",
            "a packed layer's backward direction run from the first step, like the forward"),
    Mistake("packed-states-sorted", "nnbook/nn/layers/recurrent.py",
            "h_n = tuple(h.index_select(1, unsorted_indices) for h in h_n)",
            "h_n = tuple(h for h in h_n)",
            "an LSTM's h_n and c_n of a packed batch left in sorted order, not the caller's"),
    Mistake("pack-unsorted", "nnbook/nn/utils/rnn.py",
            "which = np.concatenate([order[:n] for n in batch_sizes])",
            "which = np.concatenate([np.arange(n) for n in batch_sizes])",
            "packing takes the first sequences of the batch, not the longest"),
    Mistake("unpack-lengths-sorted", "nnbook/nn/utils/rnn.py",
            "lengths = lengths[np.asarray(unsorted_indices)]", "pass",
            "pad_packed_sequence returns the lengths in sorted order, not the caller's"),
    # -- kernels and threads -----------------------------------------------------------------
    Mistake("bn-merge", "nnbook/kernels/norm.py",
            "var = (np.array(squares) + counts * (means - mean) ** 2)",
            "var = (np.array(squares) + 0 * (means - mean) ** 2)",
            "batch norm's blocks merged without the spread of their means"),
    Mistake("lstm-forget-factor", "nnbook/kernels/recurrent.py",
            "        ff *= c_prev\n", "        ff *= tanh_c\n",
            "the LSTM backward's forget-gate factor taken with this step's cell, not the last"),
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
    # -- remainders, running maxima, NaN-skipping means and special functions ------------------
    Mistake("fmod-floor", "nnbook/ops/elementwise.py",
            "-grad_out * np.trunc(self.a / self.b)", "-grad_out * np.floor(self.a / self.b)",
            "fmod's gradient for b written with floor, the rule of %"),
    Mistake("logcumsumexp-sign", "nnbook/ops/cumulative.py",
            "grad = grad + sign * np.exp(x + tail)", "grad = grad + np.exp(x + tail)",
            "the negative part of the incoming gradient added as if positive"),
    Mistake("nanmean-nan-share", "nnbook/ops/reduce.py",
            "/ self.count * self.counted,)", "/ self.count,)",
            "the NaN places given a share of nanmean's gradient"),
    Mistake("erfinv-near-one", "nnbook/ops/explog.py",
            "near_one = a > 0.5", "near_one = a > 1",
            "Newton's step on erf also near +-1, where erf(y) rounds to 1"),
    Mistake("xlogy-nan", "nnbook/ops/explog.py",
            "zero = (x == 0) & ~np.isnan(y)", "zero = x == 0",
            "0 log NaN taken as 0"),
    Mistake("cummax-nan", "nnbook/ops/cumulative.py",
            "hit = (a == best) | np.isnan(a) if a.dtype.kind == \"f\" else a == best",
            "hit = a == best",
            "a NaN never taken as the running maximum (NaN == NaN is false)"),
    # -- distributions -------------------------------------------------------------------------
    Mistake("normal-rsample-variance", "nnbook/distributions/continuous.py",
            "return self.loc + eps * self.scale  #", "return self.loc + eps * self.scale ** 2  #",
            "the noise stretched by the variance instead of the standard deviation"),
    Mistake("kl-normal-log-sign", "nnbook/distributions/kl.py",
            "0.5 * (var_ratio + t - 1 - var_ratio.log())",
            "0.5 * (var_ratio + t - 1 + var_ratio.log())",
            "the log of the variance ratio added instead of subtracted"),
    Mistake("categorical-logits-unnormalised", "nnbook/distributions/discrete.py",
            'self.__dict__["logits"] = value - value.logsumexp(-1, keepdim=True)',
            'self.__dict__["logits"] = value',
            "logits used as log-probabilities without the log-softmax"),
    Mistake("bernoulli-entropy-sign", "nnbook/distributions/discrete.py",
            "return _softplus(self.logits) - self.probs * self.logits",
            "return _softplus(self.logits) + self.probs * self.logits",
            "the entropy's p * logits term with the wrong sign"),
    Mistake("positive-takes-zero", "nnbook/distributions/constraints.py",
            "positive = _GreaterThan(0.0)", "positive = _GreaterThan(0.0, inclusive=True)",
            "a scale or rate of 0 let through the parameter check"),
    Mistake("gamma-fraction-slope", "nnbook/distributions/implicit.py",
            "b_n * dA - A + a_n * dA0 + da_n * A0", "b_n * dA + a_n * dA0 + da_n * A0",
            "the continued fraction differentiated as if its b_n = x + 2n - 1 - a did not "
            "move with a: gamma draws in the upper tail get a wrong gradient"),
    Mistake("beta-flipped-parameters", "nnbook/distributions/implicit.py",
            "s, ds_b, ds_a = _beta_series(1 - xf, bf, af)",
            "s, ds_a, ds_b = _beta_series(1 - xf, bf, af)",
            "the series of I_(1-x)(b, a) read with its parameters in the unflipped order"),
    Mistake("dirichlet-parts-stay", "nnbook/distributions/implicit.py",
            "return g * (grad_out - (x * grad_out).sum(-1, keepdims=True))",
            "return g * grad_out",
            "a Dirichlet draw's part moved without the others giving way (the sum leaves 1)"),
    Mistake("binomial-one-toss-normaliser", "nnbook/distributions/counts.py",
            "return log_choose + value * logits - n * _softplus(logits)",
            "return log_choose + value * logits - _softplus(logits)",
            "the normaliser log(1 + e^logits) counted once instead of once per trial"),
    # -- pooling indices, unpooling, resizing and their cost ------------------------------------
    Mistake("pool-index-first-nan", "nnbook/ops/pool.py",
            "last_nan = count - 1 - np.isnan(taps[..., ::-1]).argmax(axis=-1)",
            "last_nan = np.isnan(taps).argmax(axis=-1)",
            "return_indices pointing a NaN window at its first NaN (PyTorch: the last)"),
    Mistake("pool-index-padding", "nnbook/ops/pool.py",
            "tap = np.where(place < 0, inside, tap)",
            "tap = np.where(False, inside, tap)",
            "an index of -1 for a window of -inf whose first tap is padding"),
    Mistake("unpool-first-writer", "nnbook/ops/unpool.py",
            "np.maximum.at(self.src", "np.minimum.at(self.src",
            "unpooling keeping no value (or the first) where one place is sent two"),
    Mistake("cubic-coefficient", "nnbook/ops/interpolate.py",
            "CUBIC_A = -0.75", "CUBIC_A = -0.5",
            "bicubic with the textbook a = -0.5 instead of PyTorch's -0.75"),
    Mistake("bicubic-taps", "nnbook/ops/interpolate.py",
            "cubic(t - k))", "cubic(t + k))",
            "bicubic weights given to the neighbours in mirror order"),
    Mistake("nearest-exact-centre", "nnbook/ops/interpolate.py",
            "(i + 0.5) * np.float64(step)", "i * np.float64(step)",
            "nearest-exact sampling at the output pixel's corner, not its centre"),
    Mistake("transpose-cost-per-output", "nnbook/inspect/cost.py",
            "return math.prod(inputs[0].shape) * math.prod(inputs[1].shape[1:])",
            "return out * math.prod(inputs[1].shape[1:])",
            "a transposed convolution's multiply-adds counted per output, not per input"),
    Mistake("einsum-cost-output-letters", "nnbook/inspect/cost.py",
            "return math.prod(size.values())",
            "return math.prod(size[letter] for letter in _)",
            "an einsum's work counted over the output's letters only, leaving out the sums"),
    # -- volumes: 3-D convolution, pooling, padding and resizing -------------------------------
    Mistake("conv-transpose3d-depth-height", "nnbook/ops/threedim.py",
            "(n, c_out), g, (d, h, w) = gy.shape[:2], self.groups, self.in_size",
            "(n, c_out), g, (h, d, w) = gy.shape[:2], self.groups, self.in_size",
            "the input's depth and height swapped when the gradient's windows are cut to it"),
    Mistake("avg-pool3d-divisor-of-a-plane", "nnbook/ops/pool.py",
            "return functools.reduce(np.multiply.outer, counts).astype(dtype)",
            "return functools.reduce(np.multiply.outer, counts[-2:]).astype(dtype)",
            "a volume's divisors counted over rows and columns only, as for an image"),
    Mistake("conv3d-padding-mode-order", "nnbook/nn/layers/conv.py",
            "input = F.pad(input, tuple(p for pair in reversed(pads) for p in pair),",
            "input = F.pad(input, tuple(p for pair in pads for p in pair),",
            "padding_mode's padding given to F.pad depth first (F.pad takes the width first)"),
    Mistake("interpolate-depth-height", "nnbook/ops/interpolate.py",
            "y = np.einsum(\"qd,oh,pw,ncdhw->ncqop\", self.a_d, self.a_h, self.a_w, volume,",
            "y = np.einsum(\"qd,oh,pw,ncdhw->ncqop\", self.a_h, self.a_d, self.a_w, volume,",
            "a volume's depth resized with the height's weights and the height with the depth's"),
    # -- margin and likelihood losses, bags of embeddings -------------------------------------
    Mistake("multi-margin-target-sign", "nnbook/ops/margin_losses.py",
            "np.put_along_axis(grad_x, self.picked, -grad_x.sum(axis=1, keepdims=True), axis=1)",
            "np.put_along_axis(grad_x, self.picked, grad_x.sum(axis=1, keepdims=True), axis=1)",
            "the right class' score pushed up and down with the same sign as the rivals'"),
    Mistake("multi-margin-self-rival", "nnbook/ops/margin_losses.py",
            "self.active = (z > 0) & rival", "self.active = z > 0",
            "the target class counted among its own rivals (a margin added to every loss)"),
    Mistake("multilabel-duplicates", "nnbook/ops/margin_losses.py",
            "np.add.at(count, (rows[listed], target[listed]), 1)",
            "count[rows[listed], target[listed]] = 1",
            "a class listed twice counted once (PyTorch counts each entry)"),
    Mistake("embedding-bag-mean-counts-padding", "nnbook/ops/embedding_bag.py",
            "self.count = np.bincount(self.bag, minlength=bags)",
            "self.count = np.bincount(bag, minlength=bags)",
            "a bag's mean divided by its length with the padding entries counted"),
    Mistake("embedding-bag-psw-grad", "nnbook/ops/embedding_bag.py",
            "(grad_out[self.bag] * self.weight[self.index]).sum(axis=1)",
            "grad_out[self.bag].sum(axis=1)",
            "d/dpsw without the looked-up row it multiplies"),
    Mistake("gaussian-clamp-in-graph", "nnbook/nn/functional_losses.py",
            "    var = var + lift\n", "    var = var.clamp_min(eps)\n",
            "var clamped inside the graph: no gradient below eps, unlike PyTorch"),
    Mistake("poisson-stirling-half", "nnbook/nn/functional_losses.py",
            "0.5 * (2 * math.pi * t).log()", "(2 * math.pi * t).log()",
            "Stirling's log(2 pi t) without its 1/2"),
    # -- CTC and the adaptive softmax ----------------------------------------------------------
    Mistake("ctc-skip-between-repeats", "nnbook/ops/sequence_losses.py",
            "can_skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])",
            "can_skip[:, 2:] = ext[:, 2:] != blank",
            "a path allowed to skip the blank between two equal labels, so 'a a' reads as 'a'"),
    Mistake("ctc-beta-ends-a-frame-late", "nnbook/ops/sequence_losses.py",
            "beta[t] = np.where((input_lengths == t + 1)[:, None], ending, beta[t])",
            "beta[t] = np.where((input_lengths == t)[:, None], ending, beta[t])",
            "the backward recursion started at frame T_n instead of T_n - 1"),
    Mistake("ctc-mean-of-an-empty-target", "nnbook/ops/sequence_losses.py",
            "losses = losses / np.maximum(self.target_lengths, 1)",
            "losses = losses / self.target_lengths",
            "'mean' divides by target lengths of 0 (PyTorch clamps them to 1)"),
    Mistake("adaptive-softmax-cluster-offset", "nnbook/nn/layers/adaptive.py",
            "inside = labels[rows] - self.cutoffs[i]",
            "inside = labels[rows] - self.shortlist_size",
            "a class's place in its cluster counted from the shortlist's end, right only for "
            "the first cluster"),
    # -- spatial transformers and more image layers ---------------------------------------
    Mistake("grid-sample-scatter-assign", "nnbook/ops/sampling.py",
            "np.add.at(planes, at, per_tap.reshape(n, c, taps))",
            "planes[at] = per_tap.reshape(n, c, taps)",
            "a pixel read by several points keeps one point's gradient instead of their sum"),
    Mistake("grid-sample-nearest-half-up", "nnbook/ops/sampling.py",
            "return np.rint(py)[..., None], np.rint(px)[..., None], one, zero, zero",
            "return np.floor(py + 0.5)[..., None], np.floor(px + 0.5)[..., None], one, zero, "
            "zero", "'nearest' rounding halves up, not to even as PyTorch's nearbyint"),
    Mistake("grid-sample-reflection-slope", "nnbook/ops/sampling.py",
            "np.where(even, direction, -direction)", "np.where(even, direction, direction)",
            "a point mirrored back into the image moves the same way as the grid after an "
            "odd number of folds: the grid's gradient gets the wrong sign there"),
    Mistake("lp-pool-window-size", "nnbook/nn/functional.py",
            ".mul(window).pow(1.0 / p)", ".pow(1.0 / p)",
            "LP pooling of the window's mean of x^p, not its sum"),
    # -- parametrizations and pruning ----------------------------------------------------------
    Mistake("spectral-power-step-order", "nnbook/nn/utils/parametrizations.py",
            "self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))\n"
            "                self._v.copy_(normalize(weight_mat.T.mv(self._u), dim=0, "
            "eps=self.eps))",
            "self._v.copy_(normalize(weight_mat.T.mv(self._u), dim=0, eps=self.eps))\n"
            "                self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, "
            "eps=self.eps))",
            "the parametrization's power step takes the old hook's order (v, then u)"),
    Mistake("spectral-steps-in-eval", "nnbook/nn/utils/parametrizations.py",
            "if self.training and not context.shape_only():", "if not context.shape_only():",
            "spectral norm's u and v keep moving in eval mode"),
    Mistake("prune-again-among-all", "nnbook/nn/utils/prune.py",
            "index = default_mask == 1", "index = (slice(None),) * t.ndim",
            "a second unstructured pruning chooses among every entry, the pruned ones too"),
    Mistake("prune-amount-truncated", "nnbook/nn/utils/prune.py",
            "return round(amount * size)", "return int(amount * size)",
            "a fraction of the entries cut down to a count instead of rounded"),
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
