"""nnbook.widgets without the widgets extra: a clear ImportError naming the extra."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_missing_extra_names_what_to_install():
    # Pretend ipywidgets is not installed: a None entry in sys.modules makes its import fail.
    code = ("import sys; sys.modules['ipywidgets'] = None; sys.path.insert(0, %r)\n"
            "try:\n    import nnbook.widgets\nexcept ImportError as err:\n    print(err)\n"
            "else:\n    print('imported')" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "nnbook.widgets needs the 'widgets' extra" in out.stdout
    assert 'pip install "nnbook[widgets]"' in out.stdout


def test_core_works_without_widgets():
    code = ("import sys; sys.modules['ipywidgets'] = None; sys.modules['matplotlib'] = None\n"
            "sys.path.insert(0, %r)\nimport nnbook as nb\n"
            "print(nb.infer_shapes(nb.nn.Linear(3, 2), (4, 3)).output_shape)" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(4, 2)"
