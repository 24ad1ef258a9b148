#!/usr/bin/env python3
"""Normalise notebooks so that re-executing them gives byte-identical files.

    python3 tools/normalize_notebooks.py [PATH ...]            # normalise in place
    python3 tools/normalize_notebooks.py --check [PATH ...]    # exit 1 naming those that aren't
    python3 tools/normalize_notebooks.py --execute [PATH ...]  # re-run (nbclient), normalise

PATH is a notebook or a folder of them (default: notebooks/). Normalising and checking use
only the standard library; --execute needs nbformat, nbclient and ipykernel (the `test`
extra) and runs the kernel of the Python that runs this script. `python3 dev.py notebooks`
is --execute on notebooks/ from the project's .venv.

What normalising does, and why:
- per-cell metadata keeps only tags (and the few display flags JupyterLab stores); execution
  timings and the like go: they change on every run.
- notebook metadata keeps a fixed kernelspec (python3) and language_info without the Python
  version; saved widget state goes (random model ids, embedded PNGs).
- `application/vnd.jupyter.widget-view+json` outputs go (random model ids); their static
  fallbacks (`text/plain`, `image/png`) stay, so GitHub and a terminal still show something,
  and the output's metadata says `{"nnbook": {"live_widget": true}}`, so the browser tests
  know that a live widget belongs there.
- execution counts become 1..n in order; consecutive stream outputs of one name merge.
- error outputs keep `ename: evalue` as their traceback: a full traceback holds absolute
  paths of this machine (and nbval never compares it).
- text is passed through the regex/replace pairs of notebooks/sanitize.cfg, the file strict
  nbval uses, so a volatile string is handled the same way by both.
- JSON is written as nbformat writes it (indent 1, sorted keys, lines split, trailing newline),
  as nbformat 4.5 with cell ids (missing or duplicate ids are replaced by stable ones).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "notebooks"
SANITIZE_FILE = DEFAULT_DIR / "sanitize.cfg"
FIX_HINT = "python3 dev.py notebooks"

NBFORMAT, NBFORMAT_MINOR = 4, 5
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
NOTEBOOK_METADATA_KEPT = ("title", "authors")
CELL_METADATA_KEPT = ("tags", "jupyter", "slideshow", "editable", "deletable")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_WIDGET_KEY = "nnbook"  # output metadata: {"nnbook": {"live_widget": true}}
CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


# ---------------------------------------------------------------------------
# Sanitising (the same file and format as `pytest --nbval-sanitize-with`)
# ---------------------------------------------------------------------------

def load_sanitize_patterns(path: Path = SANITIZE_FILE) -> list[tuple[str, str]]:
    """Read `regex: ...` / `replace: ...` line pairs, exactly as nbval parses them."""
    if not path.exists():
        return []
    return re.findall(r"^regex: (.*)$\n^replace: (.*)$", path.read_text(), flags=re.MULTILINE)


def _sanitize(text: str, patterns) -> str:
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


# ---------------------------------------------------------------------------
# Normalising a notebook held as plain JSON data
# ---------------------------------------------------------------------------

def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def _normalize_outputs(outputs: list, execution_count, patterns) -> list:
    result = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            text = _sanitize(_joined(output.get("text", "")), patterns)
            if result and result[-1]["output_type"] == "stream" \
                    and result[-1]["name"] == output["name"]:
                result[-1]["text"] += text
            else:
                result.append({"output_type": "stream", "name": output["name"], "text": text})
        elif kind in ("display_data", "execute_result"):
            data = {}
            for mime, value in output.get("data", {}).items():
                if mime == WIDGET_VIEW:
                    continue
                value = _joined(value) if not isinstance(value, dict) else value
                data[mime] = _sanitize(value, patterns) if mime.startswith("text/") else value
            if not data:  # it was only a live widget: nothing to show without a front end
                continue
            metadata = {mime: meta for mime, meta in output.get("metadata", {}).items()
                        if mime in data}
            if WIDGET_VIEW in output.get("data", {}) or \
                    output.get("metadata", {}).get(LIVE_WIDGET_KEY, {}).get("live_widget"):
                metadata[LIVE_WIDGET_KEY] = {"live_widget": True}
            new = {"output_type": kind, "data": data, "metadata": metadata}
            if kind == "execute_result":
                new["execution_count"] = execution_count
            result.append(new)
        elif kind == "error":
            ename = _sanitize(output.get("ename", ""), patterns)
            evalue = _sanitize(output.get("evalue", ""), patterns)
            result.append({"output_type": "error", "ename": ename, "evalue": evalue,
                           "traceback": [f"{ename}: {evalue}" if evalue else ename]})
        else:
            raise ValueError(f"unknown output type {kind!r}")
    return result


def normalize(nb: dict, patterns=None) -> dict:
    """Return a normalised copy of a notebook given as JSON data (nbformat 4)."""
    if patterns is None:
        patterns = load_sanitize_patterns()
    if nb.get("nbformat") != NBFORMAT:
        raise ValueError(f"only nbformat {NBFORMAT} notebooks are supported, "
                         f"got nbformat {nb.get('nbformat')}")
    metadata = {"kernelspec": dict(KERNELSPEC),
                "language_info": json.loads(json.dumps(LANGUAGE_INFO))}
    for key in NOTEBOOK_METADATA_KEPT:
        if key in nb.get("metadata", {}):
            metadata[key] = nb["metadata"][key]

    cells, seen_ids, count = [], set(), 0
    for index, cell in enumerate(nb.get("cells", [])):
        kind = cell["cell_type"]
        source = _joined(cell.get("source", ""))
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not CELL_ID.match(cell_id) or cell_id in seen_ids:
            cell_id = f"cell-{index}"
            while cell_id in seen_ids:
                cell_id += "x"
        seen_ids.add(cell_id)
        meta = {key: cell["metadata"][key] for key in CELL_METADATA_KEPT
                if key in cell.get("metadata", {})}
        if not meta.get("tags", True):
            del meta["tags"]
        new = {"cell_type": kind, "id": cell_id, "metadata": meta, "source": source}
        if kind == "code":
            outputs = cell.get("outputs", [])
            if source.strip() or outputs:  # nbclient does not run an empty cell
                count += 1
                new["execution_count"] = count
            else:
                new["execution_count"] = None
            new["outputs"] = _normalize_outputs(outputs, new["execution_count"], patterns)
        elif "attachments" in cell:
            new["attachments"] = cell["attachments"]
        cells.append(new)
    return {"cells": cells, "metadata": metadata,
            "nbformat": NBFORMAT, "nbformat_minor": NBFORMAT_MINOR}


def _split(text: str) -> list:
    return text.splitlines(True)


def dumps(nb: dict) -> str:
    """Serialise as nbformat.writes does: lines split, indent 1, sorted keys, final newline."""
    nb = json.loads(json.dumps(nb))  # a deep copy we may change
    for cell in nb["cells"]:
        cell["source"] = _split(_joined(cell["source"]))
        for bundle in cell.get("attachments", {}).values():
            _split_bundle(bundle)
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                output["text"] = _split(_joined(output["text"]))
            elif output["output_type"] in ("display_data", "execute_result"):
                _split_bundle(output["data"])
    text = json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False)
    return text + "\n"


def _split_bundle(data: dict) -> None:
    for mime, value in data.items():
        if isinstance(value, str) and (mime.startswith("text/") or
                                       mime in ("application/javascript", "image/svg+xml")):
            data[mime] = _split(value)


def normalized_text(text: str, patterns=None) -> str:
    """The normalised file contents for the contents of a notebook file."""
    return dumps(normalize(json.loads(text), patterns))


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

def find_notebooks(paths) -> list[Path]:
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        elif path.suffix == ".ipynb" and path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"{path} is neither a notebook nor a folder")
    return found


def not_normalized(paths, patterns=None) -> list[Path]:
    """The notebooks among `paths` whose files are not exactly as normalising would write them."""
    patterns = load_sanitize_patterns() if patterns is None else patterns
    def stale(p):
        text = p.read_text(encoding="utf-8")
        return text != normalized_text(text, patterns)
    return [p for p in find_notebooks(paths) if stale(p)]


def normalize_file(path: Path, patterns=None) -> bool:
    """Normalise one notebook in place; return True if the file changed."""
    old = path.read_text(encoding="utf-8")
    new = normalized_text(old, patterns)
    if new != old:
        path.write_text(new, encoding="utf-8", newline="\n")
    return new != old


def execute_file(path: Path, timeout: int = 600) -> None:
    """Run every cell with nbclient in a kernel of this Python (cells tagged
    `raises-exception` may raise; any other error stops with the cell's traceback)."""
    import ipykernel.kernelspec
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    class ThisPython(KernelSpecManager):
        """'python3' is the ipykernel of the interpreter running this script (as nbval's
        --nbval-current-env does), not whichever kernelspec comes first on the path."""

        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    nb = nbformat.read(path, as_version=4)
    km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                            record_timing=False, store_widget_state=False,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute(cleanup_kc=True)  # stop the kernel now (a km given is not stopped)
    path.write_text(nbformat.writes(nb), encoding="utf-8", newline="\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(DEFAULT_DIR)],
                        help="notebooks or folders (default: notebooks/)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="change nothing; exit 1 listing the notebooks that are not normalised")
    mode.add_argument("--execute", action="store_true",
                      help="re-execute each notebook with nbclient, then normalise it")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds one cell may run when executing (default 600)")
    args = parser.parse_args(argv)
    patterns = load_sanitize_patterns()
    notebooks = find_notebooks(args.paths)

    if args.check:
        bad = not_normalized(notebooks, patterns)
        for path in bad:
            print(f"not normalised: {_show(path)}")
        if bad:
            print(f"fix: {FIX_HINT}  (re-executes and normalises every notebook)")
            return 1
        print(f"{len(notebooks)} notebook(s) normalised")
        return 0

    failed = []
    for path in notebooks:
        before = path.read_bytes()
        if args.execute:
            print(f"executing   {_show(path)}", flush=True)
            try:
                execute_file(path, args.timeout)
            except Exception as error:  # nbclient's CellExecutionError, a timeout, a dead kernel
                print(f"FAILED      {_show(path)} (left unchanged):\n{error}", flush=True)
                failed.append(path)
                continue
        normalize_file(path, patterns)
        changed = path.read_bytes() != before
        print(f"normalised  {_show(path)}" + ("  (changed)" if changed else "  (unchanged)"),
              flush=True)
    if failed:
        print("these notebooks did not run to the end: " + ", ".join(map(_show, failed)))
        print("hint: a cell that is meant to raise needs the cell tag `raises-exception`.")
        return 1
    return 0


def _show(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
