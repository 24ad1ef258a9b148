"""F.unfold (im2col) and F.fold (col2im): the columns read pixel by pixel, convolution as a
matrix product, fold as unfold's adjoint, gradchecks on non-square images and kernels, the
shape rule and its errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.ops.base import Spec
from nnbook.ops.unfold import Fold, Unfold

CASES = [  # image (N, C, H, W), keyword arguments: non-square images, kernels, strides
    ((2, 3, 7, 5), dict(kernel_size=(3, 2), stride=(2, 1))),
    ((2, 3, 7, 5), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1))),
    ((1, 2, 6, 9), dict(kernel_size=2, stride=3, padding=1)),
    ((3, 1, 5, 6), dict(kernel_size=(1, 3), dilation=(1, 2))),
]


def columns_by_loops(x, kernel_size, stride=1, padding=0, dilation=1):
    """im2col written out with loops, one pixel at a time."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = (
        v if isinstance(v, tuple) else (v, v) for v in (kernel_size, stride, padding, dilation))
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = np.zeros((n, c * kh * kw, ho * wo))
    for b, ch, i, j, oh, ow in np.ndindex(n, c, kh, kw, ho, wo):
        cols[b, ch * kh * kw + i * kw + j, oh * wo + ow] = xp[b, ch, oh * sh + i * dh,
                                                              ow * sw + j * dw]
    return cols


@pytest.mark.parametrize("shape,kw", CASES)
def test_unfold_lays_every_window_out_as_a_column(rng, shape, kw):
    x = rng.standard_normal(shape)
    np.testing.assert_array_equal(F.unfold(nb.tensor(x), **kw).numpy(),
                                  columns_by_loops(x, **kw))


@pytest.mark.parametrize("shape,kw", CASES)
def test_fold_is_the_adjoint_of_unfold(rng, shape, kw):
    x = rng.standard_normal(shape)
    cols = F.unfold(nb.tensor(x), **kw)
    c = rng.standard_normal(cols.shape)
    image = F.fold(nb.tensor(c), shape[-2:], **kw)
    assert image.shape == shape
    # <unfold(x), c> == <x, fold(c)>
    np.testing.assert_allclose((cols.numpy() * c).sum(), (x * image.numpy()).sum(), rtol=1e-12)


@pytest.mark.parametrize("shape,kw", CASES)
def test_fold_of_unfold_counts_the_windows_over_each_pixel(rng, shape, kw):
    x = rng.standard_normal(shape)
    ones = nb.ones(*shape, dtype=nb.float64)
    counts = F.fold(F.unfold(ones, **kw), shape[-2:], **kw).numpy()
    np.testing.assert_allclose(F.fold(F.unfold(nb.tensor(x), **kw), shape[-2:], **kw).numpy(),
                               x * counts, rtol=1e-12, atol=1e-12)


def test_a_convolution_is_a_matrix_product_of_the_weight_and_the_columns(rng):
    x, w = rng.standard_normal((2, 3, 7, 5)), rng.standard_normal((4, 3, 3, 2))
    cols = F.unfold(nb.tensor(x), (3, 2), stride=(2, 1), padding=1)     # (2, 18, L)
    y = (nb.tensor(w).reshape(4, -1) @ cols).reshape(2, 4, 4, 6)
    expected = F.conv2d(nb.tensor(x), nb.tensor(w), stride=(2, 1), padding=1)
    np.testing.assert_allclose(y.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,kw", CASES[:3])
def test_gradcheck_unfold_and_fold(rng, shape, kw):
    x = nb.tensor(rng.standard_normal(shape), requires_grad=True)
    assert nb.gradcheck(lambda x: F.unfold(x, **kw), (x,))
    cols = nb.tensor(rng.standard_normal(F.unfold(x, **kw).shape), requires_grad=True)
    assert nb.gradcheck(lambda c: F.fold(c, shape[-2:], **kw), (cols,))


def test_unbatched_inputs_give_unbatched_results(rng):
    x = rng.standard_normal((3, 7, 5))
    cols = F.unfold(nb.tensor(x), (3, 2), stride=(2, 1))
    np.testing.assert_array_equal(cols.numpy(), F.unfold(nb.tensor(x[None]), (3, 2),
                                                         stride=(2, 1)).numpy()[0])
    assert F.fold(cols, (7, 5), (3, 2), stride=(2, 1)).shape == (3, 7, 5)


def test_the_shape_rules_store_nothing_and_give_the_shapes():
    for op, spec, shape in ((Unfold((3, 2), 1, 0, (2, 1)), Spec((2, 3, 7, 5)), (2, 18, 12)),
                            (Fold((7, 5), (3, 2), 1, 0, (2, 1)), Spec((2, 18, 12)),
                             (2, 3, 7, 5))):
        before = dict(vars(op))
        assert op.infer(spec) == shape
        assert vars(op) == before


def test_infer_shapes_shows_the_window_counts():
    trace = nb.infer_shapes(nn.Sequential(nn.Unfold((3, 2), stride=(2, 1)),
                                          nn.Fold((7, 5), (3, 2), stride=(2, 1))), (2, 3, 7, 5))
    assert [s.output_shape for s in trace] == [(2, 18, 12), (2, 3, 7, 5)]
    assert trace[0].formula[-1] == "L = H_out\u00b7W_out = 3\u00b74 = 12"
    assert trace[1].formula[0] == "C = 18 / (kh\u00b7kw) = 18 / 6 = 3"


@pytest.mark.parametrize("call,error,match", [
    (lambda x: F.unfold(x, 8), ShapeError, r"no 8×8 window .* fits in the 7×5 image"),
    (lambda x: F.unfold(x, 3, stride=0), InputError, r"stride must be at least 1"),
    (lambda x: F.unfold(x, (3, 2, 1)), InputError, r"kernel_size must be an int or a pair"),
    (lambda x: F.unfold(x[0, 0], 3), ShapeError, r"expects a 3-D or 4-D input"),
    (lambda x: F.fold(F.unfold(x, 3), (7, 6), 3), ShapeError, r"expects 15 columns"),
    (lambda x: F.fold(F.unfold(x, 3), (7, 5), 2), ShapeError,
     r"positive multiple of kh·kw = 4"),
])
def test_wrong_arguments_get_nnbook_errors(call, error, match):
    x = nb.randn(2, 3, 7, 5, dtype=nb.float64)
    with pytest.raises(error, match=match):
        call(x)


def test_layers_refuse_bad_arguments_when_built():
    with pytest.raises(InputError, match=r"Unfold.*kernel_size must be an int >= 1"):
        nn.Unfold(0)
    with pytest.raises(InputError, match=r"Fold.*padding must be an int >= 0"):
        nn.Fold((7, 5), 3, padding=-1)


def test_an_error_inside_a_model_names_the_layer():
    model = nn.Sequential(nn.Unfold(3), nn.Fold((7, 6), 3))
    with pytest.raises(ShapeError, match=r"1 \(Fold\), in fold"):
        model(nb.randn(2, 3, 7, 5))
