"""default_collate and default_convert: the structure of a batch, its dtypes, and the errors."""
from collections import namedtuple

import numpy as np
import pytest

import nnbook as nb
from nnbook.utils.data import DataLoader, Dataset, default_collate, default_convert

Point = namedtuple("Point", "x label")


def test_tensors_are_stacked_along_a_new_first_dimension(rng):
    samples = [nb.tensor(rng.standard_normal((3, 5)).astype(np.float32)) for _ in range(7)]
    batch = default_collate(samples)
    assert batch.shape == (7, 3, 5) and batch.dtype == nb.float32
    np.testing.assert_array_equal(batch.numpy(), np.stack([s.numpy() for s in samples]))


def test_numbers_become_int64_float64_and_bool_tensors():
    assert default_collate([3, 1, 4]).dtype == nb.int64
    assert default_collate([0.5, 1.5]).dtype == nb.float64  # PyTorch's choice for floats
    assert default_collate([True, False]).dtype == nb.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == nb.float32
    assert default_collate([np.int16(1), np.int16(2)]).dtype == nb.int16


def test_numpy_arrays_keep_their_dtype(rng):
    arrays = [rng.standard_normal((2, 3)) for _ in range(4)]
    batch = default_collate(arrays)
    assert batch.dtype == nb.float64 and batch.shape == (4, 2, 3)


def test_nested_structures_keep_their_shape():
    batch = default_collate([{"x": (1, 2.0), "name": "a"}, {"x": (3, 4.0), "name": "b"}])
    assert set(batch) == {"x", "name"}
    assert batch["name"] == ["a", "b"]
    assert isinstance(batch["x"], list)  # a tuple becomes a list, as in PyTorch
    assert batch["x"][0].tolist() == [1, 3] and batch["x"][1].dtype == nb.float64
    point = default_collate([Point(nb.zeros(2), 0), Point(nb.ones(2), 1)])
    assert isinstance(point, Point) and point.x.shape == (2, 2) and point.label.tolist() == [0, 1]
    assert [t.tolist() for t in default_collate([[1, 2], [3, 4]])] == [[1, 3], [2, 4]]


def test_stacking_keeps_the_graph_when_a_sample_requires_grad():
    w = nb.ones(3, requires_grad=True)
    default_collate([w * 2, w * 3]).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [5.0, 5.0, 5.0])


def test_default_convert_turns_arrays_into_tensors_sharing_memory():
    a = np.arange(3.0)
    t = default_convert(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0]
    out = default_convert({"a": (np.zeros(2), 1), "s": "x"})
    assert isinstance(out["a"], list) and isinstance(out["a"][0], nb.Tensor)
    assert out["a"][1] == 1 and out["s"] == "x"


class Ragged(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return nb.zeros(5, 3 + (i == 4)), i


def test_samples_of_different_shapes_name_the_samples_and_suggest_a_collate_fn():
    with pytest.raises(nb.ShapeError) as err:
        for _ in DataLoader(Ragged(), batch_size=3):
            pass
    text = str(err.value)
    assert text.startswith("default_collate: the samples of this batch have different shapes "
                           "(in item [0] of each sample)")
    assert "sample 0 (dataset index 3): shape (5, 3)" in text
    assert "sample 1 (dataset index 4): shape (5, 4)" in text
    assert "hint: make __getitem__ return one shape for every sample (pad or crop it), or pass " \
           "the DataLoader a collate_fn=" in text


def test_other_mismatches_between_samples_are_explained():
    with pytest.raises(nb.ShapeError, match=r"sequences of different lengths.*\n.*sample 0: 2 "
                                            r"items\n.*sample 1: 1 items"):
        default_collate([[1, 2], [3]])
    with pytest.raises(nb.ArgumentError, match=r"different kinds of values.*\n.*sample 0: "
                                               r"Tensor\n.*sample 1: int"):
        default_collate([nb.zeros(2), 3])
    with pytest.raises(nb.InputError, match="sample 1 has no key 'y'"):
        default_collate([{"y": 1}, {"z": 2}])
    with pytest.raises(nb.ArgumentError, match="cannot batch NoneType values"):
        default_collate([None, None])
    with pytest.raises(nb.ArgumentError, match="numpy arrays of dtype <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
