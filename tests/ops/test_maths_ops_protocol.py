"""The op protocol for the maths ops (nnbook/ops/base.py): the shape rule, run on data-free
specs, gives the forward's shape and stores nothing; backward gives one gradient per
input, each of its input's shape; and every function is the method of the same name."""
import numpy as np
import pytest
from shared import changed_in_place_is_caught_or_harmless

import nnbook as nb
from nnbook import functions
from nnbook.ops import (
    class_targets,
    cumulative,
    decompositions,
    einsum,
    explog,
    floats,
    indexing,
    linalg,
    logical,
    rearrange,
    reduce,
    rounding,
    selection,
    special,
    statistics,
    ternary,
    trig,
)
from nnbook.ops import elementwise as ew
from nnbook.ops import shape as shape_ops
from nnbook.ops.base import Spec
from nnbook.tensor import apply

F64, I64, B = np.float64, np.int64, np.bool_
X = ((3, 7, 5), F64)
# (op, input specs); integer inputs get valid indices, boolean ones random masks
OPS = [
    *[(lambda c=c: c(), [X]) for c in (
        trig.Sin, trig.Cos, trig.Tan, trig.Asin, trig.Acos, trig.Atan, trig.Sinh, trig.Cosh,
        trig.Asinh, trig.Acosh, trig.Atanh, explog.Exp2, explog.Expm1, explog.Log2,
        explog.Log10, explog.Log1p, explog.Rsqrt, explog.Square, explog.Reciprocal,
        explog.Erf, explog.Erfc, explog.Erfinv, rounding.Floor, rounding.Ceil,
        rounding.Trunc, rounding.Sign, rounding.Frac)],
    (lambda: trig.Atan2(), [X, ((7, 1), F64)]),
    (lambda: trig.Hypot(), [X, ((7, 1), F64)]),
    (lambda: ew.Fmod(), [X, ((5,), F64)]),
    (lambda: ew.NanToNum(1.0, 2.0), [X]),
    (lambda: explog.Xlogy(), [X, ((7, 5), F64)]),
    (lambda: explog.LogAddExp(), [X, ((3, 1, 5), F64)]),
    (lambda: explog.LogAddExp2(), [X, ((5,), F64)]),
    (lambda: reduce.NanSum((0, 2)), [X]),
    (lambda: reduce.NanMean(1, True), [X]),
    (lambda: cumulative.CumMax(1), [X]),
    (lambda: cumulative.CumMin(-1), [X]),
    (lambda: cumulative.LogCumSumExp(0), [X]),
    (lambda: explog.Softplus(2.0, 3.0), [X]),
    (lambda: explog.Logit(0.1), [X]),
    (lambda: rounding.Round(2), [X]),
    (lambda: ternary.Where(), [((7, 5), B), X, ((5,), F64)]),
    (lambda: ternary.Lerp(), [X, ((7, 5), F64), ((1, 5), F64)]),
    (lambda: ternary.ClampTensor(True, True), [X, ((5,), F64), ((7, 1), F64)]),
    (lambda: ternary.ClampTensor(False, True), [X, ((5,), F64)]),
    (lambda: ternary.Addcmul(-0.5), [((7, 1), F64), X, ((5,), F64)]),
    (lambda: ternary.Addcdiv(2), [X, ((7, 5), F64), ((1, 5), F64)]),
    (lambda: linalg.Addmm(0.5, 2), [((1, 5), F64), ((7, 3), F64), ((3, 5), F64)]),
    (lambda: linalg.Addmv(0, -1), [((7,), F64), ((7, 3), F64), ((3,), F64)]),
    (lambda: linalg.Addr(), [((), F64), ((7,), F64), ((5,), F64)]),
    (lambda: linalg.Baddbmm(2, 0.5), [((5,), F64), ((2, 7, 3), F64), ((2, 3, 5), F64)]),
    (lambda: linalg.Addbmm(-1, 3), [((7, 5), F64), ((2, 7, 3), F64), ((2, 3, 5), F64)]),
    (lambda: reduce.Min(1, True), [X]),
    (lambda: reduce.Amax((0, 2)), [X]),
    (lambda: reduce.Amin(-1, True), [X]),
    (lambda: reduce.Prod(1), [X]),
    (lambda: statistics.Var((0, 2), 0), [X]),
    (lambda: statistics.Std(1, 1, True), [X]),
    (lambda: statistics.LogSumExp(-1), [X]),
    (lambda: statistics.Norm(3, (1, 2), True), [X]),
    (lambda: statistics.Median(), [X]),
    (lambda: cumulative.CumSum(1), [X]),
    (lambda: cumulative.CumProd(-1), [X]),
    (lambda: selection.Gather(1), [X, ((3, 4, 5), I64)]),
    (lambda: selection.Scatter(2), [X, ((3, 7, 1), I64), ((3, 7, 2), F64)]),
    (lambda: selection.ScatterAdd(0), [X, ((2, 7, 5), I64), ((2, 7, 5), F64)]),
    (lambda: selection.ScatterReduce(1, "prod"), [X, ((3, 4, 5), I64), ((3, 6, 5), F64)]),
    (lambda: selection.ScatterReduce(-1, "amax", False), [X, ((2, 7, 3), I64),
                                                           ((3, 7, 4), F64)]),
    (lambda: selection.ScatterReduce(0, "mean"), [X, ((2, 7, 5), I64), ((2, 7, 5), F64)]),
    (lambda: selection.IndexAdd(1, alpha=2.0), [X, ((9,), I64), ((3, 9, 5), F64)]),
    (lambda: selection.IndexCopy(-1), [X, ((2,), I64), ((3, 7, 2), F64)]),
    (lambda: selection.Take(), [X, ((4, 6), I64)]),
    (lambda: selection.Put(), [X, ((4, 3), I64), ((12,), F64)]),
    (lambda: selection.Put(accumulate=True), [X, ((4, 3), I64), ((2, 6), F64)]),
    (lambda: selection.MaskedScatter(), [X, ((7, 1), B), ((110,), F64)]),
    (lambda: indexing.IndexPut((np.array([0, 1, 1]),), accumulate=True), [X, ((7, 5), F64)]),
    (lambda: shape_ops.Unfold(1, 3, 2), [X]),
    (lambda: selection.MaskedFill(1.5), [X, ((7, 5), B)]),
    (lambda: selection.MaskedFill(), [X, ((5,), B), ((), F64)]),
    (lambda: rearrange.Flip((0, -1)), [X]),
    (lambda: rearrange.Roll((2, -1), (1, 2)), [X]),
    (lambda: rearrange.Repeat((2, 1, 3, 1)), [X]),
    (lambda: rearrange.RepeatInterleave(np.array([1, 0, 2, 1, 3, 1, 1]), 1), [X]),
    (lambda: rearrange.RepeatInterleave(np.array(2)), [X]),
    (lambda: linalg.Tril(-1), [X]),
    (lambda: linalg.Triu(2), [X]),
    (lambda: linalg.Diagonal(1, 0, 2), [X]),
    (lambda: linalg.DiagMatrix(-2), [((5,), F64)]),
    (lambda: einsum.Einsum("bij,jk->bik"), [X, ((5, 2), F64)]),
    (lambda: einsum.Einsum("...ii->...i"), [((3, 5, 5), F64)]),
    (lambda: logical.Predicate("isnan"), [X]),
    (lambda: logical.IsClose(), [X, ((5,), F64)]),
    (lambda: logical.Logical("logical_xor"), [((7, 5), B), ((5,), B)]),
    (lambda: logical.Bitwise("bitwise_and"), [((7, 5), B), ((3, 1, 5), B)]),
    (lambda: logical.Bitwise("bitwise_xor"), [((7, 5), I64), ((5,), I64)]),
    (lambda: logical.BitwiseNot(), [((3, 7, 5), I64)]),
    (lambda: class_targets.OneHot(3), [((7, 5), I64)]),
    # functions of whole matrices (Cholesky needs positive definite input: its own tests)
    *[(lambda c=c: c(), [((3, 5, 5), F64)]) for c in (
        decompositions.Inv, decompositions.Det, decompositions.LogAbsDet,
        decompositions.DetSign, decompositions.Eigvalsh, decompositions.EighVectors)],
    (lambda: decompositions.Solve(), [((2, 1, 5, 5), F64), ((3, 5, 2), F64)]),
    (lambda: decompositions.Solve(), [((3, 5, 5), F64), ((3, 5), F64)]),
    (lambda: decompositions.Pinv(), [((3, 7, 5), F64)]),
    *[(lambda c=c, full=full: c(full), [((2, 7, 5), F64)]) for c in (
        decompositions.Svdvals, decompositions.SvdU, decompositions.SvdVh)
      for full in (False, True)],
    *[(lambda c=c, mode=mode: c(mode), [((2, s, 5), F64)]) for c in (
        decompositions.QrQ, decompositions.QrR) for mode in ("reduced", "complete")
      for s in (3, 5)],
    *[(lambda c=c: c(), [X]) for c in (
        special.Lgamma, special.Digamma, special.Sinc, special.Erfcx, special.Ndtr,
        special.LogNdtr, special.Entr, floats.Frexp)],
    (lambda: special.Polygamma(2), [X]),
    (lambda: special.BesselI(0), [X]),
    (lambda: special.BesselI(1, scaled=True), [X]),
    (lambda: special.Ndtri(), [((3, 7, 5), F64)]),
    (lambda: special.Xlog1py(), [X, ((7, 1), F64)]),
    (lambda: floats.Copysign(), [X, ((5,), F64)]),
    (lambda: floats.Ldexp(), [X, ((7, 5), F64)]),
    (lambda: floats.Nextafter(), [X, ((3, 1, 5), F64)]),
    (lambda: floats.Heaviside(), [X, ((5,), F64)]),
    (lambda: floats.WholeNumbers("gcd"), [((7, 5), I64), ((5,), I64)]),
    (lambda: floats.WholeNumbers("bitwise_right_shift"), [((3, 7, 5), I64), ((5,), I64)]),
]


def _arrays(rng, specs):
    arrays = []
    for shape, dtype in specs:
        if dtype is I64:
            arrays.append(rng.integers(0, 2, shape))
        elif dtype is B:
            arrays.append(rng.random(shape) < 0.5)
        else:
            arrays.append(rng.standard_normal(shape) + 2.0)
    return arrays


@pytest.mark.parametrize("case", range(len(OPS)))
def test_shape_rule_matches_forward_and_stores_nothing(rng, case):
    make, specs = OPS[case]
    op = make()
    before = dict(vars(op))
    inferred = op.infer(*[Spec(s, d) for s, d in specs])
    assert vars(op) == before, "infer stored something"
    arrays = _arrays(rng, specs)
    op.needs_input_grad = tuple(a.dtype == F64 for a in arrays)
    out = op.forward(*arrays)
    assert tuple(inferred) == out.shape
    grads = op.backward(np.ones_like(out, dtype=F64))
    assert len(grads) == len(arrays)
    for grad, array in zip(grads, arrays):
        if grad is not None:
            assert np.broadcast_shapes(np.shape(grad), array.shape) == np.shape(grad)


def test_every_function_is_the_method_of_that_name(rng):
    x = nb.tensor(rng.standard_normal((3, 7, 5)))
    for name in functions.METHODS:
        assert callable(getattr(nb, name)) and callable(getattr(nb.Tensor, name)), name
    for name in ("sin", "erf", "floor", "cumsum", "logsumexp", "flip", "tril"):
        args = (1,) if name in ("cumsum", "logsumexp", "flip") else ()
        np.testing.assert_array_equal(getattr(nb, name)(x, *args).numpy(),
                                      getattr(x, name)(*args).numpy())


@pytest.mark.torch
def test_every_function_and_method_exists_in_pytorch():
    import torch

    missing = [n for n in functions.__all__ if not hasattr(torch, n)]
    missing += [n for n in functions.METHODS if not hasattr(torch.Tensor, n)]
    assert not missing, missing


def test_data_free_shape_inference_runs_through_the_new_ops():
    class Net(nb.nn.Module):
        def forward(self, x):
            top = x.topk(3, dim=-1).values.sort(1).values
            mixed = nb.einsum("bij,bkj->bik", top, top).tril()
            middle = x.median(-1).values + x.kthvalue(2).values + x.mode(-1).values
            return (mixed.logsumexp(-1) + x.var(dim=(1, 2)).unsqueeze(1)).cumsum(1) + middle

    trace = nb.infer_shapes(Net(), (1000, 6, 4096))
    assert trace.error is None and trace.output_shape == (1000, 6)


def _differentiable(case) -> bool:
    """Does the op take a float input and give a float output?"""
    make, specs = OPS[case]
    arrays = _arrays(np.random.default_rng(0), specs)
    op = make()
    op.needs_input_grad = tuple(a.dtype == F64 for a in arrays)
    return any(d is F64 for _, d in specs) and op.forward(*arrays).dtype.kind == "f"


def _writable_output(case) -> bool:
    """unfold's windows are a read-only view: a change to them is refused before any
    backward (tests/ops/test_index_writes_and_windows_forward_and_gradients.py)."""
    return not isinstance(OPS[case][0](), shape_ops.Unfold)


@pytest.mark.parametrize("case", [c for c in range(len(OPS))
                                  if _differentiable(c) and _writable_output(c)])
def test_a_value_changed_in_place_after_the_op_never_gives_a_wrong_gradient(rng, case):
    make, specs = OPS[case]
    changed_in_place_is_caught_or_harmless(lambda *t: apply(make(), *t),
                                           _arrays(rng, specs))
