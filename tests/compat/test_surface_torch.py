"""The PyTorch surface against PyTorch (CPU build): the same answers, limits and conversions."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_pytorch(name):
    a, b = nb.finfo(getattr(nb, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert repr(a) == repr(b)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_pytorch(name):
    a, b = nb.iinfo(getattr(nb, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.max, a.min, a.dtype, repr(a)) == (b.bits, b.max, b.min, b.dtype, repr(b))


def test_the_cpu_answers_match_a_cpu_only_pytorch():
    for name in ("is_available", "device_count", "is_bf16_supported", "is_initialized",
                 "memory_allocated", "max_memory_allocated", "memory_reserved"):
        assert getattr(nb.cuda, name)() == getattr(torch.cuda, name)(), name
    assert nb.backends.mps.is_available() == torch.backends.mps.is_available()
    assert nb.backends.cudnn.deterministic == torch.backends.cudnn.deterministic
    assert nb.accelerator.is_available() == torch.accelerator.is_available()
    assert nb.accelerator.current_accelerator() is torch.accelerator.current_accelerator()
    assert str(nb.get_default_device()) == str(torch.get_default_device())


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor",
                                  "BoolTensor", "ByteTensor", "ShortTensor", "CharTensor",
                                  "HalfTensor"])
def test_legacy_constructors_match_pytorch(name):
    data = [[1.7, -0.2, 3.0], [0.0, 2.5, 1.0]]
    if name == "ByteTensor":
        data = [[1.7, 0.2, 3.0], [0.0, 2.5, 1.0]]  # no negative bytes
    a, b = getattr(nb, name)(data), getattr(torch, name)(data)
    assert a.dtype.name == str(b.dtype)[6:]
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert getattr(nb, name)(4, 3).shape == tuple(getattr(torch, name)(4, 3).shape)
    for dtype in ("float32", "int64", "bool"):
        x, y = nb.zeros(2, dtype=getattr(nb, dtype)), torch.zeros(2, dtype=getattr(torch, dtype))
        assert isinstance(x, getattr(nb, name)) == isinstance(y, getattr(torch, name))


def test_default_collate_of_numbers_matches_pytorch():
    from torch.utils.data import default_collate

    for batch in ([1, 2], [0.5, 1.0], [True, False], [1, 2.5], [np.float16(1.5)]):
        assert nb.utils.data.default_collate(batch).dtype.name == \
            str(default_collate(batch).dtype)[6:]


def test_size_numel_matches_pytorch():
    assert nb.Size([7, 5, 3]).numel() == torch.Size([7, 5, 3]).numel()
    assert nb.Size([]).numel() == torch.Size([]).numel()
    assert nb.Size([7, 5]) == torch.Size([7, 5])


def test_module_to_accepts_the_argument_forms_pytorch_accepts():
    forms = [((torch.float64,), {}), (("cpu", torch.float64, True), {}),
             ((), dict(device="cpu", dtype=torch.float64, non_blocking=True))]
    for args, kwargs in forms:
        t = torch.nn.Linear(3, 2).to(*args, **kwargs)
        args = tuple(getattr(nb, str(a)[6:]) if isinstance(a, torch.dtype) else a for a in args)
        kwargs = {k: getattr(nb, str(v)[6:]) if isinstance(v, torch.dtype) else v
                  for k, v in kwargs.items()}
        n = nb.nn.Linear(3, 2).to(*args, **kwargs)
        assert n.weight.dtype.name == str(t.weight.dtype)[6:]
    with pytest.raises(TypeError):
        torch.nn.Linear(3, 2).to(torch.int64)
    with pytest.raises(TypeError):  # nnbook's DTypeError is a TypeError too
        nb.nn.Linear(3, 2).to(nb.int64)
