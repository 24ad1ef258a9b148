"""A list or a number where PyTorch wants a tensor gets an nnbook ArgumentError (a
TypeError, as PyTorch's) naming the function and the operand, never numpy's or Python's
AttributeError; and ``out=`` on a function is refused rather than ignored."""
import pytest

import nnbook as nb
from nnbook import functions
from nnbook.errors import ArgumentError, InputError


@pytest.mark.parametrize("name", functions.METHODS)
def test_every_function_that_is_a_method_refuses_a_list(name):
    args = ([1.0, 2.0],) if name == "matmul" else ()  # the one that needs two
    with pytest.raises(ArgumentError, match=rf"nb\.{name}: .*\blist\b") as info:
        getattr(nb, name)([1.0, 2.0], *args)
    assert isinstance(info.value, TypeError) and "nb.tensor(" in str(info.value)


@pytest.mark.parametrize("name", ["exp", "sum", "relu", "flip"])
def test_out_is_refused_and_out_none_is_accepted(name):
    x = nb.ones(2, 3)
    args = ((0,),) if name == "flip" else ()
    getattr(nb, name)(x, *args, out=None)
    with pytest.raises(InputError, match="out= is not supported"):
        getattr(nb, name)(x, *args, out=nb.ones(2, 3))


@pytest.mark.parametrize("call, where", [
    (lambda x: x.mm([[1.0], [2.0], [3.0]]), "Tensor.mm"),
    (lambda x: x.bmm(3), "Tensor.bmm"),
    (lambda x: x[0].mv([1.0, 2.0, 3.0]), "Tensor.mv"),
    (lambda x: x[0].dot([1.0, 2.0, 3.0]), "Tensor.dot"),
    (lambda x: nb.outer(x[0], 3), "Tensor.outer"),
    (lambda x: x.gather(1, [[0]]), "gather"),
    (lambda x: nb.where(x > 0, [1.0, 2.0, 3.0], 0.0), "nb.where"),
    (lambda x: nb.einsum("ij,j->i", x, [1.0, 2.0, 3.0]), "nb.einsum"),
])
def test_a_list_or_a_number_in_place_of_a_tensor_operand_is_named(call, where):
    with pytest.raises(ArgumentError) as info:
        call(nb.ones(2, 3))
    text = str(info.value)
    assert text.startswith(where) and "not a Tensor" in text or "must be a tensor" in text
    assert "hint:" in text and "test_operands_that_are_not_tensors.py" in text
