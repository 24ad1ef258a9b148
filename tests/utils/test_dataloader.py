"""DataLoader: batches, shuffling, samplers, iterable datasets and the errors made at build time."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    TensorDataset,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return nb.tensor([float(i), float(i) / 2]), i * i


class Counter(IterableDataset):
    def __init__(self, n, with_len=True):
        self.n, self.with_len = n, with_len

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.with_len:
            raise TypeError("no len")
        return self.n


def flat(loader):
    return [i for batch in loader for i in batch.tolist()]


def test_batches_keep_the_order_and_the_last_one_is_smaller():
    x = nb.arange(17 * 3).reshape(17, 3).float()
    y = nb.arange(17)
    loader = DataLoader(TensorDataset(x, y), batch_size=5)
    batches = list(loader)
    assert len(loader) == len(batches) == 4
    assert [tuple(b[0].shape) for b in batches] == [(5, 3), (5, 3), (5, 3), (2, 3)]
    assert all(isinstance(b, list) and len(b) == 2 for b in batches)  # a tuple sample -> a list
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in batches]), x.numpy())
    assert flat(DataLoader(y, batch_size=5)) == list(range(17))


def test_drop_last_drops_only_a_short_last_batch():
    assert len(DataLoader(range(17), batch_size=5, drop_last=True)) == 3
    assert [len(b) for b in DataLoader(range(17), batch_size=5, drop_last=True)] == [5, 5, 5]
    assert [len(b) for b in DataLoader(range(15), batch_size=5, drop_last=True)] == [5, 5, 5]


def test_shuffle_visits_every_sample_once_in_a_new_order_each_epoch():
    loader = DataLoader(range(23), batch_size=4, shuffle=True)
    first, second = flat(loader), flat(loader)
    assert sorted(first) == sorted(second) == list(range(23))
    assert first != second


def test_shuffle_with_a_seeded_generator_repeats_and_leaves_the_global_stream_alone():
    def epochs(seed):
        loader = DataLoader(range(19), batch_size=3, shuffle=True,
                            generator=nb.Generator().manual_seed(seed))
        return [flat(loader) for _ in range(3)]

    before = nb.get_rng_state()
    assert epochs(7) == epochs(7)
    assert epochs(7) != epochs(8)
    assert nb.get_rng_state().tolist() == before.tolist()


def test_shuffle_without_a_generator_follows_manual_seed():
    nb.manual_seed(11)
    a = flat(DataLoader(range(19), batch_size=3, shuffle=True))
    nb.manual_seed(11)
    assert flat(DataLoader(range(19), batch_size=3, shuffle=True)) == a


def test_a_sampler_or_a_batch_sampler_decides_the_order():
    assert flat(DataLoader(range(7), batch_size=3, sampler=[6, 0, 5, 1, 4])) == [6, 0, 5, 1, 4]
    loader = DataLoader(range(7), batch_sampler=[[3, 1], [6], [0, 2, 4]])
    assert [b.tolist() for b in loader] == [[3, 1], [6], [0, 2, 4]]
    assert loader.batch_size is None and loader.drop_last is False
    sampler = BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)
    assert list(sampler) == [[0, 1, 2], [3, 4, 5], [6]] and len(sampler) == 3


def test_batch_size_none_passes_samples_one_by_one_converting_arrays():
    out = list(DataLoader([np.arange(3.0), np.arange(2.0)], batch_size=None))
    assert all(isinstance(t, nb.Tensor) and t.dtype == nb.float64 for t in out)
    assert list(DataLoader(range(4), batch_size=None)) == [0, 1, 2, 3]
    assert len(DataLoader(range(4), batch_size=None)) == 4


def test_a_collate_fn_gets_the_list_of_samples():
    seen = []

    def keep(samples):
        seen.append(samples)
        return len(samples)

    assert list(DataLoader(Squares(7), batch_size=3, collate_fn=keep)) == [3, 3, 1]
    assert seen[2][0][1] == 36


def test_iterable_datasets_are_batched_in_their_own_order():
    assert flat(DataLoader(Counter(7), batch_size=3)) == list(range(7))
    assert [len(b) for b in DataLoader(Counter(7), batch_size=3, drop_last=True)] == [3, 3]
    assert len(DataLoader(Counter(7), batch_size=3)) == 3
    assert len(DataLoader(Counter(7), batch_size=3, drop_last=True)) == 2


def test_iter_gives_an_iterator_with_a_length_and_next():
    loader = DataLoader(range(10), batch_size=4)
    it = iter(loader)
    assert len(it) == 3
    assert next(it).tolist() == [0, 1, 2, 3]
    assert [b.tolist() for b in it] == [[4, 5, 6, 7], [8, 9]]
    with pytest.raises(StopIteration):
        next(it)


def test_an_endless_random_sampler_draws_lazily():
    # RandomSampler(replacement=True, num_samples=1e10), as minGPT and makemore use it
    sampler = RandomSampler(range(5), replacement=True, num_samples=int(1e10),
                            generator=nb.Generator().manual_seed(3))
    loader = DataLoader(range(5), batch_size=4, sampler=sampler)
    it = iter(loader)
    batches = [next(it).tolist() for _ in range(20)]
    assert len(loader) == int(1e10) // 4
    assert all(len(b) == 4 and all(0 <= i < 5 for i in b) for b in batches)


def test_num_workers_runs_in_this_process_with_a_note():
    with pytest.warns(nb.NnbookNote, match="num_workers=2 is accepted"):
        loader = DataLoader(range(9), batch_size=4, num_workers=2, pin_memory=True)
    assert flat(loader) == list(range(9))


def test_the_settings_that_decide_the_batches_cannot_change_afterwards():
    loader = DataLoader(range(9), batch_size=4)
    with pytest.raises(nb.InputError, match="batch_size cannot be changed"):
        loader.batch_size = 2
    loader.num_workers = 0  # the others can


# --- errors made when the loader is built ------------------------------------------------

@pytest.mark.parametrize("batch_size", [0, -3, 2.5, True])
def test_batch_size_must_be_a_positive_whole_number(batch_size):
    with pytest.raises(nb.InputError, match=r"batch_size must be a whole number of at least "
                                            r"1.*\n.*\n.*hint: e\.g\. batch_size=32"):
        DataLoader(range(5), batch_size=batch_size)


class GetOnly(Dataset):
    def __getitem__(self, i):
        return i

    def length(self):
        return 3


class LenOnly(Dataset):
    def __len__(self):
        return 3


def test_a_dataset_without_len_is_named_with_the_misspelt_method():
    with pytest.raises(nb.ArgumentError) as err:
        DataLoader(GetOnly(), batch_size=2)
    text = str(err.value)
    assert "DataLoader: the dataset (GetOnly) has no __len__" in text
    assert "It defines length(): Python looks for the exact name." in text
    assert "dataset: GetOnly, defines __getitem__" in text
    assert "hint: define __len__(self) returning how many samples there are in GetOnly" in text


def test_a_dataset_without_getitem_is_refused_and_a_sampler_needs_no_len():
    with pytest.raises(nb.ArgumentError, match=r"\(LenOnly\) has no __getitem__.*\n.*defines "
                                               r"__len__"):
        DataLoader(LenOnly())
    assert flat(DataLoader(GetOnly(), batch_size=2, sampler=[2, 0])) == [2, 0]  # no len needed


def test_a_generator_is_not_a_dataset():
    with pytest.raises(nb.ArgumentError, match="has no __getitem__ and no __len__"):
        DataLoader((i for i in range(3)))


@pytest.mark.parametrize("kwargs, match", [
    (dict(shuffle=True, sampler=[0, 1]), "shuffle=True and sampler= both"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler= already makes the batches"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler= already makes the batches"),
    (dict(batch_size=None, drop_last=True), "batch_size=None turns batching off"),
    (dict(num_workers=-1), "num_workers must be a whole number >= 0"),
    (dict(prefetch_factor=2), "prefetch_factor= only applies"),
    (dict(persistent_workers=True), "persistent_workers=True only applies"),
])
def test_contradicting_arguments_are_refused(kwargs, match):
    with pytest.raises(nb.InputError, match=match):
        DataLoader(range(5), **kwargs)


def test_an_iterable_dataset_cannot_be_shuffled_and_needs_len_for_len():
    with pytest.raises(nb.InputError, match="IterableDataset, read in its own order, so "
                                            "shuffle= cannot reorder it"):
        DataLoader(Counter(5), shuffle=True)

    class NoLen(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    with pytest.raises(nb.ArgumentError, match="NoLen has no __len__"):
        len(DataLoader(NoLen(), batch_size=2))
