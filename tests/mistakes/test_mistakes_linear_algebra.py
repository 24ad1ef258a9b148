"""Mistakes with matrices: inverting a singular one, the determinant of a data matrix that
is not square, a Cholesky factor of a matrix that is not positive definite, a right-hand
side with the wrong number of rows, integer matrices.

Each entry: the state a student has (setup), the line that goes wrong (act), the nnbook
error, where it says it happened, what it says was expected and came, and where its hint
points.  ``catalogue.check`` also requires the user's line and an unchanged state.
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook.errors import DimError, DTypeError, InputError, ShapeError

MISTAKES = [
    mistake("the inverse of a matrix with two equal rows",
            lambda: nb.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True),
            lambda a: nb.linalg.inv(a),
            InputError, "linalg_inv", r"singular .* no inverse", r"nb\.linalg\.lstsq"),
    mistake("solving with a singular matrix", lambda: (nb.ones(3, 3), nb.randn(3, 2)),
            lambda ab: nb.linalg.solve(*ab),
            InputError, "linalg_solve", r"singular", r"rows are independent"),
    mistake("the determinant of a data matrix (samples, features)", lambda: nb.randn(7, 5),
            lambda x: x.det(),
            ShapeError, "linalg_det", r"square matrices .* \(7, 5\)", r"nb\.linalg\.pinv"),
    mistake("a Cholesky factor of a matrix that is not positive definite",
            lambda: nb.tensor([[1.0, 2.0], [2.0, 1.0]]), lambda a: nb.linalg.cholesky(a),
            InputError, "linalg_cholesky", r"not positive definite", r"eigvalsh"),
    mistake("solve with the right-hand side transposed", lambda: (nb.randn(5, 5),
                                                                  nb.randn(2, 5)),
            lambda ab: nb.linalg.solve(*ab),
            ShapeError, "linalg_solve", r"B needs 5 rows, got B of shape \(2, 5\)",
            r"\(\.\.\., n, k\)"),
    mistake("the inverse of an integer matrix", lambda: nb.tensor([[2, 1], [1, 1]]),
            lambda a: a.inverse(),
            DTypeError, "linalg_inv", r"floating point matrices, got int64", r"A\.double\(\)"),
    mistake("the cross product of two numbers", lambda: (nb.tensor(2.0), nb.tensor(3.0)),
            lambda ab: nb.linalg.cross(*ab),
            DimError, "Tensor.cross", r"along dim -1, and a 0-d tensor has no dimensions",
            r"nb\.tensor\(\[x, y, z\]\)"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
