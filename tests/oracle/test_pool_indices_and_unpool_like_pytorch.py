"""Max pooling with return_indices=True and max unpooling against PyTorch: values, indices,
shapes and gradients in float64 on odd, non-square shapes, kernels on and off, the layers'
reprs, and errors where PyTorch raises.  (Oracle: skipped without torch locally, required
in CI.)"""
import contextlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

TF = torch.nn.functional
KERNELS = [contextlib.nullcontext, nb.reference_ops]

POOLS = [  # (name, input shape, positional arguments after the input)
    ("max_pool2d", (2, 3, 7, 5), (2,)),
    ("max_pool2d", (2, 3, 7, 5), ((3, 2), (2, 1), (1, 0), (1, 2), True)),
    ("max_pool2d", (3, 7, 5), (3, 2, 1)),                 # one image (C, H, W)
    ("max_pool2d", (0, 3, 7, 5), (2,)),                   # an empty batch
    ("max_pool1d", (2, 3, 11), (3, 2, 1)),
    ("max_pool1d", (3, 11), (2, 1, 0, 3, True)),
    ("adaptive_max_pool2d", (2, 3, 7, 5), ((3, 2),)),
    ("adaptive_max_pool2d", (3, 7, 5), ((4, None),)),
    ("adaptive_max_pool1d", (2, 3, 11), (4,)),
]


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("name,shape,args", POOLS)
def test_values_indices_and_gradients_match_pytorch(rng, kernels, name, shape, args):
    x = rng.standard_normal(shape)
    if x.size:
        x.flat[3] = x.flat[4]                       # a tie
        x.flat[rng.integers(0, x.size, 2)] = np.nan  # NaN windows: the last NaN's place
    mine, theirs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with kernels():
        y, where = getattr(F, name)(mine, *args, return_indices=True)
        y2, where2 = getattr(F, name + "_with_indices")(mine, *args)
    ty, twhere = getattr(TF, name)(theirs, *args, return_indices=True)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert where.dtype == nb.int64 and where.shape == tuple(twhere.shape)
    np.testing.assert_array_equal(where.numpy(), twhere.numpy())
    np.testing.assert_array_equal(where2.numpy(), twhere.numpy())
    finite = ~np.isnan(ty.detach().numpy())  # (a NaN window's gradient: a listed difference)
    g = rng.standard_normal(y.shape) * finite
    y.backward(nb.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("kernel,stride,padding,size", [
    ((2, 2), None, 0, (7, 5)),
    ((3, 2), (2, 1), (1, 0), (7, 5)),
    (3, 3, 1, (7, 5)),
    ((3, 1), (3, 1), 0, None),
])
def test_a_segnet_step_matches_pytorch(rng, kernels, kernel, stride, padding, size):
    x = rng.standard_normal((2, 3, 7, 5))
    mine, theirs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with kernels():
        y, where = F.max_pool2d(mine, kernel, stride, padding, return_indices=True)
        back = F.max_unpool2d(y * 3, where, kernel, stride, padding, output_size=size)
    ty, twhere = TF.max_pool2d(theirs, kernel, stride, padding, return_indices=True)
    tback = TF.max_unpool2d(ty * 3, twhere, kernel, stride, padding, output_size=size)
    assert back.shape == tuple(tback.shape)
    np.testing.assert_allclose(back.detach().numpy(), tback.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    g = rng.standard_normal(back.shape)
    back.backward(nb.tensor(g))
    tback.backward(torch.tensor(g))
    # windows that overlap (kernel 3, stride 2) send one place twice: a listed difference,
    # so only configurations whose windows do not overlap compare gradients
    if stride in (None, 3, (3, 1)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_unpool_layers_and_1d_match_pytorch(rng):
    x = rng.standard_normal((2, 3, 11))
    for mine_size, torch_size in ((None, None), ([11], [11]), ((2, 3, 10), (2, 3, 10))):
        mine, theirs = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        y, where = nn.MaxPool1d(3, 3, return_indices=True)(mine)
        ty, twhere = torch.nn.MaxPool1d(3, 3, return_indices=True)(theirs)
        back = nn.MaxUnpool1d(3)(y, where, output_size=mine_size)
        tback = torch.nn.MaxUnpool1d(3)(ty, twhere, output_size=torch_size)
        np.testing.assert_array_equal(back.detach().numpy(), tback.detach().numpy())
        g = rng.standard_normal(back.shape)
        back.backward(nb.tensor(g))
        tback.backward(torch.tensor(g))
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12,
                                   atol=1e-12)
    for make in (lambda m: m.MaxUnpool2d(2), lambda m: m.MaxUnpool2d((3, 2), 1, 1),
                 lambda m: m.MaxUnpool1d(3, 2), lambda m: m.MaxUnpool1d((3,), padding=1)):
        assert repr(make(nn)) == repr(make(torch.nn))


@pytest.mark.parametrize("call", [
    lambda F, x, i: F.max_unpool2d(x, i + 100, 2),                 # an index out of range
    lambda F, x, i: F.max_unpool2d(x, i, 2, output_size=(10, 6)),  # output_size too large
    lambda F, x, i: F.max_unpool2d(x, i, 2, output_size=(6, 6)),   # ... too small
    lambda F, x, i: F.max_unpool2d(x, i, 2, output_size=(8,)),     # neither 2 nor 4 sizes
])
def test_unpool_errors_where_pytorch_raises(call):
    x, where = np.ones((2, 3, 4, 3)), np.arange(12).reshape(4, 3) * np.ones((2, 3, 1, 1), int)
    with pytest.raises((RuntimeError, ValueError)):
        call(TF, torch.tensor(x), torch.tensor(where))
    with pytest.raises(InputError):
        call(F, nb.tensor(x), nb.tensor(where))
