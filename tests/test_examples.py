"""examples/fit_line.py is the README's example: it must stay in the README and keep working."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "fit_line.py"


def test_readme_shows_the_example_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```python\n{EXAMPLE.read_text(encoding='utf-8')}```" in readme, (
        "README.md's training example and examples/fit_line.py differ: keep them identical")


def test_fit_line_trains_to_a_small_loss():
    out = subprocess.run([sys.executable, str(EXAMPLE)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    found = re.fullmatch(r"w = (\S+), b = (\S+), loss = (\S+)\n", out.stdout)
    assert found, f"unexpected output: {out.stdout!r}"
    w, b, loss = map(float, found.groups())
    assert abs(w - 3) < 1e-2 and abs(b - 2) < 1e-2 and loss < 1e-4, out.stdout
