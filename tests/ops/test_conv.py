"""Conv2d op: forward against a naive numpy reference, backward by gradcheck, shape rule, errors.

Shapes are odd and non-square on purpose (the swapped height and width broke a
non-square input).  Forward tests run on the reference op and on its kernel
(``implementation``); gradchecks run on the reference, which
tests/kernels/test_conv_kernel_matches_reference.py holds the kernel to.
"""
import contextlib
import itertools
import time

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DTypeError, InputError, ShapeError
from nnbook.ops import Spec
from nnbook.ops.conv import Conv2d
from nnbook.tensor import apply


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """The definition, one output pixel at a time."""
    (sh, sw), (ph, pw), (dh, dw) = pair(stride), pair(padding), pair(dilation)
    n, _, h, wd = x.shape
    c_out, per_group, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c_out, ho, wo), dtype=x.dtype)
    outs_per_group = c_out // groups
    for i, o, r, q in itertools.product(range(n), range(c_out), range(ho), range(wo)):
        g = o // outs_per_group
        window = xp[i, g * per_group:(g + 1) * per_group,
                    r * sh:r * sh + dh * (kh - 1) + 1:dh, q * sw:q * sw + dw * (kw - 1) + 1:dw]
        out[i, o, r, q] = (window * w[o]).sum() + (0 if b is None else b[o])
    return out


def conv_ref_grads(x, w, g, stride=1, padding=0, dilation=1, groups=1):
    """dL/dx and dL/dW of sum(g * conv(x, w)), straight from the definition."""
    (sh, sw), (ph, pw), (dh, dw) = pair(stride), pair(padding), pair(dilation)
    c_out, per_group, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    grad_xp, grad_w = np.zeros_like(xp), np.zeros_like(w)
    outs_per_group = c_out // groups
    n, _, ho, wo = g.shape
    for i, o, r, q in itertools.product(range(n), range(c_out), range(ho), range(wo)):
        grp = o // outs_per_group
        rows = slice(r * sh, r * sh + dh * (kh - 1) + 1, dh)
        cols = slice(q * sw, q * sw + dw * (kw - 1) + 1, dw)
        chans = slice(grp * per_group, (grp + 1) * per_group)
        grad_w[o] += g[i, o, r, q] * xp[i, chans, rows, cols]
        grad_xp[i, chans, rows, cols] += g[i, o, r, q] * w[o]
    return grad_xp[:, :, ph:ph + x.shape[2], pw:pw + x.shape[3]], grad_w


def t64(rng, *shape, requires_grad=True):
    return nb.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def conv(x, w, b=None, **kw):
    return apply(Conv2d(**kw), x, w, *([] if b is None else [b]))


@pytest.fixture(params=["kernel", "reference"])
def implementation(request):
    """Run the test with the kernels on (the default) and with the reference ops only."""
    with nb.reference_ops() if request.param == "reference" else contextlib.nullcontext():
        yield request.param


def reference_conv(x, w, b=None, **kw):
    """conv with the reference op, whatever the kernels: what gradcheck checks."""
    with nb.reference_ops():
        return conv(x, w, b, **kw)


# (input H×W, kernel kh×kw, stride, padding, dilation): odd and non-square throughout
GEOMETRIES = [
    ((7, 5), (3, 2), 1, 0, 1),
    ((7, 5), (3, 2), 2, 1, 1),
    ((9, 4), (1, 3), (2, 1), (0, 1), 1),
    ((9, 4), (3, 2), 1, (1, 0), (2, 1)),
    ((5, 11), (1, 3), (1, 2), 1, (1, 3)),
    ((5, 11), (3, 3), (2, 3), (1, 2), (2, 2)),
    ((7, 5), (1, 1), 1, 0, 1),
    ((9, 4), (1, 1), (2, 3), 0, 1),
    ((5, 11), (1, 1), 1, 1, 1),
]
# (in channels, out channels, groups): ordinary, grouped, depthwise with multipliers 1 and 2,
# and a single input channel (an ordinary conv that happens to have groups == C_in)
CHANNELS = [(3, 4, 1), (4, 6, 2), (4, 4, 4), (3, 6, 3), (1, 3, 1)]


def config_id(geom, chans):
    return f"in{geom[0]}-k{geom[1]}-s{geom[2]}-p{geom[3]}-d{geom[4]}-c{chans}"


CASES = [(g, c) for g in GEOMETRIES for c in CHANNELS]


@pytest.mark.parametrize("geom,chans", CASES, ids=[config_id(*c) for c in CASES])
def test_forward_matches_reference(rng, geom, chans, implementation):
    (h, w), (kh, kw), stride, padding, dilation = geom
    c_in, c_out, groups = chans
    x, weight, b = t64(rng, 2, c_in, h, w), t64(rng, c_out, c_in // groups, kh, kw), t64(rng, c_out)
    kw_args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    y = conv(x, weight, b, **kw_args)
    np.testing.assert_allclose(
        y.detach().numpy(),
        conv_ref(x.detach().numpy(), weight.detach().numpy(), b.detach().numpy(), **kw_args),
        rtol=1e-12,
        atol=1e-12,
    )
    assert Conv2d(**kw_args).infer(Spec(x.shape), Spec(weight.shape), Spec(b.shape)) == y.shape


@pytest.mark.parametrize("geom,chans", CASES, ids=[config_id(*c) for c in CASES])
def test_backward_gradcheck(rng, geom, chans):
    (h, w), (kh, kw), stride, padding, dilation = geom
    c_in, c_out, groups = chans
    x, weight, b = t64(rng, 2, c_in, h, w), t64(rng, c_out, c_in // groups, kh, kw), t64(rng, c_out)
    kw_args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    assert nb.gradcheck(lambda x, w, b: reference_conv(x, w, b, **kw_args), (x, weight, b))


@pytest.mark.parametrize("padding", ["same", "valid"])
@pytest.mark.parametrize("kernel,dilation", [((3, 2), 1), ((2, 3), (1, 2)), ((3, 3), 2)])
def test_string_padding(rng, padding, kernel, dilation, implementation):
    x, w = t64(rng, 2, 3, 7, 5), t64(rng, 4, 3, *kernel)
    y = conv(x, w, padding=padding, dilation=dilation)
    if padding == "same":
        assert y.shape[2:] == (7, 5)
        # 'same' pads d·(k − 1) in all, the odd one at the end
        totals = [pair(dilation)[a] * (kernel[a] - 1) for a in (0, 1)]
        xp = np.pad(
            x.detach().numpy(),
            (
                (0, 0),
                (0, 0),
                (totals[0] // 2, totals[0] - totals[0] // 2),
                (totals[1] // 2, totals[1] - totals[1] // 2),
            ),
        )
        expected = conv_ref(xp, w.detach().numpy(), dilation=dilation)
    else:
        expected = conv_ref(x.detach().numpy(), w.detach().numpy(), dilation=dilation)
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert nb.gradcheck(lambda x, w: reference_conv(x, w, padding=padding, dilation=dilation),
                        (x, w))


def test_first_layer_skips_grad_x(rng, implementation):
    """An input that needs no gradient gets none computed (and the weight still does)."""
    x, w = t64(rng, 2, 3, 7, 5, requires_grad=False), t64(rng, 4, 3, 3, 2)
    op = Conv2d(padding=1)
    y = apply(op, x, w)
    grads = op.backward(np.ones(y.shape))
    assert grads[0] is None and grads[1].shape == w.shape


@pytest.mark.parametrize("w_shape,kw_args", [((4, 3, 3, 2), dict(padding=1)),
                                             ((6, 1, 3, 3), dict(padding=1, groups=3)),
                                             ((4, 3, 1, 1), dict(stride=2))])
def test_frozen_weight_still_gives_grad_x(rng, w_shape, kw_args):
    x, w = t64(rng, 2, 3, 7, 5), t64(rng, *w_shape, requires_grad=False)
    assert nb.gradcheck(lambda x: reference_conv(x, w, **kw_args), (x,))


@pytest.mark.parametrize("w_shape,kw_args", [((4, 3, 3, 2), dict(padding=1)),
                                             ((6, 1, 3, 3), dict(padding=1, groups=3)),
                                             ((4, 3, 1, 1), dict(stride=2))])
def test_empty_batch(rng, w_shape, kw_args, implementation):
    x, w, b = t64(rng, 0, 3, 7, 5), t64(rng, *w_shape), t64(rng, w_shape[0])
    y = conv(x, w, b, **kw_args)
    assert y.shape == Conv2d(**kw_args).infer(Spec(x.shape), Spec(w.shape))
    y.backward(np.ones(y.shape))
    assert x.grad.shape == x.shape and not w.grad.numpy().any() and not b.grad.numpy().any()


@pytest.mark.parametrize("groups,c_out", [(1, 5), (3, 3), (3, 6)])
def test_unbatched_input(rng, groups, c_out, implementation):
    x, w, b = t64(rng, 3, 7, 5), t64(rng, c_out, 3 // groups, 3, 2), t64(rng, c_out)
    y = conv(x, w, b, padding=1, groups=groups)
    expected = conv_ref(
        x.detach().numpy()[None], w.detach().numpy(), b.detach().numpy(), padding=1, groups=groups
    )[0]
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert nb.gradcheck(lambda x, w, b: reference_conv(x, w, b, padding=1, groups=groups),
                        (x, w, b))


@pytest.mark.parametrize("kind", ["ordinary", "pointwise", "depthwise"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_kept(rng, kind, dtype, implementation):
    c_in, groups, kernel = {"ordinary": (3, 1, 3), "pointwise": (3, 1, 1),
                            "depthwise": (8, 8, 3)}[kind]
    x = nb.tensor(rng.standard_normal((2, c_in, 7, 5)).astype(dtype), requires_grad=True)
    w = nb.tensor(rng.standard_normal((8, c_in // groups, kernel, kernel)).astype(dtype),
                  requires_grad=True)
    b = nb.tensor(rng.standard_normal(8).astype(dtype), requires_grad=True)
    y = conv(x, w, b, stride=(1, 2), groups=groups)
    y.backward(np.ones(y.shape, dtype=dtype))
    assert y.dtype == x.grad.dtype == w.grad.dtype == b.grad.dtype == dtype


def test_swapped_height_and_width_depthwise_on_non_square_input(rng, implementation):
    """The swapped height and width: depthwise 3×3, stride 1, padding 1 on a 10×64×8×4
    input, forward and backward."""
    x, w, b = t64(rng, 10, 64, 8, 4), t64(rng, 64, 1, 3, 3), t64(rng, 64)
    y = conv(x, w, b, stride=1, padding=1, groups=64)
    assert y.shape == (10, 64, 8, 4)
    np.testing.assert_allclose(
        y.detach().numpy(),
        conv_ref(x.detach().numpy(), w.detach().numpy(), b.detach().numpy(), padding=1, groups=64),
        rtol=1e-12,
        atol=1e-12,
    )
    g = rng.standard_normal(y.shape)
    y.backward(g)
    grad_x, grad_w = conv_ref_grads(x.detach().numpy(), w.detach().numpy(), g, padding=1, groups=64)
    np.testing.assert_allclose(x.grad.numpy(), grad_x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), grad_w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(axis=(0, 2, 3)), rtol=1e-12)
    # and numerically, on a slice of the batch and channels (the full one takes minutes)
    xs, ws = t64(rng, 2, 6, 8, 4), t64(rng, 6, 1, 3, 3)
    assert nb.gradcheck(lambda x, w: reference_conv(x, w, padding=1, groups=6), (xs, ws))


def test_swapped_height_and_width_block_forward_and_backward(rng, implementation):
    """The ops of the Xception block of the swapped height and width, on its 10×3×16×8
    input: every gradient arrives."""
    from nnbook.ops.pool import MaxPool2d

    x = t64(rng, 10, 3, 16, 8, requires_grad=False)
    w_in, w_dw = t64(rng, 64, 3, 3, 3), t64(rng, 64, 1, 3, 3)
    w_pw, w_skip = t64(rng, 512, 64, 1, 1), t64(rng, 512, 64, 1, 1)
    h = conv(x, w_in, stride=2, padding=1)                        # (10, 64, 8, 4)
    seq = conv(conv(h, w_dw, padding=1, groups=64), w_pw)          # (10, 512, 8, 4)
    seq = apply(MaxPool2d(3, 2, 1), seq)                          # (10, 512, 4, 2)
    skip = conv(h, w_skip, stride=2)                              # (10, 512, 4, 2)
    out = seq + skip
    assert h.shape == (10, 64, 8, 4) and out.shape == (10, 512, 4, 2)
    out.sum().backward()
    for w in (w_in, w_dw, w_pw, w_skip):
        assert w.grad is not None and w.grad.shape == w.shape


@pytest.mark.parametrize("multiplier", [1, 2, 3])
def test_depthwise_matches_grouped_reference_backward(rng, multiplier, implementation):
    """Depth multipliers: output channel c·m + k sees input channel c."""
    x, w = t64(rng, 2, 3, 9, 4), t64(rng, 3 * multiplier, 1, 3, 2)
    y = conv(x, w, stride=(2, 1), padding=(1, 1), dilation=(1, 2), groups=3)
    g = rng.standard_normal(y.shape)
    y.backward(g)
    grad_x, grad_w = conv_ref_grads(
        x.detach().numpy(),
        w.detach().numpy(),
        g,
        stride=(2, 1),
        padding=1,
        dilation=(1, 2),
        groups=3,
    )
    np.testing.assert_allclose(x.grad.numpy(), grad_x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), grad_w, rtol=1e-12, atol=1e-12)


def test_stride_larger_than_kernel_leaves_unused_pixels_zero(rng, implementation):
    x, w = t64(rng, 1, 2, 7, 5), t64(rng, 3, 2, 2, 1)
    y = conv(x, w, stride=3)
    y.sum().backward()
    used = np.zeros((7, 5), bool)
    for r in range(y.shape[2]):
        for q in range(y.shape[3]):
            used[r * 3:r * 3 + 2, q * 3] = True
    assert np.all(x.grad.numpy()[:, :, ~used] == 0)
    assert np.all(x.grad.numpy()[:, :, used] != 0)


# ---------------------------------------------------------------------------
# The shape rule
# ---------------------------------------------------------------------------

def random_config(rng):
    groups = int(rng.choice([1, 2, 3]))
    c_in = groups * int(rng.integers(1, 3))
    c_out = groups * int(rng.integers(1, 4))
    kernel = tuple(int(k) for k in rng.integers(1, 4, size=2))
    kw_args = dict(stride=tuple(int(s) for s in rng.integers(1, 4, size=2)),
                   padding=tuple(int(p) for p in rng.integers(0, 3, size=2)),
                   dilation=tuple(int(d) for d in rng.integers(1, 3, size=2)), groups=groups)
    shape = (int(rng.integers(1, 3)), c_in) + tuple(int(s) for s in rng.integers(1, 12, size=2))
    return shape, (c_out, c_in // groups) + kernel, kw_args


def test_shape_rule_agrees_with_forward(implementation):
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(300):
        shape, w_shape, kw_args = random_config(rng)
        op = Conv2d(**kw_args)
        try:
            inferred = op.infer(Spec(shape), Spec(w_shape))
        except ShapeError:
            continue
        y = conv(nb.tensor(np.ones(shape)), nb.tensor(np.ones(w_shape)), **kw_args)
        assert y.shape == inferred
        checked += 1
    assert checked > 100


def test_shape_rule_on_a_huge_spec_is_instant():
    op = Conv2d(stride=2, padding=1)
    start = time.perf_counter()
    shape = op.infer(Spec((1000, 3, 4096, 2048)), Spec((64, 3, 3, 3)), Spec((64,)))
    assert time.perf_counter() - start < 0.05
    assert shape == (1000, 64, 2048, 1024)


def test_formula():
    op = Conv2d(stride=2, padding=1)
    assert op.formula(Spec((1, 3, 16, 9)), Spec((8, 3, 3, 2))) == [
        "H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8",
        "W_out = floor((9 + 2·1 − 1·(2 − 1) − 1) / 2) + 1 = 5",
    ]
    op = Conv2d(padding="same", dilation=(1, 2))
    assert op.formula(Spec((1, 3, 7, 5)), Spec((8, 3, 2, 3))) == [
        "H_out = floor((7 + 0 + 1 − 1·(2 − 1) − 1) / 1) + 1 = 7",
        "W_out = floor((5 + 2·2 − 2·(3 − 1) − 1) / 1) + 1 = 5",
    ]


# ---------------------------------------------------------------------------
# Errors: four parts, raised by the shape rule before any numpy call
# ---------------------------------------------------------------------------

def fails(match, x_shape, w_shape, b_shape=None, cls=ShapeError, **kw_args):
    specs = [Spec(x_shape), Spec(w_shape)] + ([Spec(b_shape)] if b_shape else [])
    with pytest.raises(cls, match=match) as info:
        Conv2d(**kw_args).infer(*specs)
    return str(info.value)


def test_error_channel_mismatch_has_four_parts():
    text = fails(r"expects input with 16 channels, got 8\.", (32, 8, 28, 28), (32, 16, 3, 3))
    assert text.startswith("conv2d: ")
    assert "input (32, 8, 28, 28)   weight (32, 16, 3, 3)   groups=1" in text
    assert "hint: the layer before outputs 8 channels; use Conv2d(8, 32, 3)" in text


def test_error_channel_mismatch_with_groups():
    text = fails(r"expects input with 6 channels \(2 per group × 3 groups\), got 9\.",
                 (1, 9, 7, 5), (6, 2, 3, 2), groups=3)
    assert "Conv2d(9, 6, (3, 2), groups=3)" in text


@pytest.mark.parametrize("x_shape,w_shape,groups,match", [
    ((1, 6, 7, 5), (4, 2, 3, 3), 3, r"groups=3 must divide out_channels \(4\)"),
    ((1, 4, 7, 5), (6, 1, 3, 3), 3, r"groups=3 must divide in_channels \(4\)"),
])
def test_error_groups_must_divide(x_shape, w_shape, groups, match):
    text = fails(match, x_shape, w_shape, groups=groups)
    assert "groups can be 1, 2" in text


@pytest.mark.parametrize("kw_args,match", [
    (dict(stride=0), r"stride must be at least 1, got stride=0"),
    (dict(dilation=(1, 0)), r"dilation must be at least 1, got dilation=\(1, 0\)"),
    (dict(padding=(-1, 0)), r"padding must be at least 0"),
    (dict(groups=0), r"groups must be at least 1"),
])
def test_error_bad_hyperparameters(kw_args, match):
    fails(match, (1, 3, 7, 5), (4, 3, 3, 2), **kw_args)


def test_error_kernel_larger_than_padded_input():
    text = fails(r"the kernel spans 5 pixels in width but the padded input has only 4 "
                 r"\(2 \+ 2 padding\)", (1, 3, 7, 2), (4, 3, 3, 3), padding=1, dilation=2)
    assert "padding=1   dilation=2   groups=1" in text
    assert "hint: the input is too small" in text


@pytest.mark.parametrize("x_shape,w_shape,match", [
    ((3, 7), (4, 3, 3, 3), r"expects a 3-D or 4-D input \(N, C_in, H, W\), got 2-D"),
    ((1, 1, 3, 7, 5), (4, 3, 3, 3), r"got 5-D"),
    ((1, 3, 7, 5), (4, 3, 3), r"expects a 4-D weight"),
    ((1, 3, 7, 5), (4, 3, 0, 3), r"the weight has an empty dimension"),
])
def test_error_dimensions(x_shape, w_shape, match):
    fails(match, x_shape, w_shape)


def test_error_bias_shape():
    text = fails(r"expects a bias of shape \(4,\), one value per output channel, got \(3,\)",
                 (1, 3, 7, 5), (4, 3, 3, 3), (3,))
    assert "bias (3,)" in text


def test_error_dtypes():
    x32 = Spec((1, 3, 7, 5), np.float32)
    with pytest.raises(DTypeError, match="input and weight must have the same dtype, got "
                       "float32 and float64"):
        Conv2d().infer(x32, Spec((4, 3, 3, 3), np.float64))
    with pytest.raises(DTypeError, match="needs a floating point input, got int64"):
        Conv2d().infer(Spec((1, 3, 7, 5), np.int64), Spec((4, 3, 3, 3), np.int64))


@pytest.mark.parametrize("kw_args,match", [
    (dict(stride=1.5), r"stride must be an int or a pair of ints"),
    (dict(padding=(1, 2, 3)), r"padding must be an int or a pair of ints"),
    (dict(padding="full"), r"padding must be an int, a pair, 'same' or 'valid'"),
    (dict(groups=2.0), r"groups must be an int"),
    (dict(dilation=True), r"dilation must be an int or a pair"),
    (dict(padding="same", stride=2), r"padding='same' needs stride 1: with a larger stride"),
])
def test_error_bad_argument_types(kw_args, match):
    with pytest.raises(InputError, match=match):
        Conv2d(**kw_args)


def test_bad_input_never_reaches_numpy():
    """A wrong tensor raises ShapeError from the shape rule, not a numpy error from forward."""
    x, w = nb.tensor(np.ones((2, 5, 7, 5))), nb.tensor(np.ones((4, 3, 3, 3)))
    with pytest.raises(ShapeError, match="expects input with 3 channels, got 5"):
        conv(x, w)


# ---------------------------------------------------------------------------
# One place for 'same': the op, F.conv2d and the layer agree
# ---------------------------------------------------------------------------

def test_infer_and_formula_store_nothing():
    """The shape rule is a pure function of its inputs: nothing is left on the op."""
    for op, w_shape in ((Conv2d(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=3),
                         (9, 2, 3, 2)),
                        (Conv2d(padding="same", dilation=(2, 1)), (9, 6, 3, 2))):
        before = dict(vars(op))
        op.infer(Spec((2, 6, 7, 5)), Spec(w_shape), Spec((9,)))
        op.formula(Spec((6, 7, 5)), Spec(w_shape))
        assert vars(op) == before


def test_same_padding_is_resolved_in_one_place(rng):
    from nnbook import nn
    from nnbook.nn import functional as F

    x, w = t64(rng, 2, 3, 7, 5), t64(rng, 4, 3, 2, 3)    # totals 1 and 2: pads (0, 1), (1, 1)
    expected = F.conv2d(F.pad(x, (1, 1, 0, 1)), w)
    np.testing.assert_allclose(F.conv2d(x, w, padding="same").detach().numpy(),
                               expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    layer = nn.Conv2d(3, 4, (2, 3), padding="same", bias=False, dtype=np.float64)
    layer.weight.data.copy_(w.detach())
    np.testing.assert_allclose(layer(x).detach().numpy(), expected.detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    messages = []
    for make in (lambda: F.conv2d(x, w, stride=2, padding="same"),
                 lambda: nn.Conv2d(3, 4, 3, stride=2, padding="same"),
                 lambda: Conv2d(stride=2, padding="same")):
        with pytest.raises(InputError) as info:
            make()
        messages.append(str(info.value).split(": ", 1)[1].split("\n")[0])
    assert messages[0] == messages[1] == messages[2]
    assert messages[0].startswith("padding='same' needs stride 1")
