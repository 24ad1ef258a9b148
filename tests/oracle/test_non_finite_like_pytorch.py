"""NaN, inf, -inf, 0 and -0.0 among ordinary values: nnbook's ops give PyTorch's values
(NaN at the same places, the same sign on a zero) and PyTorch's gradients, silently.

The test suite turns warnings into errors, so a numpy RuntimeWarning ("overflow
encountered in exp", "invalid value encountered in multiply") that escaped an op would
fail here too: PyTorch makes these values without a word, and so must nnbook.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nnbook as nb

torch = pytest.importorskip("torch")

from like_pytorch import assert_same  # noqa: E402

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])
# every special value, and values where exp overflows or ** and % take their other branches
EVERY = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, -2.5, 3.0, 1e-3,
                  1000.0])


def mixed(rng, shape, dtype):
    """Ordinary values with NaN, infinities, signed zeros and ones in about half the places."""
    data = np.where(rng.random(shape) < 0.5, rng.choice(SPECIAL, size=shape),
                    rng.standard_normal(shape) * 2)
    return data.astype(dtype)


# name -> the op, written once for nnbook's tensors and PyTorch's
UNARY = {
    "exp": lambda x: x.exp(), "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(),
    "abs": lambda x: x.abs(), "tanh": lambda x: x.tanh(), "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(), "neg": lambda x: -x,
    "x ** 0": lambda x: x ** 0, "x ** 2": lambda x: x ** 2, "x ** 2.5": lambda x: x ** 2.5,
    "x ** -1.5": lambda x: x ** -1.5, "x ** 0.5": lambda x: x ** 0.5,
    "x ** -0.5": lambda x: x ** -0.5, "x ** -1": lambda x: x ** -1, "x ** 3": lambda x: x ** 3,
    "x ** -2": lambda x: x ** -2, "2 ** x": lambda x: 2 ** x, "0 ** x": lambda x: 0.0 ** x,
    "x / 0": lambda x: x / 0.0, "1 / x": lambda x: 1 / x, "x // 2": lambda x: x // 2.0,
    "x % 2.5": lambda x: x % 2.5, "-3 % x": lambda x: -3.0 % x,
}
BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "**": lambda a, b: a ** b, "%": lambda a, b: a % b,
    "//": lambda a, b: a // b, "maximum": lambda a, b: a.max(b),
}
REDUCTIONS = {
    "sum": lambda x: x.sum(), "sum(-1)": lambda x: x.sum(-1), "mean": lambda x: x.mean(),
    "mean(0, keepdim)": lambda x: x.mean(0, keepdim=True), "max": lambda x: x.max(),
    "max(-1)": lambda x: x.max(-1), "max(0, keepdim)": lambda x: x.max(0, keepdim=True),
    "argmax": lambda x: x.argmax(), "argmax(-1)": lambda x: x.argmax(-1),
}
NOT_DIFFERENTIABLE_IN_PYTORCH = {"x // 2", "//", "-3 % x"}  # nnbook: zero, or the rule
# PyTorch's maximum(0.0, -0.0) is the first operand in its scalar loop and the second in its
# vectorised one: the sign of that zero is no rule to compare against.
SIGN_OF_ZERO_UNSPECIFIED = {"maximum"}


def both(data):
    return nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def check(fn, inputs, rng, what, signed_zeros, upstream_special=False, gradients=True,
          upstream=None):
    """Forward values, then the gradients of an upstream gradient: ``upstream``, or one
    drawn from ``rng`` (mixed with special values if ``upstream_special``)."""
    nbs, torches = zip(*[both(x) for x in inputs])
    out, tout = fn(*nbs), fn(*torches)
    if isinstance(tout, tuple):  # max(dim): (values, indices)
        assert_same(out.indices, tout.indices, f"{what}: indices")
        out, tout = out.values, tout.values
    assert_same(out, tout, what, signed_zeros=signed_zeros)
    if not (gradients and tout.requires_grad):
        return
    dtype = inputs[0].dtype
    if upstream is None:
        upstream = mixed(rng, tout.shape, dtype) if upstream_special else \
            rng.standard_normal(tout.shape).astype(dtype)
    out.backward(nb.tensor(upstream))
    tout.backward(torch.tensor(upstream))
    for i, (x, tx) in enumerate(zip(nbs, torches)):
        assert_same(x.grad, tx.grad, f"{what}: gradient of input {i}, upstream {upstream}",
                    signed_zeros=signed_zeros)


def upstreams(shape, dtype):
    """Upstream gradients: ones, a negative constant, and a mix of every special value."""
    mix = np.resize(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 2.0]), shape)
    return [np.ones(shape, dtype), np.full(shape, -2.0, dtype), mix.astype(dtype)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_every_special_value_through_every_elementwise_op_matches_pytorch(name, dtype):
    for upstream in upstreams(EVERY.shape, dtype):
        check(UNARY[name], [EVERY.astype(dtype)], None, name, signed_zeros=True,
              upstream=upstream, gradients=name not in NOT_DIFFERENTIABLE_IN_PYTORCH)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_every_pair_of_special_values_through_binary_ops_matches_pytorch(name, dtype):
    a, b = (grid.ravel().astype(dtype) for grid in np.meshgrid(EVERY, EVERY))
    for upstream in upstreams(a.shape, dtype):
        check(BINARY[name], [a, b], None, f"a {name} b", upstream=upstream,
              signed_zeros=name not in SIGN_OF_ZERO_UNSPECIFIED,
              gradients=name not in NOT_DIFFERENTIABLE_IN_PYTORCH)


@pytest.mark.parametrize("low", [-1.0, -0.0, 0.0, 0.5, None, np.nan])
@pytest.mark.parametrize("high", [-0.5, -0.0, 0.0, 2.0, None, np.nan])
def test_clamp_of_every_special_value_between_any_bounds_matches_pytorch(low, high):
    if low is None and high is None:
        with pytest.raises(nb.InputError, match="min, max or both"):
            nb.tensor(EVERY).clamp()
        return
    for upstream in upstreams(EVERY.shape, np.float64):
        check(lambda x: x.clamp(low, high), [EVERY], None, f"clamp({low}, {high})",
              signed_zeros=True, upstream=upstream)


# Rows where max meets NaN (twice), a tie of infinities, only -inf, and zeros of both signs
ROWS = np.array([[1.0, np.nan, 3.0, np.nan, 2.0], [np.inf, 2.0, np.inf, -1.0, 0.0],
                 [-np.inf] * 5, [0.0, -0.0, -0.0, 0.0, -1.0]])


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_of_rows_with_nan_ties_and_infinities_match_pytorch(name):
    for rows in (ROWS, ROWS[1:], ROWS[2:]):  # with and without the NaN row
        out = REDUCTIONS[name](torch.tensor(rows))
        shape = (out.values if isinstance(out, tuple) else out).shape
        for upstream in upstreams(shape, np.float64):
            check(REDUCTIONS[name], [rows], None, f"{name} of\n{rows}", signed_zeros=False,
                  upstream=upstream)


def test_max_of_a_tensor_holding_nan_sends_the_gradient_to_its_nans():
    x = nb.tensor([1.0, np.nan, 3.0, np.nan], requires_grad=True)
    x.max().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.5, 0.0, 0.5])  # as PyTorch: shared


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)
float_dtypes = st.sampled_from([np.float32, np.float64])
seeds = st.integers(0, 2**32 - 1)
FEW = settings(max_examples=100, deadline=None, derandomize=True)


@FEW
@given(st.sampled_from(sorted(UNARY)), shapes, float_dtypes, st.booleans(), seeds)
def test_elementwise_ops_on_non_finite_values_match_pytorch(name, shape, dtype, upstream_special,
                                                            seed):
    rng = np.random.default_rng(seed)
    check(UNARY[name], [mixed(rng, shape, dtype)], rng, name, signed_zeros=True,
          upstream_special=upstream_special, gradients=name not in NOT_DIFFERENTIABLE_IN_PYTORCH)


@FEW
@given(st.sampled_from(sorted(BINARY)), shapes, float_dtypes, st.booleans(), seeds)
def test_binary_ops_on_non_finite_values_match_pytorch(name, shape, dtype, upstream_special,
                                                       seed):
    rng = np.random.default_rng(seed)
    a, b = mixed(rng, shape, dtype), mixed(rng, shape[-1:], dtype)  # b broadcasts
    check(BINARY[name], [a, b], rng, f"a {name} b",
          signed_zeros=name not in SIGN_OF_ZERO_UNSPECIFIED,
          upstream_special=upstream_special, gradients=name not in NOT_DIFFERENTIABLE_IN_PYTORCH)


@FEW
@given(st.sampled_from(sorted(REDUCTIONS)), shapes, float_dtypes, st.booleans(), seeds)
def test_reductions_of_non_finite_values_match_pytorch(name, shape, dtype, upstream_special, seed):
    rng = np.random.default_rng(seed)
    check(REDUCTIONS[name], [mixed(rng, shape, dtype)], rng, name, signed_zeros=False,
          upstream_special=upstream_special)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid"])
def test_values_far_out_keep_their_relative_precision(name, dtype):
    """Relative, not absolute, agreement: sigmoid(-20) is 2e-9, and 3e-8 would be wrong."""
    data = np.concatenate([-np.geomspace(80, 1e-6, 61), np.geomspace(1e-6, 80, 61)]).astype(dtype)
    x, tx = both(data)
    out, tout = UNARY[name](x), UNARY[name](tx)
    rtol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=rtol, atol=0)
    out.backward(nb.ones_like(out))
    tout.backward(torch.ones_like(tout))
    # tanh's 1 - y**2 cancels where |y| is nearly 1, in both libraries: one ulp of y apart
    # (or a fused multiply-add) leaves no relative digits there, only absolute ones
    atol = 4 * np.finfo(dtype).eps if name == "tanh" else 0
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=atol)
