"""Max pooling's indices (return_indices=True) and max unpooling, without PyTorch: indices
against a loop over the windows, unpooling against a loop over the values, gradients by
gradcheck, kernels against the reference, shape inference, and the errors."""
import contextlib

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import DTypeError, InputError, ShapeError
from nnbook.nn import functional as F

KERNELS = [contextlib.nullcontext, nb.reference_ops]  # the kernels on, then off


def windows_by_loop(x, kernel, stride, padding, dilation, ceil_mode):
    """(values, flat indices) of max pooling an (N, C, H, W) array, one window at a time:
    the first maximum in row-major order, the last NaN of a window holding NaN."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = x.shape

    def length(size, k, s, p, d):
        span = d * (k - 1) + 1
        out = (size + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        return out

    ho, wo = length(h, kh, sh, ph, dh), length(w, kw, sw, pw, dw)
    values, indices = np.empty((n, c, ho, wo)), np.empty((n, c, ho, wo), np.int64)
    for b in range(n):
        for ch in range(c):
            for a in range(ho):
                for col in range(wo):
                    best, at = -np.inf, None
                    for i in range(kh):
                        for j in range(kw):
                            r, q = a * sh - ph + i * dh, col * sw - pw + j * dw
                            if not (0 <= r < h and 0 <= q < w):
                                continue
                            v = x[b, ch, r, q]
                            if at is None or v > best or np.isnan(v):
                                best, at = v, r * w + q
                    values[b, ch, a, col], indices[b, ch, a, col] = best, at
    return values, indices


CONFIGS = [  # kernel, stride, padding, dilation, ceil_mode on a 7×5 image
    ((2, 2), (2, 2), (0, 0), (1, 1), False),
    ((3, 3), (2, 2), (1, 1), (1, 1), False),
    ((3, 2), (2, 1), (1, 0), (1, 2), True),
    ((2, 3), (1, 2), (0, 1), (2, 1), True),
]


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("channels,nan", [(3, False), (3, True), (11, False)])
@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode", CONFIGS)
def test_max_pool2d_indices_are_each_maximum_s_place_in_its_plane(
        rng, kernels, channels, nan, kernel, stride, padding, dilation, ceil_mode):
    """With kernels on, each of their layouts (tiles, planes, 11 channels last) numbers the
    maxima; an input with NaN goes to the reference."""
    x = rng.standard_normal((2, channels, 7, 5))
    x[0, 1, 2, :] = x[0, 1, 3, :]            # ties: the first in row-major order wins
    if nan:
        x[1, 2, 2:5, 2] = np.nan  # windows holding two NaN or more: the last NaN's place
    with kernels():
        y, where = F.max_pool2d(nb.tensor(x), kernel, stride, padding, dilation, ceil_mode,
                                return_indices=True)
    values, indices = windows_by_loop(x, kernel, stride, padding, dilation, ceil_mode)
    np.testing.assert_array_equal(y.numpy(), values)
    assert where.dtype == nb.int64 and not where.requires_grad
    np.testing.assert_array_equal(where.numpy(), indices)


@pytest.mark.parametrize("kernels", KERNELS)
def test_a_window_of_minus_infinity_points_at_its_first_pixel_inside_the_input(kernels):
    x = np.full((1, 1, 3, 4), -np.inf)
    with kernels():
        _, where = F.max_pool2d(nb.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(where.numpy(), windows_by_loop(
        x, (3, 3), (2, 2), (1, 1), (1, 1), False)[1])


@pytest.mark.parametrize("kernels", KERNELS)
def test_max_pool1d_indices_are_positions_along_the_signal(rng, kernels):
    x = rng.standard_normal((2, 3, 11))
    with kernels():
        y, where = F.max_pool1d(nb.tensor(x), 3, 2, 1, return_indices=True)
        y_layer, where_layer = nn.MaxPool1d(3, 2, 1, return_indices=True)(nb.tensor(x))
    values, indices = windows_by_loop(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 1), False)
    np.testing.assert_array_equal(y.numpy(), values[:, :, 0])
    np.testing.assert_array_equal(where.numpy(), indices[:, :, 0])
    np.testing.assert_array_equal(where_layer.numpy(), indices[:, :, 0])
    assert y_layer.shape == (2, 3, (11 + 2 - 3) // 2 + 1)


def test_the_with_indices_functions_always_return_both(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    for call in (lambda: F.max_pool2d_with_indices(x, 3, 2),
                 lambda: F.adaptive_max_pool2d_with_indices(x, (3, 2)),
                 lambda: F.max_pool1d_with_indices(x[:, :, 0], 2),
                 lambda: F.adaptive_max_pool1d_with_indices(x[:, :, 0], 2)):
        y, where = call()
        assert where.shape == y.shape and where.dtype == nb.int64


def test_adaptive_max_pool2d_indices_point_at_the_maxima(rng):
    x = rng.standard_normal((2, 3, 7, 5))
    x[1, 0, 0, 0] = x[1, 0, 2, 1] = np.nan
    y, where = F.adaptive_max_pool2d(nb.tensor(x), (3, 2), return_indices=True)
    planes = x.reshape(2, 3, 35)
    found = np.take_along_axis(planes, where.numpy().reshape(2, 3, 6), axis=2).reshape(y.shape)
    np.testing.assert_array_equal(found, y.numpy())
    assert where.numpy()[1, 0, 0, 0] == 2 * 5 + 1  # the last NaN of window (0, 0)
    layer = nn.AdaptiveMaxPool2d((3, 2), return_indices=True)
    np.testing.assert_array_equal(layer(nb.tensor(x))[1].numpy(), where.numpy())


def unpool_by_loop(x, indices, out_hw):
    y = np.zeros(x.shape[:-2] + out_hw)
    for lead in np.ndindex(*x.shape[:-2]):
        for place, value in zip(indices[lead].ravel(), x[lead].ravel()):
            y[lead][divmod(int(place), out_hw[1])] = value
    return y


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode",
                         CONFIGS[:2] + [((3, 2), (2, 1), (1, 0), (1, 1), True)])
def test_unpooling_puts_each_maximum_back_in_its_place(
        rng, kernels, kernel, stride, padding, dilation, ceil_mode):
    x = rng.standard_normal((2, 3, 7, 5))
    with kernels():
        y, where = F.max_pool2d(nb.tensor(x), kernel, stride, padding, dilation, ceil_mode,
                                return_indices=True)
    back = F.max_unpool2d(y, where, kernel, stride, padding, output_size=(7, 5))
    np.testing.assert_array_equal(back.numpy(), unpool_by_loop(y.numpy(), where.numpy(),
                                                              (7, 5)))
    kept = back.numpy() != 0
    np.testing.assert_array_equal(back.numpy()[kept], x[kept])  # maxima only, in place


def test_unpooled_size_follows_the_formula_or_output_size(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 4, 3)))
    where = nb.zeros(2, 3, 4, 3, dtype=nb.int64)
    # H_out = (H − 1)·stride − 2·padding + kernel_size
    assert F.max_unpool2d(x, where, (3, 2), (2, 1), (1, 0)).shape == (2, 3, 3 * 2 - 2 + 3,
                                                                     2 * 1 + 2)
    assert F.max_unpool2d(x, where, 2, output_size=(9, 7)).shape == (2, 3, 9, 7)
    assert F.max_unpool2d(x, where, 2, output_size=(2, 3, 7, 6)).shape == (2, 3, 7, 6)
    assert F.max_unpool2d(x[0], where[0], 2).shape == (3, 8, 6)  # one image (C, H, W)
    assert nn.MaxUnpool1d(3, 2)(x[0], where[0]).shape == (3, 4, 7)
    assert F.max_unpool1d(x[0], where[0], 3, 2, output_size=[8]).shape == (3, 4, 8)


@pytest.mark.parametrize("kernels", KERNELS)
def test_gradients_of_pool_then_unpool_pass_gradcheck(rng, kernels):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)

    def segnet_step(x):
        y, where = F.max_pool2d(x, (3, 2), (2, 1), 1, return_indices=True)
        return F.max_unpool2d(y * 2, where, (3, 2), (2, 1), 1, output_size=x.shape)

    with kernels():
        assert nb.gradcheck(segnet_step, (x,))
    signal = nb.tensor(rng.standard_normal((2, 3, 11)), requires_grad=True)
    assert nb.gradcheck(lambda s: F.max_unpool1d(*F.max_pool1d(s, 3, 2, return_indices=True),
                                                 3, 2, output_size=[11]), (signal,))


def test_unpool_backward_reads_the_gradient_at_each_index(rng):
    """dL/dx[i] = dL/dy at x[i]'s place; where two values share a place, the one written
    last (row-major) is in the output and gets the gradient, the other gets 0."""
    x = nb.tensor(rng.standard_normal((1, 2, 2, 3)), requires_grad=True)
    where = nb.tensor(np.array([[[[0, 5, 5], [7, 1, 0]], [[3, 3, 3], [8, 2, 4]]]]))
    y = F.max_unpool2d(x, where, (2, 1), output_size=(3, 3))
    xs = x.detach().numpy()
    ys = y.detach().numpy()
    np.testing.assert_array_equal(ys[0, 0].ravel()[[0, 5, 7, 1]],
                                  xs[0, 0].ravel()[[5, 2, 3, 4]])
    assert ys[0, 1].ravel()[3] == xs[0, 1, 0, 2]
    g = rng.standard_normal(y.shape)
    y.backward(nb.tensor(g))
    expected = np.take_along_axis(g.reshape(1, 2, 9), where.numpy().reshape(1, 2, 6), 2)
    expected[0, 0, [0, 1]] = expected[0, 1, [0, 1]] = 0  # overwritten by a later value
    np.testing.assert_array_equal(x.grad.numpy(), expected.reshape(1, 2, 2, 3))
    assert nb.gradcheck(lambda x: F.max_unpool2d(x, where, (2, 1), output_size=(3, 3)), (x,))


def test_an_encoder_decoder_infers_its_shapes_and_summary():
    class SegNetBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.pool = nn.MaxPool2d(2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2)

        def forward(self, x):
            y, where = self.pool(self.conv(x))
            return self.unpool(y, where, output_size=x.shape)

    trace = nb.infer_shapes(SegNetBlock(), (2, 3, 7, 5))
    assert trace.ok and trace[-1].output_shape == (2, 4, 7, 5)
    unpool = [s for s in trace if "unpool" in s.path][0]
    assert unpool.formula == ("H_out = output_size = 7", "W_out = output_size = 5")
    assert nb.summary(SegNetBlock(), (2, 3, 7, 5)).rows[-1].output_shape == (2, 4, 7, 5)


def test_unpool_layers_print_their_sizes_as_pairs():
    assert repr(nn.MaxUnpool2d((3, 2), 1, 1)) == \
        "MaxUnpool2d(kernel_size=(3, 2), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.MaxUnpool1d(3)) == "MaxUnpool1d(kernel_size=(3,), stride=(3,), padding=(0,))"


@pytest.mark.parametrize("call,cls,said", [
    (lambda x, i: F.max_unpool2d(x, i + 100, 2), InputError,
     r"an index is outside the 8×6 output plane \(0 to 47\): found 1\d\d"),
    (lambda x, i: F.max_unpool2d(x, i - 1, 2), InputError, r"outside .* found -1"),
    (lambda x, i: F.max_unpool2d(x, i[:, :, :3], 2), ShapeError,
     r"indices of the input's shape \(2, 3, 4, 3\), got \(2, 3, 3, 3\)"),
    (lambda x, i: F.max_unpool2d(x, i.float(), 2), DTypeError, r"int64 indices, got float32"),
    (lambda x, i: F.max_unpool2d(x.long(), i, 2), DTypeError, r"floating point"),
    (lambda x, i: F.max_unpool2d(x[0, 0, 0], i[0, 0, 0], 2), ShapeError, r"3-D or 4-D input"),
    (lambda x, i: F.max_unpool2d(x, i, 2, output_size=(10, 6)), InputError,
     r"H_out=10 must be between 6 and 10"),
    (lambda x, i: F.max_unpool2d(x, i, 2, output_size=(8,)), InputError,
     r"output_size must be \(H_out, W_out\)"),
    (lambda x, i: F.max_unpool1d(x[0], i[0], 2, output_size=(1, 2)), InputError,
     r"output_size must be \(L_out,\)"),
    (lambda x, i: F.max_unpool2d(x, i.numpy().tolist(), 2), DTypeError,
     r"indices must be an nnbook Tensor"),
])
def test_wrong_unpool_arguments_get_nnbook_errors(rng, call, cls, said):
    x = nb.tensor(rng.standard_normal((2, 3, 4, 3)), requires_grad=True)
    where = nb.tensor(np.arange(12).reshape(1, 1, 4, 3).repeat(2, 0).repeat(3, 1))
    with pytest.raises(cls, match=said) as info:
        call(x, where)
    assert "max_unpool" in str(info.value) and "hint:" in str(info.value)
    assert x.grad is None and x._version == 0
