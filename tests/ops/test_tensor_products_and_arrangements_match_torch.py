"""tensordot, kron, cross, block_diag, cartesian_prod, combinations and rot90 against
PyTorch: values, shapes, dtypes and gradients on odd non-square float64 shapes, negative
dims, 0-d and empty tensors; gradchecks; and the nnbook errors for what PyTorch refuses."""
import warnings

import numpy as np
import pytest
from against_torch import check, ints, normal, value

import nnbook as nb

torch = pytest.importorskip("torch")

CASES = {
    # tensordot: an int, a pair of lists, a tensor
    "tensordot_default": ([normal(3, 4, 5), normal(4, 5, 2)], lambda m, a, b: m.tensordot(a, b)),
    "tensordot_one": ([normal(3, 7), normal(7, 5, 2)], lambda m, a, b: m.tensordot(a, b, 1)),
    "tensordot_none": ([normal(3, 2), normal(5)], lambda m, a, b: m.tensordot(a, b, dims=0)),
    "tensordot_lists": ([normal(3, 4, 5), normal(5, 2, 4)],
                        lambda m, a, b: m.tensordot(a, b, dims=([-1, 1], [0, 2]))),
    "tensordot_swapped_pairs": ([normal(3, 4, 5), normal(5, 4)],
                                lambda m, a, b: m.tensordot(a, b, dims=([2, 1], [0, 1]))),
    "tensordot_tensor_dims": ([normal(3, 4, 5), normal(4, 2)],
                              lambda m, a, b: m.tensordot(a, b, m.tensor([[1], [0]]))),
    "tensordot_0d_dims": ([normal(3, 4, 5), normal(4, 5, 2)],
                          lambda m, a, b: m.tensordot(a, b, m.tensor(2))),
    "tensordot_one_element_dims": ([normal(3, 4, 5), normal(5, 2)],
                                   lambda m, a, b: m.tensordot(a, b, m.tensor([1]))),
    "tensordot_list_of_lists": ([normal(3, 4, 5), normal(5, 4)],
                                lambda m, a, b: m.tensordot(a, b, [[1, 2], [1, 0]])),
    "tensordot_0d": ([normal(), normal()], lambda m, a, b: m.tensordot(a, b, 0)),
    "tensordot_empty_sum": ([normal(3, 0), normal(0, 5)], lambda m, a, b: m.tensordot(a, b, 1)),
    "tensordot_ints": ([ints(-5, 5, 3, 4), ints(-5, 5, 4, 2)],
                       lambda m, a, b: m.tensordot(a, b, 1)),
    # kron
    "kron": ([normal(2, 3), normal(4, 5)], lambda m, a, b: m.kron(a, b)),
    "kron_more_dims": ([normal(2, 3), normal(4, 5, 1)], lambda m, a, b: a.kron(b)),
    "kron_0d": ([normal(), normal(7)], lambda m, a, b: m.kron(a, b)),
    "kron_empty": ([normal(0, 3), normal(4)], lambda m, a, b: m.kron(a, b)),
    "kron_int_and_float": ([ints(-5, 5, 2, 3), normal(3)], lambda m, a, b: m.kron(a, b)),
    # cross
    "cross_last": ([normal(7, 3), normal(7, 3)], lambda m, a, b: m.cross(a, b, dim=-1)),
    "cross_first_broadcast": ([normal(3, 5), normal(3, 1)], lambda m, a, b: a.cross(b, 0)),
    "cross_middle": ([normal(2, 3, 5), normal(1, 3, 5)], lambda m, a, b: m.cross(a, b, -2)),
    "cross_ints": ([ints(-5, 5, 4, 3), ints(-5, 5, 4, 3)], lambda m, a, b: m.cross(a, b, 1)),
    "cross_empty": ([normal(0, 3), normal(0, 3)], lambda m, a, b: m.cross(a, b, 1)),
    # block_diag
    "block_diag": ([normal(), normal(3), normal(2, 4), normal(5, 1)],
                   lambda m, *t: m.block_diag(*t)),
    "block_diag_mixed_dtypes": ([ints(-5, 5, 2, 3), normal(1, 2)],
                                lambda m, a, b: m.block_diag(a, b)),
    "block_diag_empty_blocks": ([normal(0, 3), normal(2, 0), normal(0)],
                                lambda m, *t: m.block_diag(*t)),
    "block_diag_one": ([normal(7, 5)], lambda m, a: m.block_diag(a)),
    "block_diag_nothing": ([], lambda m: m.block_diag()),
    # cartesian_prod
    "cartesian_prod": ([normal(3), normal(2), normal(4)], lambda m, *t: m.cartesian_prod(*t)),
    "cartesian_prod_ints": ([ints(0, 9, 3), ints(0, 9, 5)], lambda m, *t: m.cartesian_prod(*t)),
    "cartesian_prod_one": ([normal(5)], lambda m, a: m.cartesian_prod(a) * 1),
    "cartesian_prod_empty": ([normal(3), normal(0)], lambda m, *t: m.cartesian_prod(*t)),
    # combinations
    "combinations": ([normal(7)], lambda m, a: m.combinations(a)),
    "combinations_r": ([normal(7)], lambda m, a: (m.combinations(a, 3), m.combinations(a, 1),
                                                  m.combinations(a, r=7))),
    "combinations_with_replacement": ([normal(5)], lambda m, a: (
        m.combinations(a, 3, with_replacement=True),
        m.combinations(a, r=1, with_replacement=True))),
    "combinations_none": ([normal(4)], lambda m, a: (m.combinations(a, 0), m.combinations(a, 5),
                                                     m.combinations(a, 0, True))),
    "combinations_of_empty": ([normal(0)], lambda m, a: (m.combinations(a), m.combinations(a, 0))),
    "combinations_ints": ([ints(-9, 9, 5)], lambda m, a: m.combinations(a, 2, True)),
    # rot90
    "rot90_default": ([normal(7, 5)], lambda m, x: m.rot90(x)),
    **{f"rot90_k{k}": ([normal(3, 4, 5)], lambda m, x, k=k: m.rot90(x, k, [2, 0]))
       for k in range(-5, 6)},
    "rot90_negative_dims": ([normal(3, 4, 5)], lambda m, x: x.rot90(1, (-1, -2))),
    "rot90_method_keywords": ([normal(3, 4, 5)], lambda m, x: x.rot90(k=3, dims=[0, -1])),
    "rot90_empty": ([normal(0, 5)], lambda m, x: m.rot90(x, 1)),
    "rot90_bools": ([value(np.array([[True, False, True], [False, False, True]]))],
                    lambda m, x: m.rot90(x, -1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(rng, name):
    makers, fn = CASES[name]
    check(fn, makers, rng)


def test_cross_without_dim_takes_the_first_dim_of_size_3_and_warns_as_torch(rng):
    a, b = rng.standard_normal((5, 3, 3)), rng.standard_normal((5, 3, 3))
    with pytest.warns(UserWarning, match="cross without dim is deprecated") as record:
        mine = nb.cross(nb.tensor(a), nb.tensor(b))
    assert record[0].filename == __file__  # the warning points at the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(mine.numpy(), np.cross(a, b, axis=1), rtol=1e-12)
