"""finfo / iinfo, is_tensor & co., nb.Size and the legacy typed tensors (nb.FloatTensor...)."""
import numpy as np
import pytest

import nnbook as nb


def test_finfo_gives_the_limits_of_each_float():
    f = nb.finfo(nb.float32)
    assert (f.bits, f.eps, f.tiny, f.resolution) == (32, 2.0**-23, 2.0**-126, 1e-6)
    assert f.max == float(np.finfo(np.float32).max) == -f.min and f.dtype == "float32"
    assert nb.finfo(nb.float64).eps == 2.0**-52 and nb.finfo(nb.float16).max == 65504.0
    assert nb.finfo(nb.bfloat16).eps == 2.0**-7 and nb.finfo().dtype == "float32"
    assert nb.finfo(np.float64).bits == 64


def test_iinfo_gives_the_limits_of_each_integer():
    assert (nb.iinfo(nb.int64).max, nb.iinfo(nb.int64).min) == (2**63 - 1, -2**63)
    assert (nb.iinfo(nb.uint8).min, nb.iinfo(nb.uint8).max, nb.iinfo(nb.uint8).bits) == \
        (0, 255, 8)


@pytest.mark.parametrize("call, match", [
    (lambda: nb.finfo(nb.int32), "finfo needs a floating point dtype, got int32.*\n.*hint: use "
                                 r"nb.iinfo\(nb.int32\)"),
    (lambda: nb.iinfo(nb.float32), "iinfo needs an integer dtype, got float32.*\n.*hint: use "
                                   r"nb.finfo\(nb.float32\)"),
    (lambda: nb.iinfo(nb.bool), "iinfo needs an integer dtype, got bool"),
])
def test_info_of_the_wrong_kind_points_to_the_other(call, match):
    with pytest.raises(nb.DTypeError, match=match):
        call()


def test_tensor_predicates():
    x = nb.zeros(7, 5)
    assert nb.is_tensor(x) and nb.is_tensor(nb.nn.Parameter(x)) and not nb.is_tensor([1.0])
    assert nb.is_floating_point(x) and not nb.is_floating_point(nb.arange(3))
    assert nb.numel(x) == 35 and not nb.is_complex(x)
    with pytest.raises(nb.ArgumentError, match=r"nb.is_floating_point takes a tensor, got "
                                               r"list.*\n.*\n.*hint: make one first"):
        nb.is_floating_point([1.0])


def test_size_is_a_tuple_with_numel():
    s = nb.Size([7, 5])
    assert s == (7, 5) == nb.zeros(7, 5).shape and s.numel() == 35 and nb.Size().numel() == 1
    assert nb.zeros(s).shape == (7, 5) and isinstance(s, tuple)
    with pytest.raises(nb.ArgumentError, match="a Size holds whole numbers"):
        nb.Size([2.5])


@pytest.mark.parametrize("cls, dtype", [(nb.FloatTensor, nb.float32),
                                        (nb.DoubleTensor, nb.float64),
                                        (nb.LongTensor, nb.int64), (nb.IntTensor, nb.int32),
                                        (nb.BoolTensor, nb.bool), (nb.ByteTensor, nb.uint8)])
def test_legacy_typed_tensors_take_data_or_sizes(cls, dtype):
    data = cls([1, 0, 1])
    assert type(data) is nb.Tensor and data.dtype == dtype and data.tolist() == [1, 0, 1]
    sized = cls(7, 5)
    assert sized.shape == (7, 5) and sized.dtype == dtype and not sized.numpy().any()
    assert isinstance(data, cls) and isinstance(sized, cls)
    assert not isinstance(nb.zeros(2, dtype=nb.complex64), cls)
    assert cls().shape == (0,)


def test_legacy_types_convert_and_keep_every_digit():
    assert nb.LongTensor([1.7, -2.2]).tolist() == [1, -2]
    assert nb.DoubleTensor([1 / 3]).item() == 1 / 3
    assert nb.tensor([1 / 3], dtype=nb.float64).item() == 1 / 3  # not through float32
    assert nb.ones(2).type(nb.DoubleTensor).dtype == nb.float64
    assert not isinstance(nb.ones(2), nb.LongTensor)
    with pytest.raises(nb.ArgumentError, match="nb.FloatTensor.. takes data or sizes, got "
                                               "keyword argument.s. dtype"):
        nb.FloatTensor([1.0], dtype=nb.float64)
