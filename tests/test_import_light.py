"""`import nnbook` loads numpy and nothing heavy (ARCHITECTURE.md): checked in a fresh
interpreter."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("matplotlib", "ipywidgets", "IPython", "torch")


def test_import_nnbook_loads_numpy_but_nothing_heavy():
    code = "import json, sys, nnbook; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    top_level = {name.split(".")[0] for name in json.loads(out.stdout)}
    assert "numpy" in top_level
    loaded = [name for name in HEAVY if name in top_level]
    assert not loaded, (f"`import nnbook` imported {loaded}; import them only inside the "
                        f"modules that need them (e.g. nnbook.widgets)")
