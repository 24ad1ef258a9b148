"""The ParameterReport as an HTML table (ParameterExplorer's caption): a tree of modules,
problems tinted and in red, a legend, in the one palette of nnbook's views."""
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("ipywidgets")

from shared import Cell  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.inspect.param_flags import FLAGS  # noqa: E402
from nnbook.widgets import palette  # noqa: E402
from nnbook.widgets.params_table import report_html  # noqa: E402


def stray_optimizer_report():
    nb.manual_seed(0)
    strays = [nn.Parameter(nb.randn(6, 6, 3, 3)), nn.Parameter(nb.randn(3, 6, 1, 1))]
    model = Cell()
    return nb.inspect.parameter_report(model, nb.optim.Adam(strays, lr=0.01))


def test_the_table_is_a_tree_with_problems_in_red_and_a_legend():
    page = report_html(stray_optimizer_report())
    assert "conv1 <span" in page and "(Conv2d)" in page
    assert "held by the optimizer only (not in Cell)" in page
    assert page.count("✘ no") == 4
    assert palette.PROBLEM_TINT in page and palette.PROBLEM_COLOR in page
    assert all(meaning in page for _, meaning in FLAGS.values())


def test_a_healthy_model_says_so_in_the_table():
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
    optimizer = nb.optim.SGD(model.parameters(), lr=0.1)
    model(nb.randn(7, 3)).sum().backward()
    page = report_html(nb.inspect.parameter_report(model, optimizer))
    assert "✔ every parameter is in the optimizer and got a gradient" in page
    assert "✘ no" not in page and palette.PROBLEM_TINT not in page


def test_the_explorer_shows_the_table_above_its_picture():
    from nnbook.widgets import ParameterExplorer

    explorer = ParameterExplorer(Cell())
    assert explorer.caption.value == report_html(explorer.report)
