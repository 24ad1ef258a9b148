"""Mistakes with counting, binning, running maxima, differences, remainders and printing.

Each entry: the state a student has (setup), the line that goes wrong (act), the nnbook
error, where it says it happened, what it says was expected and came, and where its hint
points.  ``catalogue.check`` also requires the user's line and an unchanged state.
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook.errors import ArgumentError, DimError, DTypeError, InputError, ShapeError


def labels():
    """Class labels of a batch of 7, from -1 (a 'no label' marker) to 4."""
    return nb.tensor([2, 0, 4, -1, 1, 2, 3])


MISTAKES = [
    mistake("bincount of float predictions", lambda: nb.randn(7).abs(),
            lambda x: nb.bincount(x),
            DTypeError, "Tensor.bincount", r"counts integers, got float32", r"x\.long\(\)"),
    mistake("bincount of labels with a -1 marker", labels, lambda y: y.bincount(),
            InputError, "Tensor.bincount", r"non-negative integers, got the value -1",
            r"x - x\.min\(\)"),
    mistake("bincount of a batch of label rows", lambda: nb.randint(0, 5, (3, 7)),
            lambda y: y.bincount(),
            ShapeError, "Tensor.bincount", r"1-D .* got 2-D \(3, 7\)", r"x\.flatten\(\)"),
    mistake("histc of integer pixel values", lambda: nb.randint(0, 256, (4, 5)),
            lambda x: nb.histc(x, bins=16),
            DTypeError, "Tensor.histc", r"floating point values, got int64", r"x\.float\(\)"),
    mistake("a histogram of losses with an inf among them",
            lambda: nb.tensor([0.5, 1.5, float("inf")]), lambda x: x.histogram(5),
            InputError, "Tensor.histogram", r"range \[0\.5, inf\] is not finite",
            r"x\[x\.isfinite\(\)\]"),
    mistake("searchsorted of rows against one batch of sequences",
            lambda: (nb.arange(10).reshape(2, 5), nb.arange(3)),
            lambda sv: nb.searchsorted(*sv),
            ShapeError, "nb.searchsorted", r"sequence \(2, 5\) must be 1-D, or have the "
            r"leading dims of the values \(3,\)", r"sequence \(B, N\), values \(B, M\)"),
    mistake("diff of a 0-d loss", lambda: nb.tensor(0.5), lambda loss: loss.diff(),
            ShapeError, "Tensor.diff", r"at least one dimension, got a 0-d", r"one number"),
    mistake("diff with a number to prepend", lambda: nb.randn(5),
            lambda x: nb.diff(x, prepend=0.0),
            ShapeError, "Tensor.diff", r"must be tensors .* got 0\.0", r"x\[\.\.\., :1\]"),
    mistake("cummax along a dim the tensor lacks", lambda: nb.randn(3, 5),
            lambda x: x.cummax(2),
            DimError, "cummax", r"dim=2 is out of range .* 2 dimension", r"between -2 and 1"),
    mistake("fmod of integers by zero", lambda: nb.arange(5), lambda x: nb.fmod(x, 0),
            InputError, "fmod", r"integer division by zero", r"x\.float\(\)"),
    mistake("logaddexp of integer scores", lambda: nb.arange(5),
            lambda x: nb.logaddexp(x, x),
            DTypeError, "logaddexp", r"floating point operands, got int64",
            r"a\.float\(\)\.logaddexp"),
    mistake("nanmean of integer counts", lambda: nb.arange(5), lambda x: x.nanmean(),
            DTypeError, "nanmean", r"floating point tensor, got int64",
            r"x\.float\(\)\.nanmean\(\)"),
    mistake("a quantile asked in percent", lambda: nb.randn(7, 5),
            lambda x: x.quantile(90, dim=1),
            InputError, "Tensor.quantile", r"q must be in \[0, 1\], got \[90\.0\]",
            r"0\.5 is the median, not 50"),
    mistake("quantiles of integer marks", lambda: nb.randint(0, 100, (7,)),
            lambda marks: nb.quantile(marks, 0.5),
            DTypeError, "Tensor.quantile", r"floating point tensor, not int64",
            r"x\.double\(\)"),
    mistake("polygamma with x and n swapped", lambda: nb.rand(7) + 0.5,
            lambda x: nb.polygamma(x, 1),
            ArgumentError, "nb.polygamma", r"n first, then the tensor; got a tensor for n "
            r"and 1", r"swap them: nb\.polygamma\(1, x\)"),
    mistake("a gcd of float counts", lambda: nb.tensor([12.0, 18.0]),
            lambda x: nb.gcd(x, x[:1]),
            DTypeError, "gcd", r"integer tensors, not float32", r"x\.long\(\)"),
    mistake("an unknown print profile", None,
            lambda: nb.set_printoptions(profile="long"),
            InputError, "nb.set_printoptions", r"one of 'default', 'short', 'full', got "
            r"'long'", r"'full' prints every element"),
    mistake("randint_like without high", lambda: nb.zeros(3, 4),
            lambda x: nb.randint_like(x, low=2),
            ArgumentError, "nb.randint_like", r"needs high .* low=2, high=None",
            r"randint_like\(x, low=2, high=10\)"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
