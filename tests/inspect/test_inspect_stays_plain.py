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


def test_no_colour_is_defined_in_the_parameter_report_modules():
    for name in ("params.py", "param_flags.py", "flow.py", "values.py"):
        assert not re.search(r"#[0-9a-fA-F]{6}\b", (INSPECT / name).read_text()), name


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
