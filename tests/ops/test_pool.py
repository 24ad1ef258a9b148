"""Pooling ops: forward against naive numpy references, backward by gradcheck, shape rule,
errors.

Forward tests run on the reference ops and on their kernels (``implementation``);
gradchecks run on the reference, which tests/kernels/test_pool_kernels_match_reference.py
holds the kernels to.
"""
import contextlib
import itertools
import math
import time
from fractions import Fraction

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DTypeError, InputError, ShapeError
from nnbook.ops import Spec
from nnbook.ops.pool import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from nnbook.tensor import apply


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def out_size(size, k, s, p, d, ceil_mode):
    """PyTorch's documented formula, with ceil_mode's last-window rule."""
    exact = Fraction(size + 2 * p - d * (k - 1) - 1, s)
    out = (math.ceil(exact) if ceil_mode else math.floor(exact)) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def window(start, k, d, size):
    """Input pixels of one window that lie on the input (padding is left out)."""
    return [start + d * i for i in range(k) if 0 <= start + d * i < size]


def max_pool_ref(x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Values, and the input index each output took (the first max in window order)."""
    (kh, kw), (ph, pw), (dh, dw) = pair(kernel), pair(padding), pair(dilation)
    sh, sw = pair(kernel if stride is None else stride)
    n, c, h, w = x.shape
    ho, wo = out_size(h, kh, sh, ph, dh, ceil_mode), out_size(w, kw, sw, pw, dw, ceil_mode)
    out, where = np.zeros((n, c, ho, wo)), {}
    for i, j, r, q in itertools.product(range(n), range(c), range(ho), range(wo)):
        cells = [(a, b) for a in window(r * sh - ph, kh, dh, h)
                 for b in window(q * sw - pw, kw, dw, w)]
        values = [x[i, j, a, b] for a, b in cells]
        first = int(np.argmax(values))  # argmax returns the first of equal values
        out[i, j, r, q], where[i, j, r, q] = values[first], cells[first]
    return out, where


def avg_pool_ref(x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
    (kh, kw), (ph, pw) = pair(kernel), pair(padding)
    sh, sw = pair(kernel if stride is None else stride)
    n, c, h, w = x.shape
    ho, wo = out_size(h, kh, sh, ph, 1, ceil_mode), out_size(w, kw, sw, pw, 1, ceil_mode)
    out = np.zeros((n, c, ho, wo))
    for r, q in itertools.product(range(ho), range(wo)):
        h0, w0 = r * sh - ph, q * sw - pw
        h1, w1 = min(h0 + kh, h + ph), min(w0 + kw, w + pw)  # clipped to the padded input
        padded_count = (h1 - h0) * (w1 - w0)
        h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
        total = x[:, :, h0:h1, w0:w1].sum(axis=(2, 3))
        divisor = divisor_override or (padded_count if count_include_pad
                                       else (h1 - h0) * (w1 - w0))
        out[:, :, r, q] = total / divisor
    return out


def adaptive_ref(x, output_size):
    n, c, h, w = x.shape
    ho, wo = [x.shape[2 + i] if s is None else s for i, s in enumerate(pair(output_size))]
    out = np.zeros((n, c, ho, wo))
    for r, q in itertools.product(range(ho), range(wo)):
        h0, h1 = math.floor(Fraction(r * h, ho)), math.ceil(Fraction((r + 1) * h, ho))
        w0, w1 = math.floor(Fraction(q * w, wo)), math.ceil(Fraction((q + 1) * w, wo))
        out[:, :, r, q] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def t64(rng, *shape, requires_grad=True):
    return nb.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def pool(op, x):
    return apply(op, x)


@pytest.fixture(params=["kernel", "reference"])
def implementation(request):
    """Run the test with the kernels on (the default) and with the reference ops only."""
    with nb.reference_ops() if request.param == "reference" else contextlib.nullcontext():
        yield request.param


def reference_pool(make, x):
    """The pool built and run with the reference op, whatever the kernels."""
    with nb.reference_ops():
        return apply(make(), x)


SIZES = [(7, 5), (9, 4), (5, 11)]
# (kernel, stride, padding, dilation, ceil_mode)
MAX_CONFIGS = [
    (2, None, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), 1, True), ((1, 3), (1, 2), (0, 1), 1, False),
    (2, 1, 0, (2, 1), False), ((3, 2), (2, 3), 1, (1, 2), True), (3, None, 0, 1, True),
]
# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_CONFIGS = [
    (2, None, 0, False, True, None), (3, 2, 1, False, True, None), (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None), ((3, 2), (2, 1), (1, 0), True, False, None),
    ((1, 3), (1, 2), (0, 1), False, True, 2), ((2, 3), (3, 2), (1, 1), True, True, None),
]


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("config", MAX_CONFIGS, ids=str)
def test_max_pool_forward_and_gradcheck(rng, size, config, implementation):
    x = t64(rng, 2, 3, *size)
    op = MaxPool2d(*config)
    y = pool(op, x)
    expected, _ = max_pool_ref(x.detach().numpy(), *config)
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    assert MaxPool2d(*config).infer(Spec(x.shape)) == y.shape
    if implementation == "reference":
        assert nb.gradcheck(lambda x: reference_pool(lambda: MaxPool2d(*config), x), (x,))


@pytest.mark.parametrize("config", MAX_CONFIGS, ids=str)
def test_max_pool_ties_go_to_the_first_max(rng, config, implementation):
    """Integer-valued inputs tie often; each gradient must reach the first max of its window."""
    x = nb.tensor(rng.integers(0, 3, size=(2, 2, 9, 4)).astype(np.float64), requires_grad=True)
    y = pool(MaxPool2d(*config), x)
    g = rng.standard_normal(y.shape)
    y.backward(g)
    _, where = max_pool_ref(x.detach().numpy(), *config)
    expected = np.zeros(x.shape)
    for (i, j, r, q), (a, b) in where.items():
        expected[i, j, a, b] += g[i, j, r, q]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("config", AVG_CONFIGS, ids=str)
def test_avg_pool_forward_and_gradcheck(rng, size, config, implementation):
    x = t64(rng, 2, 3, *size)
    y = pool(AvgPool2d(*config), x)
    np.testing.assert_allclose(
        y.detach().numpy(), avg_pool_ref(x.detach().numpy(), *config), rtol=1e-12, atol=1e-12
    )
    assert AvgPool2d(*config).infer(Spec(x.shape)) == y.shape
    if implementation == "reference":
        assert nb.gradcheck(lambda x: reference_pool(lambda: AvgPool2d(*config), x), (x,))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("output_size", [1, 2, (3, 2), (None, 3), (4, None), (8, 12), 5])
def test_adaptive_avg_pool_forward_and_gradcheck(rng, size, output_size, implementation):
    x = t64(rng, 2, 3, *size)
    y = pool(AdaptiveAvgPool2d(output_size), x)
    np.testing.assert_allclose(
        y.detach().numpy(), adaptive_ref(x.detach().numpy(), output_size), rtol=1e-12, atol=1e-12
    )
    assert AdaptiveAvgPool2d(output_size).infer(Spec(x.shape)) == y.shape
    assert nb.gradcheck(lambda x: pool(AdaptiveAvgPool2d(output_size), x), (x,))


@pytest.mark.parametrize("make", [lambda: MaxPool2d(3, 2, 1), lambda: AvgPool2d((3, 2), 1, (1, 0)),
                                  lambda: AdaptiveAvgPool2d((2, 3))], ids=lambda make: make().name)
def test_unbatched_input(rng, make, implementation):
    x = t64(rng, 3, 7, 5)
    y = pool(make(), x)
    batched = pool(make(), nb.tensor(x.detach().numpy()[None]))
    np.testing.assert_allclose(y.detach().numpy(), batched.detach().numpy()[0], rtol=1e-12)
    if implementation == "reference":
        assert nb.gradcheck(lambda x: pool(make(), x), (x,))


@pytest.mark.parametrize("make", [lambda: MaxPool2d(2), lambda: AvgPool2d(3, 2, 1),
                                  lambda: AdaptiveAvgPool2d((2, 3)),
                                  lambda: AdaptiveAvgPool2d(1)], ids=lambda make: make().name)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_kept(rng, make, dtype, implementation):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)).astype(dtype), requires_grad=True)
    y = pool(make(), x)
    y.backward(np.ones(y.shape, dtype=dtype))
    assert y.dtype == x.grad.dtype == dtype


@pytest.mark.parametrize("make", [lambda: MaxPool2d(2), lambda: AvgPool2d(3, 2, 1),
                                  lambda: AdaptiveAvgPool2d((2, 3))], ids=lambda make: make().name)
def test_empty_batch(rng, make, implementation):
    x = t64(rng, 0, 3, 7, 5)
    y = pool(make(), x)
    assert y.shape == make().infer(Spec(x.shape))
    y.backward(np.ones(y.shape))
    assert x.grad.shape == x.shape


def test_max_pool_padding_is_minus_infinity(implementation):
    x = nb.tensor(-np.ones((1, 1, 3, 3)) - np.arange(9).reshape(1, 1, 3, 3))
    y = pool(MaxPool2d(3, 1, 1), x)
    assert y.detach().numpy().max() == -1.0  # never the zero padding


def test_avg_pool_global_mean_from_adaptive(rng, implementation):
    x = t64(rng, 4, 5, 7, 5)
    y = pool(AdaptiveAvgPool2d(1), x)
    np.testing.assert_allclose(
        y.detach().numpy()[:, :, 0, 0], x.detach().numpy().mean(axis=(2, 3)), rtol=1e-12
    )


# ---------------------------------------------------------------------------
# The shape rule and formulas
# ---------------------------------------------------------------------------

def test_shape_rule_agrees_with_forward(implementation):
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        k = tuple(int(v) for v in rng.integers(1, 4, size=2))
        args = (k, tuple(int(v) for v in rng.integers(1, 4, size=2)),
                tuple(int(rng.integers(0, v // 2 + 1)) for v in k))
        shape = (1, 2) + tuple(int(v) for v in rng.integers(1, 10, size=2))
        ceil_mode = bool(rng.integers(0, 2))
        for op in (MaxPool2d(*args, dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
                             ceil_mode=ceil_mode), AvgPool2d(*args, ceil_mode=ceil_mode)):
            try:
                inferred = op.infer(Spec(shape))
            except ShapeError:
                continue
            assert pool(op, nb.tensor(np.ones(shape))).shape == inferred
            checked += 1
    assert checked > 200


def test_shape_rule_on_a_huge_spec_is_instant():
    start = time.perf_counter()
    shapes = [op.infer(Spec((1000, 3, 4096, 2048))) for op in
              (MaxPool2d(3, 2, 1, ceil_mode=True), AvgPool2d(2), AdaptiveAvgPool2d((7, None)))]
    assert time.perf_counter() - start < 0.05
    assert shapes == [(1000, 3, 2049, 1025), (1000, 3, 2048, 1024), (1000, 3, 7, 2048)]


def test_formulas():
    assert MaxPool2d(3, 2, 1).formula(Spec((1, 3, 16, 9))) == [
        "H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8",
        "W_out = floor((9 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 5",
    ]
    # ceil_mode: a last window that would start in the right padding is dropped
    assert MaxPool2d(2, 2, 1, ceil_mode=True).formula(Spec((1, 1, 5, 4))) == [
        ("H_out = ceil((5 + 2·1 − 1·(2 − 1) − 1) / 2) + 1 − 1 = 3 "
         "(the last window would start in the padding)"),
        "W_out = ceil((4 + 2·1 − 1·(2 − 1) − 1) / 2) + 1 = 3",
    ]
    assert AvgPool2d((3, 2), 2).formula(Spec((1, 3, 7, 5))) == [
        "H_out = floor((7 + 2·0 − 3) / 2) + 1 = 3",
        "W_out = floor((5 + 2·0 − 2) / 2) + 1 = 2",
    ]
    assert AdaptiveAvgPool2d((1, None)).formula(Spec((1, 3, 7, 5))) == [
        "H_out = output_size = 1",
        "W_out = W_in = 5",
    ]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("op,shape,match", [
    (MaxPool2d(3, 1, 2), (1, 1, 7, 5),
     r"padding must be at most half the kernel size, got padding=2 with kernel size 3"),
    (AvgPool2d((3, 1), 1, (1, 1)), (1, 1, 7, 5), r"got padding=1 with kernel size 1"),
    (MaxPool2d(3, 2), (1, 1, 2, 8),
     r"the output would be 0×3: the window does not fit in the 2×8 input"),
    (AvgPool2d(4), (1, 1, 7, 3), r"the output would be 1×0"),
    (MaxPool2d(0), (1, 1, 7, 5), r"kernel_size must be at least 1, got kernel_size=0"),
    (MaxPool2d(2, (1, 0)), (1, 1, 7, 5), r"stride must be at least 1, got stride=\(1, 0\)"),
    (MaxPool2d(2, dilation=0), (1, 1, 7, 5), r"dilation must be at least 1"),
    (AvgPool2d(2, padding=-1), (1, 1, 7, 5), r"padding must be at least 0"),
    (MaxPool2d(2), (7, 5), r"expects a 3-D or 4-D input \(N, C, H, W\), got 2-D"),
    (MaxPool2d(2), (1, 0, 7, 5), r"at least one channel, row and column"),
    (MaxPool2d(2, 1, 1, dilation=(3, 1)), (1, 1, 2, 2),
     r"output pixel 0 along the height has a window of padding only"),
    (AdaptiveAvgPool2d((0, 2)), (1, 1, 7, 5), r"output_size must be at least 1"),
])
def test_shape_errors(op, shape, match):
    with pytest.raises(ShapeError, match=match) as info:
        op.infer(Spec(shape))
    assert "hint: " in str(info.value) and str(info.value).startswith(op.name)


def test_error_message_has_values():
    with pytest.raises(ShapeError) as info:
        MaxPool2d(3, 2, 2, ceil_mode=True).infer(Spec((8, 4, 7, 5)))
    assert "input (8, 4, 7, 5)   kernel_size=3   stride=2   padding=2   ceil_mode=True" \
        in str(info.value)


@pytest.mark.parametrize("op", [MaxPool2d(2), AvgPool2d(2), AdaptiveAvgPool2d(1)],
                         ids=lambda op: op.name)
def test_integer_input_is_refused(op):
    with pytest.raises(DTypeError, match="needs a floating point input, got int64"):
        op.infer(Spec((1, 1, 4, 4), np.int64))


@pytest.mark.parametrize("make,match", [
    (lambda: MaxPool2d(2.5), r"kernel_size must be an int or a pair of ints"),
    (lambda: AvgPool2d(2, (1, 2, 3)), r"stride must be an int or a pair of ints"),
    (lambda: AvgPool2d(2, divisor_override=0), r"divisor_override must be a nonzero int"),
    (lambda: AdaptiveAvgPool2d("big"), r"output_size must be an int or a pair"),
    (lambda: AdaptiveAvgPool2d((1, 2, 3)), r"output_size must be an int or a pair"),
])
def test_bad_argument_types(make, match):
    with pytest.raises(InputError, match=match):
        make()


def test_bad_input_never_reaches_numpy():
    with pytest.raises(ShapeError, match="padding must be at most half"):
        pool(MaxPool2d(2, 1, 2), nb.tensor(np.ones((1, 1, 5, 5))))


def test_infer_and_formula_store_nothing():
    """The shape rule is a pure function of its inputs: nothing is left on the op."""
    for op in (MaxPool2d(3, 2, 1, dilation=(1, 2), ceil_mode=True),
               AvgPool2d((3, 2), 2, (1, 0), ceil_mode=True), AdaptiveAvgPool2d((3, None))):
        before = dict(vars(op))
        op.infer(Spec((2, 3, 9, 7)))
        op.formula(Spec((3, 9, 7)))
        assert vars(op) == before


def test_max_pool_gives_a_tied_window_gradient_to_its_first_maximum(implementation):
    x = nb.tensor([[[[1.0, 3.0], [3.0, 2.0]]]], requires_grad=True)
    apply(MaxPool2d(2), x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 1], [0, 0]]]])


def test_max_pool_drops_the_gradient_of_a_nan_window(implementation):
    data = [[[[1.0, np.nan, 2.0], [3.0, 0.0, 5.0]]]]
    x = nb.tensor(data, requires_grad=True)
    y = apply(MaxPool2d((1, 2), 1), x)     # in row 0 both windows hold the NaN
    y.backward(np.ones(y.shape))
    assert np.isnan(y.detach().numpy()[0, 0, 0]).all()
    np.testing.assert_array_equal(y.detach().numpy()[0, 0, 1], [3.0, 5.0])
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 0, 0], [1, 0, 1]]]])
