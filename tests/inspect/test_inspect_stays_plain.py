"""The inspect floor records what happened as plain data: no colours, no widgets, no
matplotlib; its reports show as text (and as that text in HTML)."""
import html
import re
import subprocess
import sys
from pathlib import Path

import nnbook as nb
from nnbook import nn

INSPECT = Path(nb.__file__).parent / "inspect"


def test_no_colour_or_html_style_is_written_in_the_inspect_floor():
    for path in sorted(INSPECT.glob("*.py")):
        text = path.read_text()
        assert not re.search(r"#[0-9a-fA-F]{6}\b|style=", text), path.name


def test_summaries_and_shape_traces_show_as_plain_tables():
    model = nn.Sequential(nn.Conv2d(3, 5, 3), nn.Flatten(), nn.Linear(7, 2))
    for record in (nb.summary(model, (2, 3, 9, 7)), nb.infer_shapes(model, (2, 3, 9, 7))):
        page = record._repr_html_()
        assert "<table>" in page and "<pre>" in page  # the table, then the error in full
        assert "2 (Linear): expects input with 7 features in its last dimension, got 175." \
            in page


def test_a_parameter_report_shows_in_a_notebook_as_its_text():
    model = nn.Sequential(nn.Linear(3, 5), nn.Linear(5, 2))
    report = nb.inspect.parameter_report(model)
    assert report._repr_html_() == f"<pre>{html.escape(str(report))}</pre>"
    assert "0.weight" in str(report) and "1.bias" in str(report)


def test_using_inspect_loads_no_drawing_library():
    code = ("import sys, nnbook as nb\n"
            "m = nb.nn.Sequential(nb.nn.Linear(3, 5), nb.nn.ReLU())\n"
            "print(nb.inspect.parameter_report(m)); nb.summary(m, (7, 3))\n"
            "from nnbook.inspect import flow, param_flags, values\n"
            "heavy = [n for n in ('matplotlib', 'ipywidgets', 'IPython', 'nnbook.widgets')"
            " if n in sys.modules]\n"
            "assert not heavy, heavy\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
