"""Exercises with automatic checks (notebooks/13_exercises.ipynb).

    from nnbook.exercises import check
    check("swish", Swish)        # your class: a Function, a Module with bprop, or a layer

A check runs your code on small, odd, non-square float64 inputs; compares the
forward with a hidden reference solution; lets nnbook's contract checks look at
what your backward returns; and compares every gradient with numerical
derivatives (what ``nb.gradcheck`` does, extended to a layer's parameters).
The result lists what works (✓), what does not (✗), what is not written yet
(…) and the next step.  For your own code, without a reference solution:

    check_function(MyFn, x, y)                        # an nb.autograd.Function subclass
    check_bprop(MyModule, x, y)                       # a Module (class or instance) with bprop
    check_layer(MyLayer, 7, 5, input_shape=(3, 7))    # a layer class and its arguments
    check_values(my_fn, x, expected=reference_fn)     # a plain function of nnbook ops

Notebooks 03 to 09 ask for predictions before a cell runs; ``check`` grades them too
(``check("sigmoid-neuron", my_dL_db)``, see PREDICTIONS) against values it computes.

``import nnbook`` does not load this module; the solutions live in
``nnbook/exercises/_solutions.py`` and are loaded only by ``check``.
"""
from .catalogue import EXERCISES, Exercise, Summary, check, check_solutions
from .general import check_bprop, check_function, check_layer, check_values

# ATOL..SEED and the marks FAIL..UNFINISHED are not in __all__, but importable from here as
# before (the tests use the marks).
from .harness import ATOL, EPS, RTOL, SEED
from .notebook_predictions import PREDICTIONS
from .predictions import Prediction, PredictionResult
from .results import FAIL, PASS, SKIP, UNFINISHED, CheckResult, Line

__all__ = ["CheckResult", "EXERCISES", "Exercise", "Line", "PREDICTIONS", "Prediction",
           "PredictionResult", "Summary", "check",
           "check_bprop", "check_function", "check_layer", "check_solutions",
           "check_values"]
