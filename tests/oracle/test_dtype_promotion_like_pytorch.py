"""Binary ops and nb.cat promote dtypes as PyTorch does, and refuse what PyTorch refuses.

Every pair of nine dtypes, as tensors with dimensions, 0-d tensors and Python numbers,
through +, -, *, /, //, %, ** and the comparisons: the same result dtype and values, or an
nnbook error where PyTorch raises (bool - bool, bool ** bool, an integer to a negative
Python int power, integer division by zero).
"""
import itertools
import operator

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import nnbook as nb

torch = pytest.importorskip("torch")

from like_pytorch import assert_same, outcome, same_failure  # noqa: E402

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
       "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
       ">": operator.gt, ">=": operator.ge}
NUMBERS = [True, False, 0, 3, -2, 300, 2.5, -0.5, 1e10]  # 300 wraps in int8, 1e10 is inf in float16


def values(rng, dtype, shape, zeros=True):
    """Small values of ``dtype`` (ints from -9 to 9, or 0 to 9 unsigned), zeros if asked."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("float"):
        data = rng.standard_normal(shape) * 3
        return np.where(rng.random(shape) < 0.1, 0.0, data).astype(dtype) if zeros \
            else data.astype(dtype)
    low = 0 if dtype == "uint8" else -9
    data = rng.integers(low, 10, shape)
    if not zeros:
        data = np.where(data == 0, 1, data)
    return data.astype(dtype)


def both(data):
    return nb.tensor(data), torch.tensor(data)


def as_nnbook_sees_it(number, tensor, symbol):
    """The number to give PyTorch so that it computes what nnbook computes.

    One difference is deliberate (nnbook/compat.py, "maths"): nnbook turns a Python
    number into the tensor's dtype first, and so does PyTorch, except that its float16 * and
    / keep the number in float32: float16 * 70000.0 can be finite there, inf here.  Numbers
    in float16's range differ by a rounding only, which the tolerance allows.
    """
    if symbol in ("*", "/") and isinstance(number, float) and tensor.dtype == torch.float16 \
            and abs(number) > 65504:
        return torch.tensor(number, dtype=torch.float16)
    return number


def compare(symbol, a, b, ta, tb, what):
    """One op in both libraries: the same outcome, or a record of how they differ."""
    fn = OPS[symbol]
    if not isinstance(ta, torch.Tensor):
        ta = as_nnbook_sees_it(ta, tb, symbol)
    if not isinstance(tb, torch.Tensor):
        tb = as_nnbook_sees_it(tb, ta, symbol)
    (got, error), (want, terror) = outcome(lambda: fn(a, b)), outcome(lambda: fn(ta, tb))
    if not same_failure(error, terror, what):
        assert_same(got, want, what)


def check_all(cases):
    """Run every case, then report all the differences at once (not only the first)."""
    failures = []
    for case in cases:
        try:
            compare(*case)
        except AssertionError as failure:
            failures.append(" ".join(str(failure).split())[:300])
    assert not failures, f"{len(failures)} differences from PyTorch:\n" + "\n".join(failures[:40])


# ------------------------------------------------------------------ every pair, every op

SHAPES = {"(7, 5) with (5,)": ((7, 5), (5,)), "(3, 1) with 0-d": ((3, 1), ()),
          "0-d with (1, 4)": ((), (1, 4)), "0-d with 0-d": ((), ())}


@pytest.mark.parametrize("shapes", sorted(SHAPES))
def test_every_pair_of_dtypes_promotes_as_pytorch(shapes, rng):
    shape_a, shape_b = SHAPES[shapes]
    cases = []
    for dtype_a, dtype_b in itertools.product(DTYPES, DTYPES):
        a, ta = both(values(rng, dtype_a, shape_a))
        b, tb = both(values(rng, dtype_b, shape_b, zeros=False))
        for symbol in OPS:
            what = f"{dtype_a}{shape_a} {symbol} {dtype_b}{shape_b}"
            cases.append((symbol, a, b, ta, tb, what))
    check_all(cases)


@pytest.mark.parametrize("side", ["tensor op number", "number op tensor"])
def test_python_numbers_promote_as_pytorch(side, rng):
    cases = []
    for dtype, shape in itertools.product(DTYPES, [(3, 5), ()]):
        x, tx = both(values(rng, dtype, shape))
        for number, symbol in itertools.product(NUMBERS, OPS):
            if side == "tensor op number":
                what = f"{dtype}{shape} {symbol} {number!r}"
                cases.append((symbol, x, number, tx, number, what))
            else:
                what = f"{number!r} {symbol} {dtype}{shape}"
                cases.append((symbol, number, x, number, tx, what))
    check_all(cases)


def test_integer_division_by_zero_is_refused_by_both():
    for dtype, symbol in itertools.product(["uint8", "int16", "int64", "bool"], ["//", "%"]):
        x, tx = both(np.array([3, 0, 1], dtype=dtype))
        zero, tzero = both(np.array([1, 0, 1], dtype=dtype))
        for b, tb in [(zero, tzero), (0, 0), (zero[1], tzero[1])]:
            compare(symbol, x, b, tx, tb, f"{dtype} {symbol} 0")
    with pytest.raises(nb.InputError, match="integer division by zero"):
        nb.tensor([4, 5]) // nb.tensor([2, 0])


def test_negation_of_bools_is_refused_by_both():
    _, error = outcome(lambda: -nb.tensor([True, False]))
    _, terror = outcome(lambda: -torch.tensor([True, False]))
    assert same_failure(error, terror, "-bool")
    assert isinstance(error, nb.DTypeError)


# ------------------------------------------------------------------ random operands

@st.composite
def operands(draw):
    """One operand: a tensor of some dtype and a shape that broadcasts with (3, 4), or a number."""
    kind = draw(st.sampled_from(["tensor", "tensor", "0-d", "number"]))
    if kind == "number":
        return draw(st.booleans() | st.integers(-20, 300) | st.floats(-1e3, 1e3, width=32))
    dtype = draw(st.sampled_from(DTYPES))
    shape = () if kind == "0-d" else draw(st.sampled_from([(3, 4), (4,), (3, 1), (1, 4)]))
    return dtype, shape


@settings(max_examples=200, deadline=None, derandomize=True)
@given(operands(), operands(), st.sampled_from(sorted(OPS)), st.integers(0, 2**32 - 1))
def test_random_operands_give_pytorchs_dtype_and_values(left, right, symbol, seed):
    assume(isinstance(left, tuple) or isinstance(right, tuple))  # a tensor, at least
    rng = np.random.default_rng(seed)
    pair = []
    for operand in (left, right):
        if isinstance(operand, tuple):
            pair.append(both(values(rng, *operand)))
        else:
            pair.append((operand, operand))
    (a, ta), (b, tb) = pair
    compare(symbol, a, b, ta, tb, f"{left} {symbol} {right}")


# ------------------------------------------------------------------ cat

@pytest.mark.parametrize("dtype_a", DTYPES)
def test_cat_promotes_every_pair_as_pytorch(dtype_a, rng):
    for dtype_b in DTYPES:
        a, ta = both(values(rng, dtype_a, (2, 3)))
        b, tb = both(values(rng, dtype_b, (4, 3)))
        c, tc = both(values(rng, dtype_b, ()))  # a 0-d tensor joins nothing, in both
        what = f"cat of {dtype_a} and {dtype_b}"
        assert_same(nb.cat([a, b]), torch.cat([ta, tb]), what)
        assert_same(nb.cat([b[0], a[1], a[0]], dim=-1), torch.cat([tb[0], ta[1], ta[0]], -1), what)
        _, error = outcome(lambda a=a, c=c: nb.cat([a, c]))
        _, terror = outcome(lambda ta=ta, tc=tc: torch.cat([ta, tc]))
        assert same_failure(error, terror, f"{what} (0-d)")


def test_cat_sends_each_input_its_gradient_in_its_own_dtype(rng):
    parts = [rng.standard_normal(s).astype(d) for s, d in
             [((2, 3), "float32"), ((1, 3), "float64"), ((3, 3), "float16")]]
    xs = [nb.tensor(p, requires_grad=True) for p in parts]
    txs = [torch.tensor(p, requires_grad=True) for p in parts]
    out, tout = nb.cat(xs), torch.cat(txs)
    assert_same(out, tout, "cat of float32, float64, float16")
    upstream = rng.standard_normal(tout.shape)
    out.backward(nb.tensor(upstream))
    tout.backward(torch.tensor(upstream))
    for x, tx in zip(xs, txs):
        assert_same(x.grad, tx.grad, f"gradient of a {tx.dtype} input")


# ------------------------------------------------------------------ clamp

BOUNDS = [(0, 3), (-1, None), (None, 2.5), (0.5, 4.5), (-1000, 50), (None, 1e10), (3, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp_promotes_its_bounds_and_refuses_those_out_of_range_as_pytorch(dtype, rng):
    x, tx = both(values(rng, dtype, (3, 5)))
    for low, high in BOUNDS:
        got, error = outcome(lambda low=low, high=high: x.clamp(low, high))
        want, terror = outcome(lambda low=low, high=high: tx.clamp(low, high))
        what = f"{dtype}.clamp({low}, {high})"
        if not same_failure(error, terror, what):
            assert_same(got, want, what)
