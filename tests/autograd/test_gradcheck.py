"""nnbook.gradcheck_report: what its table shows for errors that are only rounding."""
import nnbook as nb


def linear_inputs(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    w = nb.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    return x, w


def rows(report) -> dict:
    """input name -> (shown max |error|, result) from the report's text table."""
    lines = str(report).splitlines()
    start = next(i for i, line in enumerate(lines) if "max |error|" in line) + 1
    table = {}
    for line in lines[start:]:
        if line.strip().startswith("(eps="):
            break
        name, rest = line.split(maxsplit=1)
        shown, result = rest.split(")", 1)[1].rsplit(None, 1)
        table[name] = (shown.strip(), result)
    return table


def test_an_error_far_below_the_tolerance_is_shown_as_its_bound(rng):
    """Finite-difference noise (here ~1e-10, through BLAS) differs from CPU to CPU."""
    report = nb.gradcheck_report(lambda x, w: (x @ w.T).tanh(), linear_inputs(rng))
    assert report.passed
    assert all(0 < c.max_abs_error < 1e-6 for c in report.inputs)  # the value is kept
    assert rows(report) == {"x": ("< 1e-06", "ok"), "w": ("< 1e-06", "ok")}
    assert "<td>&lt; 1e-06</td>" in report._repr_html_()


def test_the_bound_follows_atol_and_larger_errors_keep_their_digits(rng):
    inputs = linear_inputs(rng)
    report = nb.gradcheck_report(lambda x, w: (x @ w.T).tanh(), inputs, atol=1e-3)
    assert rows(report)["x"] == ("< 0.0001", "ok")
    strict = nb.gradcheck_report(lambda x, w: (x @ w.T).tanh(), inputs, atol=1e-14)
    assert strict.passed  # rtol still lets the noise through, but it is no longer far below
    x = strict.inputs[0]
    assert rows(strict)["x"] == (f"{x.max_abs_error:.3g}", "ok")


def test_a_wrong_gradient_shows_its_error(rng):
    class Doubled(nb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, grad_output):  # wrong on purpose: forgets the input
            return 2 * grad_output

    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    report = nb.gradcheck_report(Doubled.apply, (x,))
    (check,) = report.inputs
    assert not report.passed and check.max_abs_error > 0.1
    assert rows(report) == {"x": (f"{check.max_abs_error:.3g}", "WRONG")}


def test_the_text_report_diagnoses_every_wrong_input_not_only_the_first(rng):
    class Swapped(nb.autograd.Function):
        # z = 2x + y, with the two local derivatives returned the wrong way round
        @staticmethod
        def forward(ctx, x, y):
            return 2 * x + y

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, 2 * grad_output

    x = nb.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    y = nb.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    report = nb.gradcheck_report(Swapped.apply, (x, y))
    (_, wrong_y) = report.failures()
    assert wrong_y.name == "y" and wrong_y.diagnosis
    text = str(report)
    assert f"also wrong, 'y': {wrong_y.diagnosis}" in text
    assert report.failures()[0].diagnosis in report.summary()
    assert rows(report) == {
        "x": (rows(report)["x"][0], "WRONG"),
        "y": (rows(report)["y"][0], "WRONG"),
    }
