"""nb.save / nb.load: state dicts as ``.npz`` files, never pickle.

A pickle can run any code when it is loaded, so a checkpoint from the internet
could do anything to the student's machine.  An ``.npz`` file is a zip of
plain ``.npy`` arrays, and nb.load reads only numbers out of it (and single
strings, such as the kind of optimizer a state dict came from).

Nested dicts (an optimizer's state dict) are stored flat, their keys joined by
``/`` (``state/0/momentum_buffer``), and ``nb.load`` nests them again.  Model
paths use ``.`` and never ``/``, so a model's state dict stays flat.

Saving never loses the previous file: the archive is written to a temporary
file in the same folder, flushed to disk, and only then renamed over the old
one (``os.replace`` is atomic), so a crash, a full disk or Ctrl-C part-way
leaves the old checkpoint as it was.

Loading checks before it trusts: every entry's name, ``.npy`` header, dtype and
size are checked against the archive before any array is allocated, so a
damaged or hostile file gives a CheckpointError naming the entry, never a
numpy traceback or a MemoryError.
"""
from __future__ import annotations

import errno
import numbers
import os
import stat
import zipfile

import numpy as np

from .errors import ArgumentError, CheckpointError, fmt_shape, message
from .tensor import Tensor, _wrap

SEP = "/"  # joins the keys of nested dicts; reserved, so no key may contain it
_TMP_SUFFIX = ".tmp"
_CHUNK = 1 << 24  # read arrays 16 MB at a time: never a second full-size copy
_DEFLATE_MAX_RATIO = 1032  # deflate never expands data more than ~1032 times
_LOAD_HINT = "nb.load reads files written by nb.save (or numpy.savez)."


# ------------------------------------------------------------------------ saving

def save(obj, f) -> None:
    """Write a state dict (str -> Tensor, array, number or string; dicts may nest) to ``f``.

    The file is written at exactly the path given, whatever its extension, and
    replaces the old one only once it is complete.

    >>> nb.save(model.state_dict(), "model.npz")
    """
    where = f"nb.save({_name(f)})"
    if not isinstance(obj, dict):
        raise CheckpointError(message(
            f"nb.save stores a state dict (a dict of name -> tensor), got "
            f"{type(obj).__name__}.", where=where,
            hint="save model.state_dict() (and optimizer.state_dict()), not the model "
            "itself: rebuild the model in code and load the values into it."))
    arrays: dict = {}
    _flatten(obj, "", arrays, where)  # every value checked before a byte is written
    if isinstance(f, (str, os.PathLike)):
        _save_atomically(arrays, os.fspath(f), where)
        return
    try:  # a file object: the caller owns it, so it cannot be replaced atomically
        _write_npz(arrays, f)
    except OSError as err:
        raise CheckpointError(message(
            f"cannot write the file: {err.strerror or err}.", where=where,
            hint="check that the file object is open for writing in binary mode "
            "(open(path, 'wb')).")) from None


def _flatten(obj: dict, prefix: str, out: dict, where: str) -> None:
    for key, value in obj.items():
        name = str(key)
        if not name or SEP in name:
            raise CheckpointError(message(
                f"the key {prefix + name!r} is empty or contains '{SEP}', which nb.save "
                "uses to store nested dicts.", where=where,
                hint=f"rename the key without '{SEP}'."))
        path = prefix + name
        if path in out:  # e.g. the keys 0 and '0' in one dict
            raise CheckpointError(message(
                f"two keys of the dict are both stored as '{path}'.", where=where,
                hint="give every key a different name (nb.save stores keys as strings)."))
        if isinstance(value, (list, tuple)) and any(isinstance(v, dict) for v in value):
            value = {str(i): v for i, v in enumerate(value)}  # param_groups: a list of dicts
        if isinstance(value, dict):
            _flatten(value, path + SEP, out, where)
        else:
            out[path] = _to_array(path, value, where)


def _to_array(key: str, value, where: str) -> np.ndarray:
    if isinstance(value, (Tensor, np.ndarray)):
        array = np.asarray(value)
    elif isinstance(value, str):
        return np.array(value)  # a single string, read back as a str
    elif isinstance(value, (numbers.Number, np.generic, bool)) or (
            isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number)
                                                     for v in value)):
        array = np.asarray(value)
    else:
        array = None
    if array is None or array.dtype.kind not in "biufc":
        what = type(value).__name__ if array is None else f"an array of dtype {array.dtype}"
        raise CheckpointError(message(
            f"cannot store '{key}': it is {what}, and nb.save keeps only numbers and "
            "strings (pickle is never used).", where=where,
            values=f"{key}: {value!r:.60}",
            hint="store Tensors, numeric arrays, numbers or a string; leave other objects "
            "out of the dict (or store them with your own code)."))
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def _write_npz(arrays: dict, handle) -> None:
    archive = zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED, allowZip64=True)
    try:
        for key, array in arrays.items():
            with archive.open(key + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    except BaseException:
        # Abandon the archive: closing it would still write a directory, making a
        # truncated archive look whole (the caller throws the file away).
        archive.fp = None
        raise
    archive.close()


def _save_atomically(arrays: dict, path: str, where: str) -> None:
    target = os.path.realpath(path)  # through a symlink, as open(path, 'wb') would write
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise CheckpointError(message(
            f"{path!r} is a folder.", where=where,
            hint=f"give a file name inside it: nb.save(sd, {os.path.join(path, 'model.npz')!r})."))
    if not os.path.isdir(folder):
        raise CheckpointError(message(
            f"the folder {folder!r} does not exist.", where=where,
            hint="create it first: os.makedirs(folder, exist_ok=True)."))
    _remove_stale_temporaries(folder, os.path.basename(target))
    temporary = None
    try:
        handle, temporary = _create_temporary(folder, os.path.basename(target))
        with os.fdopen(handle, "wb") as out:
            _write_npz(arrays, out)
            out.flush()
            _fsync_file(out.fileno())  # on the disk before it takes the old file's place
        if os.path.exists(target):  # keep the old file's permissions, as rewriting it would
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
        temporary = None
    except OSError as err:
        kept = "the previous file is unchanged" if os.path.exists(target) else None
        raise CheckpointError(message(
            f"cannot write {path!r}: {err.strerror or err}; nothing was saved.",
            where=where, values=kept, hint=_write_hint(err))) from None
    finally:  # also on KeyboardInterrupt: never leave a half-written file behind
        if temporary is not None:
            _remove_quietly(temporary)
    _fsync_folder(folder)  # make the rename itself survive a power cut


def _write_hint(err: OSError) -> str:
    if err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "the disk is full: free some space (or save to another disk) and save again."
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return ("the folder cannot be written (nb.save writes a new file beside the old one "
                "and renames it): save to a folder you can write, or change its permissions.")
    return "check that the folder exists and can be written, then save again."


def _temporary_prefix(base: str) -> str:
    return f".{base}."


def _create_temporary(folder: str, base: str):
    """A new, empty file '.model.npz.<pid>-<random>.tmp' beside the target.

    The pid lets a later save remove files left by a process that was killed.
    Created with mode 0o666 minus the umask, as open(path, 'wb') would.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.path.join(folder, f"{_temporary_prefix(base)}{os.getpid()}-"
                                    f"{os.urandom(4).hex()}{_TMP_SUFFIX}")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue


def _remove_stale_temporaries(folder: str, base: str) -> None:
    """Remove temporaries of this target whose writing process no longer runs
    (it was killed part-way, so it could not clean up)."""
    if os.name != "posix":  # no cheap, reliable 'is this process alive?' check
        return
    prefix = _temporary_prefix(base)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid = name[len(prefix):-len(_TMP_SUFFIX)].split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            _remove_quietly(os.path.join(folder, name))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return True


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _fsync_file(handle: int) -> None:
    try:
        os.fsync(handle)
    except OSError as err:  # a file system without fsync: the data was still written
        if err.errno not in (errno.EINVAL, errno.ENOTSUP, getattr(errno, "EOPNOTSUPP", 0)):
            raise


def _fsync_folder(folder: str) -> None:
    if os.name != "posix":  # Windows cannot open a folder for fsync
        return
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:  # some file systems refuse; the file itself is already on disk
        pass
    finally:
        os.close(handle)


# ----------------------------------------------------------------------- loading

def load(f) -> dict:
    """Read a checkpoint written by ``nb.save``: a dict of name -> Tensor (nested dicts
    come back nested, with string keys; a stored string comes back as a str).

    Everything is checked before anything is allocated; pickled data is refused.
    """
    where = f"nb.load({_name(f)})"
    if not isinstance(f, (str, os.PathLike)) and not (hasattr(f, "read") and hasattr(f, "seek")):
        raise ArgumentError(message(
            f"nb.load needs a path or a file opened for reading, got {type(f).__name__} "
            f"{f!r:.40}.", where="nb.load",
            hint="pass the checkpoint's path as a string: nb.load('model.npz')."))
    if not isinstance(f, (str, os.PathLike)):
        try:
            return _read_checkpoint(f, where)
        except OSError as err:
            raise CheckpointError(message(
                f"cannot read the file object: {err.strerror or err}.", where=where,
                hint="pass a path, or a file opened for reading in binary mode that can "
                "seek (open(path, 'rb') or io.BytesIO(data)).")) from None
    path = os.fspath(f)
    if os.path.isdir(path):
        raise CheckpointError(message(
            f"{path!r} is a folder, not a checkpoint file.", where=where,
            values=f"it holds: {_listing(path)}",
            hint="pass the path of the .npz file inside it."))
    if not os.path.exists(path):
        folder = os.path.dirname(os.path.abspath(path))
        raise CheckpointError(message(
            f"there is no file {path!r}.", where=where,
            values=f"its folder holds: {_listing(folder)}" if os.path.isdir(folder) else
            f"its folder {folder!r} does not exist either",
            hint=f"check the path (the current folder is {os.getcwd()!r})."))
    try:
        with open(path, "rb") as handle:
            return _read_checkpoint(handle, where)
    except OSError as err:
        raise CheckpointError(message(
            f"cannot read {path!r}: {err.strerror or err}.", where=where,
            hint="check the file's permissions.")) from None


def _read_checkpoint(handle, where: str) -> dict:
    magic = handle.read(6)
    if not magic:
        raise CheckpointError(message(
            "the file is empty.", where=where, values="size: 0 bytes",
            hint="it was probably never finished; save the checkpoint again."))
    if magic[:1] == b"\x80":  # the first byte of a pickle (protocol 2 and later)
        raise CheckpointError(message(
            "the file is a pickle, which nb.load never reads.", where=where,
            values=f"it starts with {magic!r}, as pickles do",
            hint="a pickle can run any code when loaded. If you trust the file, load it "
            "with the library that wrote it and save its arrays with nb.save."))
    if magic == b"\x93NUMPY":
        handle.seek(0)
        shape = _header_or_none(handle)
        shape = fmt_shape(shape[0]) if shape else "unknown"
        raise CheckpointError(message(
            f"the file is a single .npy array of shape {shape}, not a checkpoint.",
            where=where, hint="load it with np.load; nb.load reads dicts written by nb.save."))
    if magic[:4] != b"PK\x03\x04":
        raise CheckpointError(message(
            f"the file is not an .npz checkpoint (it starts with {magic!r}).",
            where=where, hint=_LOAD_HINT))
    size = handle.seek(0, os.SEEK_END)
    handle.seek(0)
    try:
        archive = zipfile.ZipFile(handle)
    except Exception as err:  # any error parsing untrusted bytes: the zip is damaged
        raise CheckpointError(message(
            f"the file is not a readable .npz checkpoint: its zip structure is damaged "
            f"({type(err).__name__}: {err}).", where=where, values=f"size: {size} bytes",
            hint="the file is incomplete or corrupted; save it again, or use an older "
            "copy.")) from None
    with archive:
        infos = _check_names(archive, where)
        headers = [_check_entry(archive, info, size, where) for info in infos]
        flat = {info.filename[:-4]: _read_entry(archive, info, header, where)
                for info, header in zip(infos, headers)}
    return _unflatten(flat)


def _check_names(archive: zipfile.ZipFile, where: str) -> list:
    infos = archive.infolist()
    names = [info.filename for info in infos]
    strays = [n for n in names if not n.endswith(".npy")]
    if strays:
        torch_like = any(n.endswith("data.pkl") for n in strays)
        raise CheckpointError(message(
            f"the file contains entries that are not .npy arrays: "
            f"{', '.join(strays[:3])}{', ...' if len(strays) > 3 else ''}.", where=where,
            values=f"{len(strays)} of its {len(names)} entries are not .npy arrays",
            hint=("it looks like a PyTorch checkpoint (torch.save), which is a pickle; "
                  "load it with torch and save {k: v.numpy()} with nb.save."
                  if torch_like else "nb.load reads only files written by nb.save.")))
    keys = [n[:-4] for n in names]
    seen, problems = set(), []
    for key in keys:
        if key in seen:
            problems.append(f"'{key}' is stored twice")
        seen.add(key)
        if "" in key.split(SEP):
            problems.append(f"'{key}' has an empty part between '{SEP}'s")
    for key in keys:  # 'fc' and 'fc/weight': fc cannot be a value and a dict at once
        parts = key.split(SEP)
        for i in range(1, len(parts)):
            parent = SEP.join(parts[:i])
            if parent in seen:
                problems.append(f"'{parent}' is a value, but '{key}' puts a dict there")
    if problems:
        raise CheckpointError(message(
            f"the entries' names conflict ({len(problems)} problem(s)), so they do not make "
            "one dict.", where=where, values="\n".join(problems[:10]),
            hint="nb.save never writes such names; the file was made or changed by other "
            "code. Rename the conflicting entries (for instance with numpy.load and "
            "numpy.savez) and load again."))
    return infos


def _check_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, size: int, where: str):
    """(shape, fortran_order, dtype, data_offset) of an entry, checked against the
    archive's real size -- without reading or allocating its data."""
    name = info.filename

    def refuse(what, values=None, hint="the file is incomplete or corrupted; save it "
               "again, or use an older copy."):
        raise CheckpointError(message(f"the entry '{name[:-4]}' {what}", where=where,
                                      values=values, hint=hint))

    if info.flag_bits & 0x1:
        refuse("is encrypted.", hint=_LOAD_HINT)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        refuse(f"is compressed with method {info.compress_type}, which nb.load does not "
               "read.", hint=_LOAD_HINT + " numpy.savez_compressed works too.")
    if info.header_offset + info.compress_size > size:
        refuse(f"claims {info.compress_size} bytes, more than the file holds "
               f"({size} bytes in all).", values=f"entry: {name}")
    if (info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size) \
            or info.file_size > _DEFLATE_MAX_RATIO * info.compress_size + 1024:
        refuse(f"claims to unpack {info.compress_size} bytes into {info.file_size}, which "
               "is impossible.", values=f"entry: {name}")
    try:
        with archive.open(info) as member:
            header, problem = _read_header(member), None
    except Exception as err:  # any error parsing untrusted bytes: the entry is damaged
        header, problem = None, f"{type(err).__name__}: {err}"
    if problem:
        refuse(f"is damaged: its .npy header cannot be read ({problem}).",
               values=f"entry: {name}")
    if header is None:
        refuse("is not a .npy array (it does not start with numpy's magic bytes, or uses "
               "a .npy version nb.load does not read).", values=f"entry: {name}")
    shape, fortran_order, dtype, offset = header
    described = f"shape {fmt_shape(shape)}, dtype {dtype}"
    if dtype.hasobject:
        refuse("is an object array, stored with pickle; nb.load refuses it.",
               values=described, hint="object arrays can run code when loaded. Save only "
               "numeric arrays (nb.save does).")
    if dtype.kind not in "biufc" and not (dtype.kind == "U" and shape == ()):
        what = {"U": "text", "S": "bytes", "V": "raw or structured records",
                "M": "dates", "m": "time spans"}.get(dtype.kind, f"dtype {dtype}")
        refuse(f"holds {what}, not numbers; nb.load reads only numeric arrays (and single "
               "strings).", values=described,
               hint="save numbers only: convert the entry to a numeric array, or leave it "
               "out of the checkpoint.")
    if any(s < 0 for s in shape):
        refuse("has a negative size in its shape.", values=described)
    nbytes = dtype.itemsize
    for s in shape:
        nbytes *= s  # Python integers: no overflow, nothing allocated
    if offset + nbytes != info.file_size:
        refuse(f"does not fit its own header: the header promises {nbytes} bytes of data, "
               f"the entry holds {info.file_size - offset}.", values=described)
    return shape, fortran_order, dtype, offset


def _read_header(member):
    """(shape, fortran_order, dtype, data_offset), or None if it is not a .npy we read."""
    fmt = np.lib.format
    if member.read(len(fmt.MAGIC_PREFIX)) != fmt.MAGIC_PREFIX:
        return None
    version = tuple(member.read(2))
    readers = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
    if version not in readers:
        return None
    # the readers refuse headers over 10000 bytes and parse them with literal_eval
    shape, fortran_order, dtype = readers[version](member)
    return tuple(shape), bool(fortran_order), dtype, member.tell()


def _header_or_none(handle):
    try:
        return _read_header(handle)
    except Exception:  # only used to describe a file we refuse anyway
        return None


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, header, where: str):
    shape, fortran_order, dtype, offset = header
    array = np.empty(shape, dtype=dtype, order="F" if fortran_order else "C")
    memory = (array.T if fortran_order else array).reshape(-1).view(np.uint8)
    try:
        with archive.open(info) as member:
            member.read(offset)
            done = 0
            while done < memory.size:
                chunk = member.read(min(_CHUNK, memory.size - done))
                if not chunk:
                    raise EOFError("the data ends early")
                memory[done:done + len(chunk)] = np.frombuffer(chunk, np.uint8)
                done += len(chunk)
            member.read(1)  # reach the end, where zipfile checks the CRC
    except Exception as err:  # any error reading untrusted bytes: the entry is damaged
        raise CheckpointError(message(
            f"the entry '{info.filename[:-4]}' is damaged ({type(err).__name__}: {err}).",
            where=where, values=f"shape {fmt_shape(shape)}, dtype {dtype}",
            hint="the file is incomplete or corrupted; save it again, or use an older "
            "copy.")) from None
    if dtype.kind == "U":
        return str(array[()])
    if not dtype.isnative or fortran_order:  # native byte order, C order, as computed on
        array = array.astype(dtype.newbyteorder("="), order="C")
    return _wrap(array)


def _unflatten(flat: dict) -> dict:
    out: dict = {}
    for key, value in flat.items():
        node = out
        *parents, last = key.split(SEP)
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _listing(folder: str) -> str:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return "(cannot be listed)"
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    return shown or "nothing"


def _name(f) -> str:
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "a file object"
