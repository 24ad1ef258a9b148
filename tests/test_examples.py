"""examples/quickstart.py is the README's example: it must stay in the README and keep working."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "quickstart.py"


def test_readme_shows_the_example_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```python\n{EXAMPLE.read_text(encoding='utf-8')}```" in readme, (
        "README.md's training example and examples/quickstart.py differ: keep them identical")


def test_quickstart_trains_to_a_small_loss():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run([sys.executable, str(EXAMPLE)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    found = re.fullmatch(r"loss (\S+), training accuracy (\d+)%\n", out.stdout)
    assert found, f"unexpected output: {out.stdout!r}"
    loss, accuracy = float(found.group(1)), int(found.group(2))
    assert loss < 0.05 and accuracy >= 98, out.stdout
