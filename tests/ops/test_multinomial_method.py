"""``probs.multinomial(n)``, the method form sampling code uses, is ``nb.multinomial``."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import InputError


def test_the_method_draws_what_the_function_draws_from_the_same_generator(rng):
    probs = nb.tensor(rng.random((5, 7)), dtype=nb.float32).softmax(-1)
    a = probs.multinomial(3, replacement=True, generator=nb.Generator().manual_seed(11))
    b = nb.multinomial(probs, 3, True, generator=nb.Generator().manual_seed(11))
    assert a.shape == (5, 3) and a.dtype == nb.int64
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_without_replacement_each_row_draws_distinct_indices_with_weight(rng):
    weights = nb.tensor(rng.random((4, 9)))
    weights[:, 2] = 0  # never drawn
    drawn = weights.multinomial(num_samples=8).numpy()
    assert all(len(set(row)) == 8 and 2 not in row for row in drawn)


def test_a_row_without_weight_is_refused_as_by_the_function():
    with pytest.raises(InputError, match="positive sum"):
        nb.zeros(2, 3).multinomial(1)
