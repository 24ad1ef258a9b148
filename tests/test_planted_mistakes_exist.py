"""tools/plant_mistakes.py plants each of its mistakes by replacing one snippet of the
library; a snippet that the code no longer contains would plant nothing, and the tool would
stop at it.  Every snippet must occur exactly once, so the list keeps up with the code."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_tool():
    spec = importlib.util.spec_from_file_location("plant_mistakes",
                                                  ROOT / "tools" / "plant_mistakes.py")
    tool = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tool  # its dataclass looks itself up there
    spec.loader.exec_module(tool)
    return tool


def test_every_planted_mistake_finds_its_snippet_once():
    tool = load_tool()
    assert len(tool.MISTAKES) >= 30
    counts = {m.name: tool.snippet_count(m) for m in tool.MISTAKES}
    assert {name: n for name, n in counts.items() if n != 1} == {}


def test_the_planted_code_differs_from_the_snippet_and_names_are_unique():
    tool = load_tool()
    assert all(m.planted != m.snippet for m in tool.MISTAKES)
    names = [m.name for m in tool.MISTAKES]
    assert len(names) == len(set(names))
