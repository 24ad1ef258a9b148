"""nb.set_printoptions changes how tensors print as torch.set_printoptions does: the same
text for the same options, calls that build on each other, and the profiles."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import printing


@pytest.fixture(autouse=True)
def default_options():
    yield
    nb.set_printoptions(profile="default")
    try:
        import torch
    except ImportError:
        return
    torch.set_printoptions(profile="default", sci_mode=None)


def _arrays(rng):
    """float32 and int64, so neither library adds a dtype= to the text."""
    return [rng.standard_normal((7, 5)).astype(np.float32),
            rng.standard_normal(2001).astype(np.float32),
            (np.arange(30.0).reshape(5, 6) * 1000).astype(np.float32),
            (rng.standard_normal((3, 4, 5)) * 1e-5).astype(np.float32),
            np.array([1.5, np.nan, np.inf, -2.0], dtype=np.float32),
            rng.standard_normal((9, 11, 13)).astype(np.float32),
            np.arange(2000).reshape(40, 50), rng.integers(-99, 99, (7, 3))]


OPTIONS = [
    [dict(precision=2)], [dict(precision=7, sci_mode=False)], [dict(threshold=5)],
    [dict(threshold=5, edgeitems=1)], [dict(linewidth=30)], [dict(sci_mode=True)],
    [dict(sci_mode=False)], [dict(profile="short")], [dict(profile="full", linewidth=150)],
    [dict(edgeitems=2, threshold=100, linewidth=50)],
    # calls build on each other; a profile resets the four numbers, each call sci_mode
    [dict(precision=2), dict(threshold=10), dict(linewidth=40)],
    [dict(sci_mode=True, precision=3), dict(threshold=20)],
    [dict(precision=1, edgeitems=1), dict(profile="default", threshold=50)],
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(OPTIONS)))
def test_tensors_print_as_pytorchs_under_the_same_options(rng, case):
    torch = pytest.importorskip("torch")
    for options in OPTIONS[case]:
        nb.set_printoptions(**options)
        torch.set_printoptions(**options)
    for array in _arrays(rng):
        assert repr(nb.tensor(array)) == repr(torch.tensor(array)), (OPTIONS[case], array.shape)


def test_options_change_the_text_and_the_default_profile_restores_it():
    x = nb.tensor([1.123456, 20.5])
    assert repr(x) == "tensor([ 1.1235, 20.5000])"
    nb.set_printoptions(precision=2)
    assert repr(x) == "tensor([ 1.12, 20.50])"
    nb.set_printoptions(sci_mode=True)
    assert repr(x) == "tensor([1.12e+00, 2.05e+01])"
    nb.set_printoptions(threshold=3)
    assert repr(nb.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    nb.set_printoptions(profile="full")
    assert "..." not in repr(nb.arange(5000))
    nb.set_printoptions(profile="default")
    assert repr(x) == "tensor([ 1.1235, 20.5000])" and printing.THRESHOLD == 1000


@pytest.mark.parametrize("options, match", [
    (dict(profile="long"), "profile must be one of"),
    (dict(precision=-1), "precision must be a number >= 0"),
    (dict(threshold="many"), "threshold must be a number"),
])
def test_wrong_options_get_nnbook_errors_and_change_nothing(options, match):
    before = (printing.PRECISION, printing.THRESHOLD, printing.EDGE_ITEMS, printing.LINE_WIDTH)
    with pytest.raises(nb.InputError, match=match):
        nb.set_printoptions(**options)
    assert (printing.PRECISION, printing.THRESHOLD, printing.EDGE_ITEMS,
            printing.LINE_WIDTH) == before


def _suffix_cases(rng):
    """Rows of every width from well inside to well past the line, and a few shapes."""
    cases = []
    for width in range(1, 12):
        for rows in (1, 3):
            cases.append((rng.standard_normal((rows, width)) * 10 ** rng.integers(0, 4)))
            cases.append(rng.standard_normal(width))
    return cases


def test_the_grad_fn_and_requires_grad_suffixes_break_lines_where_pytorchs_do():
    # float32 has no dtype= suffix, so both texts are the same up to the line breaks
    torch = pytest.importorskip("torch")
    for data in _suffix_cases(np.random.default_rng(5)):
        data = data.astype(np.float32)
        x, t = nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        assert repr(x) == repr(t)
        assert repr(x * 2) == repr(t * 2)


def test_a_dtype_suffix_breaks_its_line_where_pytorchs_would_for_its_length():
    # "dtype=nnbook.float64" is one character longer than "dtype=torch.float64", so the
    # text breaks as PyTorch's does on a line one character shorter (for rows that fit)
    torch = pytest.importorskip("torch")

    def at(width, t):
        torch.set_printoptions(linewidth=width)
        return repr(t)

    checked = 0
    for data in _suffix_cases(np.random.default_rng(6)):
        for dtype in (np.float64, np.int32):
            values = data.astype(dtype)
            x, t = nb.tensor(values, requires_grad=dtype == np.float64), \
                torch.tensor(values, requires_grad=dtype == np.float64)
            pairs = [(x, t)] + ([(x * 2, t * 2)] if dtype == np.float64 else [])
            for ours, theirs in pairs:
                if max(map(len, at(80, theirs.detach()).splitlines())) > 78:
                    continue  # its rows would wrap differently on a line of 79
                checked += 1
                assert repr(ours) == \
                    at(79, theirs).replace("torch.", "nnbook."), repr(ours)
    assert checked > 40
