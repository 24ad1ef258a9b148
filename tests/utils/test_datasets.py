"""Datasets and samplers: TensorDataset, Subset, ConcatDataset, random_split and the samplers."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    DatasetError,
    IterableDataset,
    RandomSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


def test_tensor_dataset_pairs_rows(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    y = nb.arange(7)
    ds = TensorDataset(x, y)
    assert len(ds) == 7 and ds.tensors == (x, y)
    row, label = ds[4]
    np.testing.assert_array_equal(row.numpy(), x.numpy()[4])
    assert label.item() == 4


def test_tensor_dataset_samples_of_a_tensor_that_requires_grad_stay_in_the_graph(rng):
    w = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    row, = TensorDataset(w)[2]
    row.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy().sum(axis=1), [0, 0, 5, 0, 0, 0, 0])
    with pytest.raises(nb.DimError, match="out of bounds"):
        TensorDataset(nb.zeros(7, 5))[7]


def test_tensor_dataset_with_different_sizes_names_every_shape():
    with pytest.raises(nb.ShapeError) as err:
        TensorDataset(nb.zeros(7, 5), nb.zeros(5, 7), nb.zeros(7))
    text = str(err.value)
    assert text.startswith("TensorDataset: the tensors hold different numbers of samples "
                           "(7, 5, 7)")
    assert "tensor 0: (7, 5)   tensor 1: (5, 7)   tensor 2: (7,)" in text
    assert "hint: pass tensors with the same first size" in text


def test_tensor_dataset_takes_tensors_only():
    with pytest.raises(nb.ArgumentError, match="argument 1 is ndarray.*\n.*\n.*hint: make it a "
                                               "tensor first"):
        TensorDataset(nb.zeros(3), np.zeros(3))
    with pytest.raises(nb.ShapeError, match="argument 0 is a 0-d tensor"):
        TensorDataset(nb.tensor(1.0))


def test_subset_and_concat_index_through():
    sub = Subset(list("abcdefg"), [5, 0, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == ["f", "a", "d"]
    both = ConcatDataset([list("abc"), list("defg")])
    assert len(both) == 7 and both.cumulative_sizes == [3, 7]
    assert [both[i] for i in (0, 2, 3, 6, -1, -7)] == ["a", "c", "d", "g", "g", "a"]
    with pytest.raises(nb.DimError, match="index -8 is out of range"):
        both[-8]


class Letters(Dataset):
    def __init__(self, text):
        self.text = text

    def __len__(self):
        return len(self.text)

    def __getitem__(self, i):
        return self.text[i]


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def test_adding_datasets_concatenates_or_chains():
    joined = Letters("ab") + Letters("cde")
    assert isinstance(joined, ConcatDataset) and [joined[i] for i in range(5)] == list("abcde")
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2]
    with pytest.raises(nb.ArgumentError, match="ChainDataset"):
        ConcatDataset([Stream(2)])


def test_the_base_classes_say_which_method_is_missing():
    with pytest.raises(DatasetError, match="Dataset does not define __getitem__"):
        Dataset()[0]
    with pytest.raises(NotImplementedError, match="does not define __iter__"):
        iter(IterableDataset())


def test_random_split_with_counts_is_a_seeded_partition():
    parts = random_split(range(13), [5, 8], generator=nb.Generator().manual_seed(2))
    again = random_split(range(13), [5, 8], generator=nb.Generator().manual_seed(2))
    assert [len(p) for p in parts] == [5, 8]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(13))
    assert [list(p) for p in parts] == [list(p) for p in again]


@pytest.mark.parametrize("n, fractions, lengths", [
    (10, [0.3, 0.3, 0.4], [3, 3, 4]),
    (11, [0.3, 0.3, 0.4], [4, 3, 4]),   # the remainder goes to the first splits
    (7, [0.5, 0.5], [4, 3]),
    (2, [0.1, 0.9], [1, 1]),
])
def test_random_split_with_fractions_rounds_as_pytorch(n, fractions, lengths):
    assert [len(p) for p in random_split(range(n), fractions)] == lengths


def test_random_split_refuses_lengths_that_do_not_add_up():
    with pytest.raises(nb.InputError, match=r"add up to 6, but the dataset has 10 samples.*\n"
                                            r".*lengths: \[3, 3\]"):
        random_split(range(10), [3, 3])
    with pytest.warns(UserWarning, match="is empty") as record:
        parts = random_split(range(3), [0.9, 0.05, 0.05])
    assert [len(p) for p in parts] == [3, 0, 0]
    assert ["split 1 is empty" in str(w.message) for w in record] == [True, False]


def test_random_sampler_without_replacement_repeats_whole_permutations():
    drawn = list(RandomSampler(range(5), num_samples=12, generator=nb.Generator().manual_seed(0)))
    assert len(drawn) == 12
    assert sorted(drawn[:5]) == sorted(drawn[5:10]) == list(range(5))
    assert len(set(drawn[10:])) == 2


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(num_samples=0), nb.InputError, "num_samples must be a whole number of at least 1"),
    (dict(replacement=1), nb.ArgumentError, "replacement must be True or False"),
])
def test_random_sampler_checks_its_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        RandomSampler(range(5), **kwargs)


def test_subset_and_weighted_samplers():
    g = nb.Generator().manual_seed(5)
    assert sorted(SubsetRandomSampler([9, 4, 7], generator=g)) == [4, 7, 9]
    drawn = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 40, generator=g))
    assert len(drawn) == 40 and set(drawn) <= {1, 3} and drawn.count(3) > drawn.count(1)
    once = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=g))
    assert sorted(once) == [0, 1, 2]
    with pytest.raises(nb.ShapeError, match=r"weights must be 1-D.*got shape \(2, 2\)"):
        WeightedRandomSampler(np.ones((2, 2)), 3)
