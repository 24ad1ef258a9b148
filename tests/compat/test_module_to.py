"""Module.to / cpu / half: PyTorch's argument forms, and nothing half-changed on an error."""
import numpy as np
import pytest

import nnbook as nb


def model():
    return nb.nn.Sequential(nb.nn.Linear(5, 7), nb.nn.BatchNorm1d(7), nb.nn.Linear(7, 3))


def dtypes_of(m):
    return {name: t.dtype.name for name, t in m.state_dict().items()}


@pytest.mark.parametrize("args, kwargs", [
    ((nb.float64,), {}),
    (("cpu", nb.float64), {}),
    ((nb.device("cpu"), nb.float64, True), {}),
    ((), dict(device="cpu", dtype=nb.float64, non_blocking=True)),
    ((nb.zeros(1, dtype=nb.float64),), {}),
    ((np.float64,), {}),
])
def test_to_converts_floating_parameters_and_buffers(args, kwargs):
    m = model()
    assert m.to(*args, **kwargs) is m
    found = dtypes_of(m)
    assert found.pop("1.num_batches_tracked") == "int64"  # integers stay as they are
    assert set(found.values()) == {"float64"}


@pytest.mark.parametrize("args, kwargs", [(("cpu",), {}), ((nb.device("cpu"),), {}),
                                          ((), dict(device="cpu", non_blocking=True))])
def test_to_a_device_alone_changes_nothing(args, kwargs):
    m = model()
    before = dtypes_of(m)
    assert m.to(*args, **kwargs) is m and m.cpu() is m
    assert dtypes_of(m) == before


def test_half_and_double_round_trip_the_values(rng):
    m = nb.nn.Linear(5, 3).double()
    w = m.weight.detach().numpy().copy()
    assert m.half().weight.dtype == nb.float16
    np.testing.assert_allclose(m.double().weight.detach().numpy(), w, rtol=1e-3)


def test_an_integer_dtype_is_refused_before_anything_changes():
    m = model()
    before = dtypes_of(m)
    with pytest.raises(nb.DTypeError, match="Sequential.to: a model's parameters must stay "
                                            "floating point; got dtype int64"):
        m.to(nb.int64)
    assert dtypes_of(m) == before
    with pytest.raises(nb.InputError, match="cannot put tensors on 'cuda'"):
        m.to("cuda", nb.float64)
    assert dtypes_of(m) == before
