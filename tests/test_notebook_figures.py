"""The notebooks' own matplotlib figures read on a projector, as the widgets' pictures do
(tests/widgets/test_projector.py; the rule is in tests/projector.py).

Each notebook that draws runs in a kernel of this Python, with one cell put in front that
wraps the inline backend's PNG maker: every figure a cell shows is drawn while the texts
are recorded and judged against the PNG the notebook gets (cropped to its content, as
Jupyter shows it). One cell put at the end prints what was found. The notebook file is not
changed. Widgets are not judged here: they draw their PNGs themselves, and their test
checks them in many more views.
"""
import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DRAWING = [p for p in NOTEBOOKS if "matplotlib" in p.read_text(encoding="utf-8")]
MARK = "nnbook-figure-report:"

INSTALL = f"""
import base64, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import projector
import matplotlib_inline.backend_inline  # registers the PNG maker for figures
from matplotlib.figure import Figure
_shell = get_ipython()
_png = _shell.display_formatter.formatters["image/png"]
_made, _figures, _cell = _png.lookup_by_type(Figure), [], [""]
_shell.events.register("pre_run_cell", lambda info: _cell.__setitem__(0, info.raw_cell))

def _judged(fig, *args, **kwargs):
    with projector.drawn_texts() as drawn:
        data = _made(fig, *args, **kwargs)
    png = data[0] if isinstance(data, tuple) else data
    png = base64.b64decode(png) if isinstance(png, str) else png
    _figures.append({{"cell": _cell[0].strip().splitlines()[0],
                     "problems": projector.problems(drawn, png)}})
    return data

_png.for_type(Figure, _judged)
"""
REPORT = f"import json; print({MARK!r}, json.dumps(_figures))"


def figures_of(path: Path) -> list:
    """[{cell: its first line, problems: [...]}, ...] for each figure the notebook shows."""
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(INSTALL))
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    client = nbclient.NotebookClient(nb, km=km, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(cleanup_kc=True)   # the kernel is ours to stop: km was given
    (line,) = [o["text"] for o in nb.cells[-1].outputs if o.get("name") == "stdout"]
    return json.loads(line.split(MARK, 1)[1])


def test_the_notebooks_that_draw_are_found():
    names = [p.name[:2] for p in DRAWING]
    assert {"01", "02", "06", "09", "12"} <= set(names)


@pytest.mark.parametrize("path", DRAWING, ids=[p.name for p in DRAWING])
def test_every_figure_of_the_notebook_reads_on_a_projector(path):
    figures = figures_of(path)
    assert figures, f"{path.name} imports matplotlib but showed no figure"
    found = [f"cell '{f['cell']}': {problem}" for f in figures for problem in f["problems"]]
    assert not found, f"{path.name}:\n" + "\n".join(found)
