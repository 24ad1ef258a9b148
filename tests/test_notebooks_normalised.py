"""Committed notebooks are normalised (tools/normalize_notebooks.py), and the normaliser works."""
import difflib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_spec = importlib.util.spec_from_file_location(
    "normalize_notebooks", ROOT / "tools" / "normalize_notebooks.py")
normalizer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(normalizer)


def test_there_are_notebooks():
    assert any(p.name == "00_welcome.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebook_is_normalised(path):
    text = path.read_text(encoding="utf-8")
    expected = normalizer.normalized_text(text)
    if text != expected:
        diff = "".join(list(difflib.unified_diff(
            text.splitlines(True), expected.splitlines(True),
            "committed", "normalised", n=1))[:40])
        pytest.fail(f"notebooks/{path.name} is not normalised (re-executing it would change "
                    f"the file).\n  fix: python3 dev.py notebooks   (re-executes and "
                    f"normalises every notebook)\n{diff}", pytrace=False)


# ---------------------------------------------------------------------------
# The normaliser itself, on a notebook as JupyterLab and nbclient leave it
# ---------------------------------------------------------------------------

TIMING = {"execution": {"iopub.status.busy": "2026-01-01T00:00:00.1Z",
                        "shell.execute_reply": "2026-01-01T00:00:00.2Z"}}
WIDGET = {"model_id": "e417d11efecf405da26ad563a6e3d701", "version_major": 2,
          "version_minor": 0}


def messy_notebook():
    return {
        "nbformat": 4, "nbformat_minor": 4,
        "metadata": {
            "kernelspec": {"name": "nnbook-venv", "display_name": "x", "language": "python"},
            "language_info": {"name": "python", "version": "3.11.7"},
            "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}},
            "title": "kept",
        },
        "cells": [
            {"cell_type": "markdown", "metadata": {"collapsed": True},
             "source": ["# Hi\n", "there"]},
            {"cell_type": "code", "execution_count": 7, "metadata": dict(TIMING, scrolled=True),
             "source": "print(1)\nprint(2)",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                         {"output_type": "stream", "name": "stdout", "text": "2\n"}]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "source": "",
             "outputs": []},
            {"cell_type": "code", "execution_count": 3, "metadata": {"tags": []},
             "source": "slider",
             "outputs": [{"output_type": "execute_result", "execution_count": 3,
                          "metadata": {}, "data": {
                              "application/vnd.jupyter.widget-view+json": WIDGET,
                              "text/plain": "Slider(value=1)",
                              "image/png": "iVBORw0KGgo=\n"}},
                         {"output_type": "display_data", "metadata": {},
                          "data": {"application/vnd.jupyter.widget-view+json": WIDGET}}]},
            {"cell_type": "code", "execution_count": 9,
             "metadata": {"tags": ["raises-exception"]}, "source": "boom()",
             "outputs": [{"output_type": "error", "ename": "ShapeError",
                          "evalue": 'bad shape at "/tmp/ipykernel_4242/1197938599.py", line 1',
                          "traceback": ["\u001b[31m----\u001b[39m", "/home/me/nnbook/x.py"]}]},
        ],
    }


def test_normalise_drops_volatile_parts_and_keeps_fallbacks():
    nb = normalizer.normalize(messy_notebook())
    assert nb["nbformat_minor"] == 5
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert "widgets" not in nb["metadata"] and "version" not in nb["metadata"]["language_info"]
    assert nb["metadata"]["title"] == "kept"
    markdown, printed, empty, widget, error = nb["cells"]
    assert markdown["metadata"] == {} and markdown["source"] == "# Hi\nthere"
    assert printed["metadata"] == {} and printed["execution_count"] == 1
    assert printed["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "1\n2\n"}]
    assert empty["execution_count"] is None
    assert widget["execution_count"] == 2 and widget["metadata"] == {}
    assert widget["outputs"] == [{"output_type": "execute_result", "execution_count": 2,
                                  "metadata": {"nnbook": {"live_widget": True}},
                                  "data": {"text/plain": "Slider(value=1)",
                                                           "image/png": "iVBORw0KGgo=\n"}}]
    assert error["metadata"] == {"tags": ["raises-exception"]}
    assert error["outputs"][0]["evalue"] == 'bad shape at "<notebook cell>", line 1'
    assert error["outputs"][0]["traceback"] == [
        'ShapeError: bad shape at "<notebook cell>", line 1']
    assert len({cell["id"] for cell in nb["cells"]}) == 5


def test_normalised_text_is_stable_and_written_as_nbformat_writes_it():
    nbformat = pytest.importorskip("nbformat")
    text = normalizer.normalized_text(json.dumps(messy_notebook()))
    assert normalizer.normalized_text(text) == text
    node = nbformat.reads(text, as_version=4)
    nbformat.validate(node)
    assert nbformat.writes(node) + "\n" == text


def test_check_mode_names_the_notebook_and_the_fix(tmp_path, capsys):
    messy = tmp_path / "messy.ipynb"
    messy.write_text(json.dumps(messy_notebook()))
    assert normalizer.main(["--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "messy.ipynb" in out and "python3 dev.py notebooks" in out
    assert normalizer.main([str(messy)]) == 0
    assert normalizer.main(["--check", str(messy)]) == 0
