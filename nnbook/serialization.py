"""nb.save / nb.load: state dicts as ``.npz`` files, never pickle.

A pickle can run any code when it is loaded, so a checkpoint from the internet
could do anything to the student's machine.  An ``.npz`` file is a zip of
plain ``.npy`` arrays; ``np.load(..., allow_pickle=False)`` reads only numbers.

Nested dicts (an optimizer's state dict) are stored flat, their keys joined by
``/`` (``state/0/momentum_buffer``), and ``nb.load`` nests them again.  Model
paths use ``.`` and never ``/``, so a model's state dict stays flat.
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from .errors import CheckpointError, fmt_shape, message
from .tensor import Tensor, _wrap

SEP = "/"  # joins the keys of nested dicts; reserved, so no key may contain it


def save(obj, f) -> None:
    """Write a state dict (str -> Tensor, array or number; dicts may nest) to ``f``.

    The file is written at exactly the path given, whatever its extension.

    >>> nb.save(model.state_dict(), "model.npz")
    """
    if not isinstance(obj, dict):
        raise CheckpointError(message(
            f"nb.save stores a state dict (a dict of name -> tensor), got "
            f"{type(obj).__name__}.", where="nb.save",
            hint="save model.state_dict() (and optimizer.state_dict()), not the model "
            "itself: rebuild the model in code and load the values into it."))
    import zipfile

    arrays = {}
    _flatten(obj, "", arrays)
    try:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for key, array in arrays.items():
                with zf.open(key + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    except OSError as err:
        raise CheckpointError(message(
            f"cannot write {f!r}: {err.strerror or err}.", where="nb.save",
            hint="check that the folder exists and can be written.")) from None


def _flatten(obj: dict, prefix: str, out: dict) -> None:
    for key, value in obj.items():
        name = str(key)
        if not name or SEP in name:
            raise CheckpointError(message(
                f"the key {prefix + name!r} is empty or contains '{SEP}', which nb.save "
                "uses to store nested dicts.", where="nb.save",
                hint=f"rename the key without '{SEP}'."))
        path = prefix + name
        if isinstance(value, (list, tuple)) and any(isinstance(v, dict) for v in value):
            value = {str(i): v for i, v in enumerate(value)}  # param_groups: a list of dicts
        if isinstance(value, dict):
            _flatten(value, path + SEP, out)
        else:
            out[path] = _to_array(path, value)


def _to_array(key: str, value) -> np.ndarray:
    if isinstance(value, Tensor):
        array = value._array
    elif isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, (numbers.Number, np.generic, bool)) or (
            isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number)
                                                     for v in value)):
        array = np.asarray(value)
    else:
        array = None
    if array is None or array.dtype.kind not in "biufc":
        what = type(value).__name__ if array is None else f"an array of dtype {array.dtype}"
        raise CheckpointError(message(
            f"cannot store '{key}': it is {what}, and nb.save keeps only numbers "
            "(pickle is never used).", where="nb.save",
            values=f"{key}: {value!r:.60}",
            hint="store Tensors, numeric arrays or numbers; leave other objects out of "
            "the dict (or store them with your own code)."))
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def load(f) -> dict:
    """Read a checkpoint written by ``nb.save``: a dict of name -> Tensor (nested dicts
    come back nested, with string keys).  Pickled data is refused."""
    import zipfile

    where = "nb.load"
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise CheckpointError(message(
            f"there is no file {os.fspath(f)!r}.", where=where,
            hint=f"check the path (the current folder is {os.getcwd()!r})."))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            magic = handle.read(6)
        if magic[:1] == b"\x80":  # the first byte of a pickle (protocol 2 and later)
            raise CheckpointError(message(
                f"{_name(f)} is a pickle, which nb.load never reads.", where=where,
                hint="a pickle can run any code when loaded. If you trust the file, load it "
                "with the library that wrote it and save its arrays with nb.save."))
        if magic[:4] != b"PK\x03\x04" and magic != b"\x93NUMPY":
            raise CheckpointError(message(
                f"{_name(f)} is not an .npz checkpoint (it starts with {magic!r}).",
                where=where, hint="nb.load reads files written by nb.save (or numpy.savez)."))
    try:
        archive = np.load(f, allow_pickle=False)
    except ValueError as err:  # numpy refuses a pickle without unpickling it
        raise CheckpointError(message(
            f"{_name(f)} holds pickled data, which nb.load never reads ({err}).",
            where=where, hint="a pickle can run any code when loaded. If you trust the "
            "file, load it with the library that wrote it and save its arrays with "
            "nb.save.")) from None
    except (OSError, EOFError, zipfile.BadZipFile) as err:
        raise CheckpointError(message(
            f"{_name(f)} is not an .npz checkpoint ({err}).", where=where,
            hint="nb.load reads files written by nb.save (or numpy.savez).")) from None
    if isinstance(archive, np.ndarray):
        raise CheckpointError(message(
            f"{_name(f)} is a single .npy array of shape {fmt_shape(archive.shape)}, not a "
            "checkpoint.", where=where,
            hint="load it with np.load; nb.load reads dicts written by nb.save."))
    with archive:
        members = archive.zip.namelist()
        strays = [m for m in members if not m.endswith(".npy")]
        if strays:
            torch_like = any(m.endswith("data.pkl") for m in strays)
            raise CheckpointError(message(
                f"{_name(f)} contains entries that are not arrays: "
                f"{', '.join(strays[:3])}{', ...' if len(strays) > 3 else ''}.",
                where=where,
                hint=("it looks like a PyTorch checkpoint (torch.save), which is a pickle; "
                      "load it with torch and save {k: v.numpy()} with nb.save."
                      if torch_like else "nb.load reads only files written by nb.save.")))
        flat = {}
        for key in archive.files:
            try:
                array = archive[key]
            except ValueError:
                raise CheckpointError(message(
                    f"the entry '{key}' of {_name(f)} is an object array, stored with "
                    "pickle; nb.load refuses it.", where=where,
                    hint="object arrays can run code when loaded. Save only numeric arrays "
                    "(nb.save does).")) from None
            flat[key] = _wrap(array)
    return _unflatten(flat)


def _unflatten(flat: dict) -> dict:
    out: dict = {}
    for key, value in flat.items():
        node = out
        *parents, last = key.split(SEP)
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _name(f) -> str:
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
