"""The 3-D ops (ops/threedim.py) and F.interpolate on volumes, with numpy alone: forwards
against the definitions written as loops, one output voxel at a time; backwards by
gradcheck on odd shapes whose depth, height and width all differ (so that two axes
swapped cannot agree by chance); an image as a volume one plane deep; the shape rule.
"""
import itertools
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook.nn import functional as F
from nnbook.ops import Spec
from nnbook.ops.threedim import AvgPool3d, Conv3d, ConvTranspose3d, MaxPool3d

# N=2, C_in=3, D=5, H=7, W=4; kernel (3, 2, 1): every axis of its own size
X_SHAPE = (2, 3, 5, 7, 4)


def triple(v):
    return (v,) * 3 if isinstance(v, int) else tuple(v)


def t64(rng, *shape, grad=True):
    return nb.tensor(rng.standard_normal(shape), requires_grad=grad)


def conv3d_by_loops(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """The definition: each output voxel is a filter's dot product with one window."""
    s, p, d = triple(stride), triple(padding), triple(dilation)
    n, _, *size = x.shape
    c_out, per_group, *kernel = w.shape
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((q, q) for q in p))
    out = [(size[a] + 2 * p[a] - d[a] * (kernel[a] - 1) - 1) // s[a] + 1 for a in range(3)]
    y = np.zeros((n, c_out, *out))
    for i, o, *at in itertools.product(range(n), range(c_out), *map(range, out)):
        g = o // (c_out // groups)
        box = tuple(slice(at[a] * s[a], at[a] * s[a] + d[a] * (kernel[a] - 1) + 1, d[a])
                    for a in range(3))
        y[(i, o, *at)] = (xp[(i, slice(g * per_group, (g + 1) * per_group), *box)]
                          * w[o]).sum() + (0 if b is None else b[o])
    return y


def pooled_by_loops(x, kernel, stride, padding, dilation, ceil_mode, reduce):
    """``reduce(values on the input, count of taps on the padded input)`` per window."""
    k, s, p, d = triple(kernel), triple(stride), triple(padding), triple(dilation)
    size = x.shape[2:]
    out = []
    for a in range(3):
        exact = (size[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) / s[a]
        length = (math.ceil(exact) if ceil_mode else math.floor(exact)) + 1
        if ceil_mode and (length - 1) * s[a] >= size[a] + p[a]:
            length -= 1
        out.append(length)
    y = np.zeros(x.shape[:2] + tuple(out))
    for at in itertools.product(*map(range, out)):
        taps = [[at[a] * s[a] - p[a] + d[a] * i for i in range(k[a])] for a in range(3)]
        padded = [[t for t in taps[a] if t < size[a] + p[a]] for a in range(3)]
        inside = [[t for t in taps[a] if 0 <= t < size[a]] for a in range(3)]
        values = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *inside)]
        y[(..., *at)] = reduce(values.reshape(*x.shape[:2], -1), padded, inside)
    return y


def test_conv3d_gradcheck_on_odd_shapes_with_stride_padding_dilation_and_groups(rng):
    x, w, b = t64(rng, *X_SHAPE), t64(rng, 6, 1, 3, 2, 1), t64(rng, 6)
    kw = dict(stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=3)
    assert F.conv3d(x, w, b, **kw).shape == (2, 6, 3, 5, 6)
    assert nb.gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize("w_shape, kw", [
    ((4, 3, 3, 2, 1), dict()),
    ((6, 1, 3, 2, 1), dict(stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=3)),
    ((2, 3, 2, 3, 2), dict(stride=(1, 2, 3), padding=2)),
    ((3, 3, 1, 3, 2), dict(padding=(0, 1, 0), dilation=(1, 1, 2))),
])
def test_conv3d_matches_the_definition(rng, w_shape, kw):
    x, w, b = rng.standard_normal(X_SHAPE), rng.standard_normal(w_shape), \
        rng.standard_normal(w_shape[0])
    y = F.conv3d(nb.tensor(x), nb.tensor(w), nb.tensor(b), **kw).numpy()
    np.testing.assert_allclose(y, conv3d_by_loops(x, w, b, **kw), rtol=1e-10, atol=1e-12)


def test_conv3d_same_and_valid_padding_and_one_unbatched_volume(rng):
    x, w = rng.standard_normal((3, 5, 7, 4)), rng.standard_normal((2, 3, 2, 3, 2))
    same = F.conv3d(nb.tensor(x), nb.tensor(w), padding="same", dilation=(1, 2, 1)).numpy()
    assert same.shape == (2, 5, 7, 4)  # d·(k − 1) = (1, 4, 1) zeros, the odd one at the end
    padded = np.pad(x, ((0, 0), (0, 1), (2, 2), (0, 1)))
    np.testing.assert_allclose(same, conv3d_by_loops(padded[None], w, dilation=(1, 2, 1))[0],
                               rtol=1e-10, atol=1e-12)
    valid = F.conv3d(nb.tensor(x), nb.tensor(w), padding="valid").numpy()
    np.testing.assert_allclose(valid, conv3d_by_loops(x[None], w)[0], rtol=1e-10, atol=1e-12)


def test_conv3d_gradient_of_the_weight_matches_the_definition(rng):
    """dL/dW[o, c, t, i, j] = sum over windows of dL/dy times the voxel that tap read."""
    x, w = rng.standard_normal(X_SHAPE), t64(rng, 4, 3, 3, 2, 1)
    g = rng.standard_normal((2, 4, 2, 6, 2))
    F.conv3d(nb.tensor(x), w, stride=(2, 1, 2)).backward(nb.tensor(g))
    want = np.zeros(w.shape)
    for t, i, j in itertools.product(range(3), range(2), range(1)):
        taps = x[:, :, t:t + 3:2, i:i + 6, j:j + 3:2]  # (N, C, 2, 6, 2): what tap (t, i, j) read
        want[:, :, t, i, j] = np.einsum("nodhw,ncdhw->oc", g, taps)
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [
    dict(stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1), groups=3,
         dilation=(1, 2, 1)),
    dict(stride=(1, 3, 2), padding=(0, 1, 0), output_padding=(0, 2, 1)),
])
def test_conv_transpose3d_is_the_adjoint_of_conv3d(rng, kw):
    """<conv3d(z, W), x> = <z, conv_transpose3d(x, W)>: it sends each input voxel back
    along the connections conv3d used, so it is the gradient of conv3d's input."""
    groups = kw.get("groups", 1)
    x, w = rng.standard_normal(X_SHAPE), rng.standard_normal((3, 6 // groups, 3, 2, 1))
    up = F.conv_transpose3d(nb.tensor(x), nb.tensor(w), **kw).numpy()
    conv = {k: v for k, v in kw.items() if k != "output_padding"}
    z = rng.standard_normal(up.shape)
    down = F.conv3d(nb.tensor(z), nb.tensor(w), **conv).numpy()
    assert down.shape == x.shape
    np.testing.assert_allclose((up * z).sum(), (down * x).sum(), rtol=1e-10)


def test_conv_transpose3d_gradcheck_and_output_size(rng):
    x, w, b = t64(rng, *X_SHAPE), t64(rng, 3, 2, 3, 2, 1), t64(rng, 6)
    kw = dict(stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 1), groups=3,
              dilation=(1, 2, 1))
    # D_out = (5 - 1)·2 - 2·1 + 1·(3 - 1) + 1 + 1 = 10; H_out = 6 + 2·1 + 1 = 9; W_out = 8
    assert F.conv_transpose3d(x, w, b, **kw).shape == (2, 6, 10, 9, 8)
    assert nb.gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize("kernel, stride, padding, dilation, ceil_mode", [
    ((3, 2, 1), (2, 1, 1), (1, 1, 0), (1, 2, 1), True),
    (2, None, 0, 1, False),
    ((2, 3, 2), (2, 2, 3), (1, 1, 1), 1, True),
])
def test_max_pool3d_matches_the_definition_and_its_indices_point_at_the_maxima(
        rng, kernel, stride, padding, dilation, ceil_mode):
    x = rng.standard_normal(X_SHAPE)
    y, indices = F.max_pool3d(nb.tensor(x), kernel, stride, padding, dilation, ceil_mode,
                              return_indices=True)
    want = pooled_by_loops(x, kernel, stride or kernel, padding, dilation, ceil_mode,
                           lambda values, padded, inside: values.max(axis=-1))
    np.testing.assert_array_equal(y.numpy(), want)
    flat = x.reshape(2, 3, -1)  # the index is the place in each (D, H, W) block
    picked = np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), axis=-1)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())


@pytest.mark.parametrize("count_include_pad, divisor_override", [
    (True, None), (False, None), (True, 5)])
def test_avg_pool3d_matches_the_definition_with_pytorchs_divisors(
        rng, count_include_pad, divisor_override):
    x = rng.standard_normal(X_SHAPE)
    kernel, stride, padding = (3, 2, 2), (2, 1, 3), (1, 1, 1)

    def mean(values, padded, inside):
        count = math.prod(map(len, inside if not count_include_pad else padded))
        return values.sum(axis=-1) / (divisor_override or count)
    y = F.avg_pool3d(nb.tensor(x), kernel, stride, padding, True, count_include_pad,
                     divisor_override)
    want = pooled_by_loops(x, kernel, stride, padding, 1, True, mean)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)


def test_pools3d_gradcheck(rng):
    x = nb.tensor(rng.permutation(math.prod(X_SHAPE)).reshape(X_SHAPE) / 10.0,
                  requires_grad=True)  # distinct values: no ties for the maximum
    pools = [lambda x: F.max_pool3d(x, (3, 2, 1), (2, 1, 1), (1, 1, 0), (1, 2, 1), True),
             lambda x: F.avg_pool3d(x, (3, 2, 2), (2, 1, 3), (1, 1, 1), True, False),
             lambda x: F.adaptive_avg_pool3d(x, (2, 3, 3)),
             lambda x: F.adaptive_max_pool3d(x, (2, 5, 3))]
    for pool in pools:
        assert nb.gradcheck(pool, (x,))


def test_adaptive_pools3d_match_the_definition(rng):
    x = rng.standard_normal(X_SHAPE)
    out = (2, 3, 3)
    spans = [[(a * n // o, -(-(a + 1) * n // o)) for a in range(o)] for n, o in zip(x.shape[2:],
                                                                                    out)]
    y_avg = F.adaptive_avg_pool3d(nb.tensor(x), out).numpy()
    y_max, indices = F.adaptive_max_pool3d(nb.tensor(x), out, return_indices=True)
    for at in itertools.product(*map(range, out)):
        box = x[(..., *(slice(*spans[a][i]) for a, i in enumerate(at)))]
        np.testing.assert_allclose(y_avg[(..., *at)], box.mean(axis=(-3, -2, -1)), rtol=1e-12)
        np.testing.assert_array_equal(y_max.numpy()[(..., *at)], box.max(axis=(-3, -2, -1)))
    picked = np.take_along_axis(x.reshape(2, 3, -1), indices.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(picked.reshape(y_max.shape), y_max.numpy())
    none = F.adaptive_avg_pool3d(nb.tensor(x), (None, 3, None))
    assert none.shape == (2, 3, 5, 3, 4)


def test_an_image_is_a_volume_one_plane_deep(rng):
    """The 3-D ops on (N, C, 1, H, W) with a kernel one plane deep are the 2-D ops."""
    x, w = rng.standard_normal((2, 3, 7, 4)), rng.standard_normal((6, 1, 3, 2))
    vx, vw = nb.tensor(x[:, :, None]), nb.tensor(w[:, :, None])
    pairs = [
        (F.conv3d(vx, vw, padding=(0, 1, 0), groups=3),
         F.conv2d(nb.tensor(x), nb.tensor(w), padding=(1, 0), groups=3)),
        (F.conv_transpose3d(vx, nb.tensor(w[:3, :, None]), stride=(1, 2, 1)),
         F.conv_transpose2d(nb.tensor(x), nb.tensor(w[:3]), stride=(2, 1))),
        (F.max_pool3d(vx, (1, 3, 2), (1, 2, 1), (0, 1, 0), ceil_mode=True),
         F.max_pool2d(nb.tensor(x), (3, 2), (2, 1), (1, 0), ceil_mode=True)),
        (F.avg_pool3d(vx, (1, 3, 2), (1, 2, 1), (0, 1, 1), count_include_pad=False),
         F.avg_pool2d(nb.tensor(x), (3, 2), (2, 1), (1, 1), count_include_pad=False)),
        (F.adaptive_avg_pool3d(vx, (1, 3, 3)), F.adaptive_avg_pool2d(nb.tensor(x), (3, 3))),
        (F.interpolate(vx, size=(1, 9, 6), mode="trilinear"),
         F.interpolate(nb.tensor(x), size=(9, 6), mode="bilinear")),
    ]
    for volume, image in pairs:
        np.testing.assert_allclose(volume.numpy()[:, :, 0], image.numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_trilinear_resizing_keeps_a_trilinear_function_exactly(rng):
    """Interpolating a function a + b·d + c·h + e·w (+ products of them) linearly along
    each axis is exact, whatever the sizes; with align_corners=True the corners stay."""
    d, h, w = np.meshgrid(np.arange(5.0), np.arange(7.0), np.arange(4.0), indexing="ij")
    f = lambda d, h, w: 1 + 2 * d - h + 0.5 * w + 0.25 * d * h * w  # noqa: E731
    x = nb.tensor(f(d, h, w)[None, None], requires_grad=True)
    y = F.interpolate(x, size=(9, 4, 11), mode="trilinear", align_corners=True)
    grid = np.meshgrid(np.linspace(0, 4, 9), np.linspace(0, 6, 4), np.linspace(0, 3, 11),
                       indexing="ij")
    np.testing.assert_allclose(y.detach().numpy()[0, 0], f(*grid), rtol=1e-12, atol=1e-12)
    x64 = t64(rng, 2, 3, 5, 7, 4)
    assert nb.gradcheck(lambda x: F.interpolate(x, scale_factor=(1.5, 0.6, 2.0),
                                                mode="trilinear"), (x64,))


def test_nearest_upsampling_of_a_volume_repeats_each_voxel_and_area_is_adaptive_pooling(rng):
    x = rng.standard_normal(X_SHAPE)
    y = F.interpolate(nb.tensor(x), scale_factor=(2, 1, 3)).numpy()
    np.testing.assert_array_equal(y, x.repeat(2, axis=2).repeat(3, axis=4))
    area = F.interpolate(nb.tensor(x), size=(2, 3, 3), mode="area").numpy()
    np.testing.assert_allclose(area, F.adaptive_avg_pool3d(nb.tensor(x), (2, 3, 3)).numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("op, specs, out", [
    (Conv3d((2, 1, 1), 1, (1, 2, 1), 3), [X_SHAPE, (6, 1, 3, 2, 1), (6,)], (2, 6, 3, 7, 6)),
    (ConvTranspose3d(2, 1, 1, 3), [X_SHAPE, (3, 2, 3, 2, 1), (6,)], (2, 6, 10, 13, 6)),
    (MaxPool3d((3, 2, 1), (2, 1, 1), (1, 1, 0), ceil_mode=True), [(3, 5, 7, 4)], (3, 3, 8, 4)),
    (AvgPool3d(2, ceil_mode=True), [X_SHAPE], (2, 3, 3, 4, 2)),
])
def test_the_shape_rule_works_without_data(op, specs, out):
    assert op.infer(*[Spec(s, np.float64) for s in specs]) == out
