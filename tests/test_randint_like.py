"""nb.randint_like: integers in [low, high) in another tensor's shape, drawn from nnbook's
generators, with PyTorch's arguments and dtypes."""
import numpy as np
import pytest

import nnbook as nb


def test_draws_in_the_range_with_the_input_shape_and_dtype():
    x = nb.zeros(7, 5)
    drawn = nb.randint_like(x, 4)
    assert drawn.shape == (7, 5) and drawn.dtype == nb.float32
    assert set(np.unique(drawn.numpy())) <= {0.0, 1.0, 2.0, 3.0}
    between = nb.randint_like(x, -3, 2, dtype=nb.int64)
    assert between.dtype == nb.int64 and between.min() >= -3 and between.max() <= 1
    named = nb.randint_like(nb.zeros(3, 4, dtype=nb.int32), low=5, high=7)
    assert named.dtype == nb.int32 and set(named.numpy().ravel()) <= {5, 6}
    assert nb.randint_like(x, high=3).max() <= 2
    assert nb.randint_like(nb.zeros(0, 3), 5).shape == (0, 3)


def test_a_seeded_generator_repeats_its_draws_and_the_global_seed_too():
    x = nb.zeros(7, 5, dtype=nb.int64)
    first = nb.randint_like(x, 100, generator=nb.Generator().manual_seed(3))
    again = nb.randint_like(x, 100, generator=nb.Generator().manual_seed(3))
    assert first.tolist() == again.tolist()
    nb.manual_seed(11)
    a = nb.randint_like(x, 0, 1000)
    nb.manual_seed(11)
    assert nb.randint_like(x, 0, 1000).tolist() == a.tolist()


@pytest.mark.parametrize("call, error, match", [
    (lambda x: nb.randint_like(x), nb.ArgumentError, "needs high"),
    (lambda x: nb.randint_like(x, low=3), nb.ArgumentError, "needs high"),
    (lambda x: nb.randint_like(x, 1, 2, 3), nb.ArgumentError, "needs high"),
    (lambda x: nb.randint_like(x, 5, 5), nb.InputError, "low < high"),
])
def test_wrong_bounds_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(nb.zeros(2, 3))


@pytest.mark.torch
def test_the_same_call_gives_pytorchs_shape_and_dtype():
    torch = pytest.importorskip("torch")
    for lib in (nb, torch):
        assert lib.randint_like(lib.zeros(2, 3), 5).dtype == lib.float32
    for args, kwargs in [((5,), {}), ((2, 5), {"dtype": "int64"}), ((), {"high": 4})]:
        mine = nb.randint_like(nb.zeros(2, 3), *args, **{k: getattr(nb, v) if k == "dtype"
                                                          else v for k, v in kwargs.items()})
        theirs = torch.randint_like(torch.zeros(2, 3), *args, **{
            k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()})
        assert mine.shape == tuple(theirs.shape)
        assert mine.dtype.name == str(theirs.dtype).removeprefix("torch.")
