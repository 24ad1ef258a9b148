"""Tensor creation, dtypes and the autograd engine."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import BackwardError, DTypeError, InputError, NnbookError, ShapeError


def test_default_dtypes_follow_pytorch():
    assert nb.tensor([1.0, 2.0]).dtype == np.float32
    assert nb.tensor([1, 2]).dtype == np.int64
    assert nb.tensor(np.zeros(3, dtype=np.float64)).dtype == np.float64  # arrays keep dtype
    assert nb.tensor([1, 2], dtype=nb.float64).dtype == np.float64
    assert nb.randn(3, 2).dtype == np.float32
    assert nb.zeros(2, 3).shape == (2, 3) and nb.ones((4, 1)).shape == (4, 1)


def test_tensor_copies_its_data():
    arr = np.ones(3)
    t = nb.tensor(arr)
    arr[0] = 5
    assert t.detach().numpy()[0] == 1


def test_python_scalars_keep_float32():
    x = nb.ones(3)
    assert (x * 2.5).dtype == np.float32
    assert (2 + x).dtype == np.float32
    assert (nb.tensor([1, 2]) * 0.5).dtype == np.float32
    assert (x.double() + x).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_python_number_beside_a_float_tensor_keeps_its_dtype_and_gradient(dtype):
    """x * 2, 1 - x, x / n on a 7×5 tensor: the tensor's dtype, the values numpy gives,
    the gradient through the tensor; a float too large for float16 is inf, silently."""
    data = np.arange(35, dtype=dtype).reshape(7, 5) / 7
    x = nb.tensor(data, requires_grad=True)
    y = (x * 2 + (1 - x) / 4 * True - 1) ** 2
    assert y.dtype == dtype and y.shape == (7, 5)
    expected = (data * dtype(2) + (dtype(1) - data) / dtype(4) - dtype(1)) ** 2
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-3)
    y.sum().backward()
    inner = data * dtype(2) + (dtype(1) - data) / dtype(4) - dtype(1)
    np.testing.assert_allclose(x.grad.numpy(), 2 * inner * dtype(1.75), rtol=1e-2)
    with np.errstate(all="raise"):  # no numpy warning escapes, only PyTorch's inf
        big = x * 1e10
    assert big.dtype == dtype
    assert np.isinf(big.detach().numpy()[1:]).all() == (dtype == np.float16)
    with pytest.raises(DTypeError, match="bool"):
        x - True

def test_integer_tensor_cannot_require_grad():
    with pytest.raises(DTypeError, match="only floating point tensors can require gradients"):
        nb.tensor([1, 2, 3], requires_grad=True)
    with pytest.raises(TypeError, match="floating point"):  # also a TypeError
        nb.tensor([1, 2]).requires_grad_()


def test_gradient_accumulates_across_backward_calls():
    x = nb.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 3)


def test_shared_subexpression_gradients_add_up():
    x = nb.tensor([0.5, 1.5], requires_grad=True)
    y = x * x  # used twice below
    (y + y * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 3 * x.detach().numpy() ** 2)


def test_leaf_grads_do_not_share_memory():
    a = nb.ones(3, requires_grad=True)
    b = nb.ones(3, requires_grad=True)
    (a + b).sum().backward()
    a.grad.data[0] = 100
    assert b.grad.numpy()[0] == 1


def test_no_grad_records_nothing():
    x = nb.ones(2, requires_grad=True)
    with nb.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert nb.is_grad_enabled()

    @nb.no_grad()
    def double(t):
        return t * 2
    assert not double(x).requires_grad


def test_backward_of_non_scalar_needs_gradient():
    y = nb.ones(2, 3, requires_grad=True) * 2
    with pytest.raises(BackwardError, match=r"needs a tensor with one element.*shape \(2, 3\)"):
        y.backward()
    y.backward(nb.ones(2, 3))


def test_backward_gradient_of_wrong_shape_is_refused():
    y = nb.ones(2, 3, requires_grad=True) * 2
    with pytest.raises(
        BackwardError, match=r"has shape \(3, 2\) but the tensor has shape \(2, 3\)"
    ):
        y.backward(np.ones((3, 2)))


def test_backward_without_graph_explains():
    with pytest.raises(BackwardError, match="does not require grad") as info:
        nb.ones(1).backward()
    assert "hint:" in str(info.value)


def test_deep_graph_has_no_recursion_limit():
    x = nb.tensor([1.0], requires_grad=True)
    h = x
    for _ in range(20_000):
        h = h * 1.0001
    h.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0001 ** 20_000], rtol=1e-3)


def test_backward_on_leaf():
    x = nb.tensor(3.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_detach_and_numpy():
    x = nb.randn(3, requires_grad=True)
    assert not x.detach().requires_grad
    assert np.asarray(x) is x.detach().numpy()
    with pytest.raises(InputError, match=r"requires grad[\s\S]*hint: use x.detach\(\).numpy\(\)"):
        x.numpy()  # as in PyTorch: changes to the array would bypass autograd


def test_ndarray_on_the_left_gives_a_tensor():
    x = nb.ones(3, requires_grad=True)
    y = np.full(3, 2.0, dtype=np.float32) * x
    assert isinstance(y, nb.Tensor) and y.requires_grad


def test_errors_say_where_in_user_code():
    with pytest.raises(NnbookError) as info:
        nb.ones(2, 3) @ nb.ones(2, 3)
    text = str(info.value)
    assert "test_tensor.py" in text and "nb.ones(2, 3) @ nb.ones(2, 3)" in text
    assert "hint:" in text


def test_manual_seed_makes_randn_reproducible():
    nb.manual_seed(3)
    a = nb.randn(4, 5)
    nb.manual_seed(3)
    np.testing.assert_array_equal(a.detach().numpy(), nb.randn(4, 5).detach().numpy())


def test_item_and_bool_errors():
    with pytest.raises(ValueError, match="one element"):
        nb.ones(2).item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(nb.ones(2))


def test_setitem_on_tensor_requiring_grad_is_refused():
    x = nb.ones(3, requires_grad=True)
    with pytest.raises(BackwardError, match="in-place"):
        x[0] = 2.0
    with nb.no_grad():
        x[0] = 2.0
    assert x.detach().numpy()[0] == 2.0


def test_repr_is_short_and_pytorch_like():
    assert repr(nb.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert "requires_grad=True" in repr(nb.tensor([1.0], requires_grad=True))
    assert "grad_fn=<MulBackward0>" in repr(nb.tensor([1.0], requires_grad=True) * 2)
    assert "dtype=nnbook.float64" in repr(nb.tensor([1.0], dtype=nb.float64))


def test_in_place_update_under_no_grad_like_pytorch():
    w = nb.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    before = w
    with nb.no_grad():
        w -= 0.5 * w.grad
    assert w is before and w.requires_grad
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.0])
    with pytest.raises(BackwardError, match=r"in-place -= on a leaf tensor that requires grad"):
        w -= 1.0
    with pytest.raises(ShapeError, match=r"would change the shape \(2,\)"):
        x = nb.ones(2)
        x += nb.ones(3, 2)


@pytest.mark.parametrize("values,dtype", [
    ([200], nb.int8), ([300], nb.uint8), ([-256], nb.uint8), ([2**31], nb.int32),
    ([[1, 2], [3, 2**40]], nb.int32), ([70000], nb.int16), ([1.5e10], nb.int32),
    ([float("nan")], nb.int64), ([2**63], nb.int64),
])
def test_a_python_number_that_an_integer_dtype_cannot_hold_is_refused(values, dtype):
    """As PyTorch: numpy would wrap it around silently (2**31 into int32 is -2**31)."""
    with pytest.raises(DTypeError, match=rf"does not fit in {dtype.name}, which holds whole "
                       r"numbers from -?\d+ to \d+(?s:.*)wider dtype"):
        nb.tensor(values, dtype=dtype)
    with pytest.raises(DTypeError, match=rf"does not fit in {dtype.name}"):
        nb.full((2,), np.ravel(values)[-1].item(), dtype=dtype)


def test_numbers_an_integer_dtype_holds_are_kept_as_pytorch_keeps_them():
    assert nb.tensor([-128, 127, 2.7, True], dtype=nb.int8).tolist() == [-128, 127, 2, 1]
    assert nb.tensor([-1, -200, 255], dtype=nb.uint8).tolist() == [255, 56, 255]  # (wrapped)
    assert nb.full((2,), -2**31, dtype=nb.int32).tolist() == [-2**31] * 2
    assert nb.tensor(np.array([2**40]), dtype=nb.int32).tolist() == [0]  # arrays: as numpy
