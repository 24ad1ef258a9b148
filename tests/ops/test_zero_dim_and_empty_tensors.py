"""0-d tensors (single numbers) and empty tensors at the edges of the tensor methods: what
PyTorch computes is computed, what it refuses is refused with an nnbook error that says
why (they raised numpy's IndexError, ValueError or AxisError, or warned)."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DimError, DTypeError, ShapeError

SCALAR = 1.5


@pytest.mark.parametrize("cut", [lambda x: x.narrow(0, 0, 1), lambda x: x.split(1),
                                 lambda x: x.chunk(2), lambda x: x.unbind(0)],
                         ids=["narrow", "split", "chunk", "unbind"])
def test_a_single_number_cannot_be_cut_into_pieces(cut):
    with pytest.raises(DimError, match=r"at least one dimension, got a 0-d tensor(?s:.*)"
                       r"x\.reshape\(1\)"):
        cut(nb.tensor(SCALAR))


def test_single_numbers_are_stacked_not_concatenated():
    with pytest.raises(ShapeError, match=r"tensor 0 is 0-d(?s:.*)nb\.stack"):
        nb.cat([nb.tensor(1.0), nb.tensor(2.0)])
    assert nb.stack([nb.tensor(1.0), nb.tensor(2.0)]).tolist() == [1.0, 2.0]


def test_gather_and_scatter_treat_a_single_number_as_one_element():
    x = nb.tensor(SCALAR, requires_grad=True)
    zero = nb.tensor(0)
    picked = x.gather(0, zero)
    added = x.scatter_add(0, zero, nb.tensor(2.0))
    placed = x.scatter(0, zero, nb.tensor(4.0))
    assert picked.shape == added.shape == placed.shape == ()
    assert (picked.item(), added.item(), placed.item()) == (1.5, 3.5, 4.0)
    (picked + added).backward()
    assert x.grad.item() == 2.0


def test_count_nonzero_of_a_single_number_along_its_dim():
    assert nb.tensor(SCALAR).count_nonzero(0).item() == 1
    assert nb.tensor(0.0).count_nonzero(-1).item() == 0


@pytest.mark.parametrize("pick", ["argmax", "argmin", "median", "mode"])
def test_picking_an_element_of_an_empty_tensor_is_refused(pick):
    empty = nb.zeros(0, 5)
    with pytest.raises(ShapeError, match=rf"{pick} of an empty tensor \(0, 5\) along dim 0"):
        getattr(empty, pick)(0)
    if pick in ("argmax", "argmin"):
        with pytest.raises(ShapeError, match=rf"{pick} of an empty tensor \(0, 5\): there"):
            getattr(empty, pick)()
    assert getattr(empty, pick)(1) is not None  # along a dim with elements: an empty result


def test_the_mean_of_nothing_is_nan_without_a_warning():
    x = nb.zeros(0, 5, requires_grad=True)
    assert np.isnan(x.mean().item())
    over_rows = x.mean(0)
    assert over_rows.shape == (5,) and np.isnan(over_rows.numpy(force=True)).all()
    assert x.mean(1).shape == (0,)
    x.mean().backward()
    assert x.grad.shape == (0, 5)


def test_relu_of_booleans_is_refused():
    with pytest.raises(DTypeError, match=r"relu: expects numbers, got a bool tensor(?s:.*)"
                       r"x\.float\(\)"):
        nb.tensor([True, False]).relu()
    assert nb.tensor([-2, 3]).relu().tolist() == [0, 3]
