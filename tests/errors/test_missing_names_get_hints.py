"""A name nnbook does not have -- a typo, or a part of PyTorch it leaves out -- is an
AttributeError that is also an nnbook error: it names what was looked up, the user's line,
and either the names it was probably meant to be or where to read what nnbook covers.
Probing for a name (hasattr, getattr with a default, from-imports) behaves as Python's own."""
import copy
import pickle

import pytest

import nnbook as nb
import nnbook.nn.functional as F
from nnbook.errors import MissingNameError, NnbookError


def _raised(get):
    with pytest.raises(MissingNameError) as info:
        get()
    error = info.value
    assert isinstance(error, AttributeError) and isinstance(error, NnbookError)
    return str(error)


@pytest.mark.parametrize("owner, get, close", [
    ("Tensor.unsqeeze", lambda: nb.ones(3).unsqeeze, "unsqueeze"),
    ("Tensor.trasnpose", lambda: nb.ones(3).trasnpose, "transpose"),
    ("nb.flaot32", lambda: nb.flaot32, "float32"),
    ("nb.zeroes", lambda: nb.zeroes, "zeros"),
    ("nn.Conv2D", lambda: nb.nn.Conv2D, "Conv2d"),
    ("nn.functional.cross_entropy_loss", lambda: F.cross_entropy_loss, "cross_entropy"),
])
def test_a_typo_is_answered_with_the_names_it_was_probably_meant_to_be(owner, get, close):
    text = _raised(get)
    assert text.startswith(f"{owner}: nnbook's {owner.rsplit('.', 1)[0]} has no attribute")
    assert "test_missing_names_get_hints.py, line" in text  # the user's line
    assert f"did you mean '{close}'" in text


def test_a_name_nothing_resembles_points_to_what_nnbook_covers():
    text = _raised(lambda: nb.ones(2).qqqzzzxxxwww)
    assert text.startswith("Tensor.qqqzzzxxxwww: nnbook's Tensor has no attribute 'qqqzzzxxxwww'.")
    assert "docs/pytorch.md" in text and "dir(Tensor)" in text
    assert "did you mean" not in text


def test_a_function_looked_for_among_the_layers_points_to_functional():
    text = _raised(lambda: nb.nn.softmax)
    assert "softmax is a function: nn.functional.softmax(...)" in text


def test_a_tensor_method_looked_for_as_a_function_points_to_the_method():
    text = _raised(lambda: nb.requires_grad_)
    assert "a tensor method: x.requires_grad_(...)" in text


def test_probing_for_names_works_as_with_any_python_object():
    x = nb.ones(2, 3)
    assert not hasattr(x, "iloc") and not hasattr(nb, "DataFrame")
    assert not hasattr(nb.nn, "NotALayer") and not hasattr(F, "not_a_function")
    assert getattr(x, "to_numpy", "absent") == "absent"
    with pytest.raises(AttributeError) as info:  # private names: plain and fast
        x._not_there  # noqa: B018
    assert not isinstance(info.value, NnbookError)
    with pytest.raises(ImportError):
        from nnbook.nn import Lineer  # noqa: F401
    assert x.shape == (2, 3) and nb.nn.Linear and F.relu  # real names are untouched


def test_copies_and_pickles_of_tensors_still_work():
    x = nb.arange(6.0).reshape(2, 3)
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert y.shape == (2, 3) and y.tolist() == x.tolist()
