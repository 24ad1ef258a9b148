"""nnbook.utils.data against torch.utils.data: the same batches, structures and dtypes.

Random orders are not compared (the generators differ); everything else is.
"""
from collections import namedtuple

import numpy as np
import pytest

import nnbook as nb
import nnbook.utils.data as nbd

torch = pytest.importorskip("torch")
import torch.utils.data as td  # noqa: E402

Pair = namedtuple("Pair", "a b")


def same(nb_value, torch_value):
    """Equal structure, values and dtypes (tensors by dtype name)."""
    if isinstance(torch_value, torch.Tensor):
        assert isinstance(nb_value, nb.Tensor)
        assert nb_value.dtype.name == str(torch_value.dtype).replace("torch.", "")
        np.testing.assert_array_equal(nb_value.numpy(), torch_value.numpy())
    elif isinstance(torch_value, dict):
        assert type(nb_value) is type(torch_value) and nb_value.keys() == torch_value.keys()
        for k in torch_value:
            same(nb_value[k], torch_value[k])
    elif isinstance(torch_value, (list, tuple)):
        assert type(nb_value) is type(torch_value) and len(nb_value) == len(torch_value)
        for a, b in zip(nb_value, torch_value):
            same(a, b)
    else:
        assert nb_value == torch_value


def samples(rng):
    """Samples of every kind default_collate handles, in nnbook's and in PyTorch's form."""
    arrays = [rng.standard_normal((3, 2)).astype(np.float32) for _ in range(5)]
    nb_samples, torch_samples = [], []
    for i, a in enumerate(arrays):
        common = {"n": i, "x": float(i) / 3, "flag": i % 2 == 0, "name": f"s{i}",
                  "np": a.astype(np.float64), "scalar": np.int32(i),
                  "pair": Pair(i, [i, -i]), "seq": (i, 2.5, f"t{i}")}
        nb_samples.append(dict(common, t=nb.tensor(a)))
        torch_samples.append(dict(common, t=torch.tensor(a)))
    return nb_samples, torch_samples


def test_default_collate_matches_pytorch_on_nested_samples(rng):
    nb_samples, torch_samples = samples(rng)
    same(nbd.default_collate(nb_samples), td.default_collate(torch_samples))


def test_default_convert_matches_pytorch(rng):
    data = {"a": (rng.standard_normal(3), 1, "s"), "b": [np.int64(2), np.arange(2)]}
    same(nbd.default_convert(data), td.default_convert(data))


class Table:
    """A dataset that is a plain list of samples, one class for both libraries."""

    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


@pytest.mark.parametrize("kwargs", [dict(batch_size=4), dict(batch_size=4, drop_last=True),
                                    dict(batch_size=1), dict(batch_size=None),
                                    dict(batch_size=3, sampler=[6, 1, 0, 5])])
def test_unshuffled_loaders_give_the_same_batches(rng, kwargs):
    nb_samples, torch_samples = samples(rng)
    nb_samples, torch_samples = nb_samples * 2 + nb_samples[:1], torch_samples * 2 + \
        torch_samples[:1]
    nb_loader = nbd.DataLoader(Table(nb_samples), **kwargs)
    torch_loader = td.DataLoader(Table(torch_samples), **kwargs)
    assert len(nb_loader) == len(torch_loader)
    for a, b in zip(nb_loader, torch_loader, strict=True):
        same(a, b)


def test_tensor_dataset_loaders_give_the_same_batches(rng):
    x = rng.standard_normal((17, 5)).astype(np.float32)
    y = rng.integers(0, 3, 17)
    nb_loader = nbd.DataLoader(nbd.TensorDataset(nb.tensor(x), nb.tensor(y)), batch_size=6)
    torch_loader = td.DataLoader(td.TensorDataset(torch.tensor(x), torch.tensor(y)),
                                 batch_size=6)
    for a, b in zip(nb_loader, torch_loader, strict=True):
        same(a, b)


@pytest.mark.parametrize("n, batch_size, drop_last", [(23, 5, False), (23, 5, True),
                                                      (20, 5, False), (3, 7, False)])
def test_shuffled_loaders_have_the_same_sizes_and_visit_every_sample(n, batch_size, drop_last):
    nb_batches = list(nbd.DataLoader(range(n), batch_size=batch_size, shuffle=True,
                                     drop_last=drop_last))
    torch_batches = list(td.DataLoader(range(n), batch_size=batch_size, shuffle=True,
                                       drop_last=drop_last))
    assert [len(b) for b in nb_batches] == [len(b) for b in torch_batches]
    assert [b.dtype.name for b in nb_batches] == [str(b.dtype)[6:] for b in torch_batches]
    if not drop_last:
        assert sorted(i for b in nb_batches for i in b.tolist()) == list(range(n))


@pytest.mark.parametrize("n, lengths", [(10, [0.3, 0.3, 0.4]), (11, [0.3, 0.3, 0.4]),
                                        (7, [0.5, 0.5]), (2, [0.1, 0.9]), (13, [0.25] * 4),
                                        (9, [4, 5])])
def test_random_split_lengths_match_pytorch(n, lengths):
    assert [len(s) for s in nbd.random_split(range(n), lengths)] == \
        [len(s) for s in td.random_split(range(n), lengths)]


@pytest.mark.parametrize("size, batch_size, drop_last", [(10, 3, False), (10, 3, True),
                                                         (9, 3, True), (2, 5, False)])
def test_batch_sampler_matches_pytorch(size, batch_size, drop_last):
    a = nbd.BatchSampler(nbd.SequentialSampler(range(size)), batch_size, drop_last)
    b = td.BatchSampler(td.SequentialSampler(range(size)), batch_size, drop_last)
    assert list(a) == list(b) and len(a) == len(b)
    assert len(nbd.RandomSampler(range(size), num_samples=17)) == \
        len(td.RandomSampler(range(size), num_samples=17))


def test_concat_dataset_matches_pytorch():
    a, b = nbd.ConcatDataset([range(3), range(10, 14)]), td.ConcatDataset([range(3),
                                                                           range(10, 14)])
    assert a.cumulative_sizes == b.cumulative_sizes
    assert [a[i] for i in range(-7, 7)] == [b[i] for i in range(-7, 7)]
