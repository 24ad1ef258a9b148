"""nb.save never loses the previous checkpoint; nb.load checks a file before it trusts it.

Saves are broken on purpose -- a process killed with SIGKILL, a full disk, a folder that
cannot be written, Ctrl-C -- at each point of the write, and every time the old file must
stay byte-identical and loadable, with no temporary file left behind.  Damaged and hostile
files must each give a CheckpointError that names the file and the entry, never a numpy
or zipfile traceback, and never allocate what a lying header asks for.
"""
import errno
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import time
import tracemalloc
import zipfile

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import CheckpointError, NnbookError


def _state(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"conv.weight": rng.standard_normal((6, 3, 5, 3)).astype(np.float32),
            "conv.bias": rng.standard_normal(6).astype(np.float32),
            "fc.weight": rng.standard_normal((7, 5)),
            "bn.num_batches_tracked": np.array(11)}


def _assert_loads_as(path, expected: dict):
    loaded = nb.load(path)
    assert list(loaded) == list(expected)
    for key, value in expected.items():
        assert loaded[key].dtype == value.dtype, key
        assert loaded[key].detach().numpy().tobytes() == value.tobytes(), key


@pytest.fixture
def old_checkpoint(tmp_path):
    """A folder holding one good checkpoint; yields (path, its bytes, its state)."""
    path = tmp_path / "model.npz"
    state = _state(1)
    nb.save(state, path)
    return path, path.read_bytes(), state


def _assert_untouched(path, old_bytes, old_state):
    assert path.read_bytes() == old_bytes
    _assert_loads_as(path, old_state)
    assert sorted(os.listdir(path.parent)) == [path.name]  # no temporary file behind


# ------------------------------------------------------------------ atomic saves

def _fail_at(monkeypatch, point: str, error: BaseException):
    """Make the save fail at one point of its work: creating the temporary file, writing
    the third array (after half of its bytes), flushing to disk, or renaming."""
    if point == "create":
        real_open = os.open

        def fake_open(name, flags, *args, **kwargs):
            if flags & os.O_CREAT:
                raise error
            return real_open(name, flags, *args, **kwargs)
        monkeypatch.setattr(os, "open", fake_open)
    elif point == "write":
        real_write = np.lib.format.write_array
        calls = []

        def fake_write(member, array, **kwargs):
            calls.append(1)
            if len(calls) == 3:
                member.write(array.tobytes()[: array.nbytes // 2])
                raise error
            return real_write(member, array, **kwargs)
        monkeypatch.setattr(np.lib.format, "write_array", fake_write)
    elif point == "fsync":
        def fake_fsync(fd):
            raise error
        monkeypatch.setattr(os, "fsync", fake_fsync)
    else:
        def fake_replace(src, dst):
            raise error
        monkeypatch.setattr(os, "replace", fake_replace)


POINTS = ["create", "write", "fsync", "replace"]


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("error, words", [
    (OSError(errno.ENOSPC, "No space left on device"), ["No space left", "disk is full"]),
    (PermissionError(errno.EACCES, "Permission denied"), ["Permission denied",
                                                          "cannot be written"]),
    (OSError(errno.EIO, "Input/output error"), ["Input/output error", "can be written"]),
], ids=["disk-full", "read-only", "io-error"])
def test_a_failed_save_leaves_the_previous_checkpoint(old_checkpoint, monkeypatch, point,
                                                        error, words):
    path, old_bytes, old_state = old_checkpoint
    _fail_at(monkeypatch, point, error)
    with pytest.raises(CheckpointError) as info:
        nb.save(_state(2), path)
    monkeypatch.undo()
    assert isinstance(info.value, ValueError) and isinstance(info.value, NnbookError)
    text = str(info.value)
    assert text.startswith(f"nb.save({str(path)!r}): cannot write")
    assert "nothing was saved" in text and "the previous file is unchanged" in text
    assert "hint:" in text and all(w in text for w in words), text
    _assert_untouched(path, old_bytes, old_state)


@pytest.mark.parametrize("point", POINTS)
def test_an_interrupted_save_leaves_the_previous_checkpoint(old_checkpoint, monkeypatch,
                                                              point):
    path, old_bytes, old_state = old_checkpoint
    _fail_at(monkeypatch, point, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C is passed on, not turned into an error
        nb.save(_state(2), path)
    monkeypatch.undo()
    _assert_untouched(path, old_bytes, old_state)


def test_a_failed_first_save_leaves_no_file(tmp_path, monkeypatch):
    _fail_at(monkeypatch, "write", OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(CheckpointError, match="nothing was saved") as info:
        nb.save(_state(2), tmp_path / "new.npz")
    monkeypatch.undo()
    assert "previous file" not in str(info.value)
    assert os.listdir(tmp_path) == []


_SAVE_INTO = """
import sys
import numpy as np
import nnbook as nb
try:
    nb.save({"w": np.zeros(3)}, sys.argv[1])
except ValueError as err:
    print(type(err).__name__, err)
"""


def _as_an_ordinary_user() -> list:
    """A command prefix under which root's power to write anywhere is gone."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv, so a read-only folder cannot be "
                    "made; the 'read-only' cases of test_a_failed_save_leaves_the_previous_"
                    "checkpoint refuse the temporary file by patching os.open instead")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


@pytest.mark.skipif(os.name != "posix", reason="folder permissions are POSIX")
def test_a_read_only_folder_is_refused_for_real(old_checkpoint):
    path, old_bytes, old_state = old_checkpoint
    os.chmod(path.parent, 0o555)
    try:
        out = subprocess.run(_as_an_ordinary_user() + [sys.executable, "-c", _SAVE_INTO,
                                                       str(path)],
                             capture_output=True, text=True, timeout=120)
    finally:
        os.chmod(path.parent, 0o755)
    assert out.stdout.startswith("CheckpointError nb.save("), out.stdout + out.stderr
    assert "Permission denied; nothing was saved" in out.stdout
    assert "hint: the folder cannot be written" in out.stdout
    _assert_untouched(path, old_bytes, old_state)


_SLOW_SAVER = """
import sys, time
import numpy as np
import nnbook as nb

real_write = np.lib.format.write_array

def slow_write(member, array, **kwargs):   # a large save, slowed so the kill lands mid-way
    real_write(member, array, **kwargs)
    time.sleep(0.1)

np.lib.format.write_array = slow_write
rng = np.random.default_rng(7)
nb.save({f"layer{i}.weight": rng.standard_normal((301, 257)).astype(np.float32)
         for i in range(40)}, sys.argv[1])
print("finished")
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_process_killed_mid_save_leaves_the_previous_checkpoint(old_checkpoint):
    path, old_bytes, old_state = old_checkpoint
    folder = path.parent
    child = subprocess.Popen([sys.executable, "-c", _SLOW_SAVER, str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline, partial = time.monotonic() + 60, None
    try:
        while partial is None and time.monotonic() < deadline and child.poll() is None:
            for name in os.listdir(folder):
                if name != path.name and (folder / name).stat().st_size > 1_000_000:
                    partial = folder / name  # a few arrays written, most still to come
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    out, err = child.communicate()
    assert partial is not None, f"the child never started writing: {err.decode()}"
    assert child.returncode == -signal.SIGKILL and b"finished" not in out
    assert partial.exists() and partial.stat().st_size < 40 * 301 * 257 * 4  # mid-write
    assert partial.name.startswith(".model.npz.") and partial.name.endswith(".tmp")
    assert path.read_bytes() == old_bytes
    _assert_loads_as(path, old_state)
    # The killed process could not clean up; the next save removes what it left.
    nb.save(_state(3), path)
    assert sorted(os.listdir(folder)) == [path.name]
    _assert_loads_as(path, _state(3))


def test_a_save_keeps_permissions_and_writes_through_a_symlink(tmp_path):
    path = tmp_path / "model.npz"
    nb.save(_state(1), path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # as open(path, 'wb')
    os.chmod(path, 0o640)
    nb.save(_state(2), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    link = tmp_path / "latest.npz"
    link.symlink_to(path)
    nb.save(_state(3), link)
    assert link.is_symlink()
    _assert_loads_as(path, _state(3))


@pytest.mark.parametrize("target, match", [
    ("folder", r"is a folder[\s\S]*hint: give a file name inside it"),
    ("missing/model.npz", r"the folder .*missing' does not exist[\s\S]*os.makedirs"),
])
def test_save_to_a_bad_path_is_refused(tmp_path, target, match):
    (tmp_path / "folder").mkdir()
    with pytest.raises(CheckpointError, match=match):
        nb.save(_state(1), tmp_path / target)
    assert sorted(os.listdir(tmp_path)) == ["folder"]


# --------------------------------------------------------- loads that check first

def _npy(header: str, data: bytes = b"", version=(1, 0)) -> bytes:
    """A .npy file with a header written by hand (numpy's layout: padded to 64 bytes)."""
    size_bytes = 2 if version == (1, 0) else 4
    text = header + " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    return (b"\x93NUMPY" + bytes(version) + len(text).to_bytes(size_bytes, "little")
            + text.encode("latin1") + data)


def _header(descr="'<f4'", shape="(3,)") -> str:
    return f"{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}"


def _zip(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members:
            archive.writestr(name, data)


def _npz(path, **arrays):
    _zip(path, [(f"{k}.npy", _array_bytes(v)) for k, v in arrays.items()])


def _array_bytes(array) -> bytes:
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=True)
    return buffer.getvalue()


def _lying_directory(compressed: int, uncompressed: int, compression=zipfile.ZIP_STORED):
    """An archive whose central directory lies about the sizes of its one entry."""
    def make(path):
        _zip(path, [("w.npy", _array_bytes(np.zeros(50)))], compression)
        raw = bytearray(path.read_bytes())
        at = raw.find(b"PK\x01\x02")  # the directory entry: sizes at offsets 20 and 24
        raw[at + 20:at + 28] = compressed.to_bytes(4, "little") + \
            uncompressed.to_bytes(4, "little")
        path.write_bytes(bytes(raw))
    return make


def _saved_then(change):
    def make(path):
        nb.save({"w": np.arange(35, dtype=np.float64).reshape(7, 5)}, path)
        path.write_bytes(change(path.read_bytes()))
    return make


def _flip_a_data_byte(raw: bytes) -> bytes:
    at = raw.find(np.arange(35, dtype=np.float64).tobytes()) + 100
    return raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1:]


def case(name, make, words, marks=()):
    return pytest.param(make, words, id=name, marks=marks)


with_duplicate_member = pytest.mark.filterwarnings("ignore:Duplicate name")

DAMAGED = [
    case("truncated", _saved_then(lambda raw: raw[: len(raw) * 3 // 5]),
     ["zip structure is damaged", "save it again"]),
    case("flipped-byte", _saved_then(_flip_a_data_byte), ["entry 'w' is damaged", "CRC"]),
    case("folder", lambda p: p.mkdir(), ["is a folder", "pass the path of the .npz file"]),
    case("missing", lambda p: None, ["there is no file", "check the path"]),
    case("empty", lambda p: p.write_bytes(b""), ["the file is empty", "save the checkpoint"]),
    case("pickle", lambda p: p.write_bytes(pickle.dumps({"w": [1.0]})),
     ["is a pickle, which nb.load never reads", "can run any code"]),
    case("text", lambda p: p.write_text("hello"), ["is not an .npz checkpoint", "b'hello'"]),
    case("single-npy", lambda p: p.write_bytes(_array_bytes(np.ones((2, 3)))),
     ["single .npy array of shape (2, 3)", "np.load"]),
    case("bad-header-tokens", lambda p: _zip(p, [("w.npy", _npy("{'descr': '<f4', 'shape': (3,"))]),
     ["entry 'w' is damaged: its .npy header cannot be read", "TokenError"]),
    case("bad-header-syntax", lambda p: _zip(p, [("w.npy", _npy("{'descr': <f4>}"))]),
     ["entry 'w' is damaged: its .npy header cannot be read", "Cannot parse header"]),
    case("bad-header-keys", lambda p: _zip(p, [("w.npy", _npy("{'foo': 1}"))]),
     ["entry 'w' is damaged: its .npy header cannot be read", "correct keys"]),
    case("bad-header-descr", lambda p: _zip(p, [("w.npy", _npy(_header(descr="'<q9'")))]),
     ["entry 'w' is damaged: its .npy header cannot be read"]),
    case("no-npy-magic", lambda p: _zip(p, [("w.npy", b"hello, not an array")]),
     ["entry 'w' is not a .npy array"]),
    case("npy-version-9", lambda p: _zip(p, [("w.npy", _npy(_header(), bytes(12), (9, 0)))]),
     ["entry 'w' is not a .npy array", "version"]),
    case("shape-too-large", lambda p: _zip(p, [("w.npy", _npy(_header(shape="(10**13,)")))]),
     ["entry 'w' is damaged: its .npy header cannot be read"]),  # numpy refuses an expression
    case("shape-claims-10^13", lambda p: _zip(p, [("w.npy", _npy(_header(
        shape="(10000000000000,)"), bytes(12)))]),
     ["entry 'w' does not fit its own header", "promises 40000000000000 bytes",
      "holds 12"]),
    case("shape-claims-less", lambda p: _zip(p, [("w.npy", _npy(_header(shape="(2,)"),
                                                            bytes(16)))]),
     ["entry 'w' does not fit its own header", "promises 8 bytes", "holds 16"]),
    case("negative-shape", lambda p: _zip(p, [("w.npy", _npy(_header(shape="(-3,)")))]),
     ["entry 'w' has a negative size"]),
    case("interrupted-member", lambda p: _zip(p, [
        ("a.npy", _array_bytes(np.ones(3))),
        ("b.npy", _array_bytes(np.ones(1000, np.float32))[:200])]),  # the end never written
     ["entry 'b' does not fit its own header", "promises 4000 bytes"]),
    case("directory-claims-1MB", _lying_directory(10**6, 10**6),
         ["entry 'w' claims 1000000 bytes, more than the file holds"]),
    case("directory-claims-1GB-from-deflate", _lying_directory(30, 10**9, zipfile.ZIP_DEFLATED),
         ["entry 'w' claims to unpack 30 bytes into 1000000000, which is impossible"]),
    case("conflict-value-first", lambda p: _npz(p, **{"fc": np.ones(2), "fc/weight": np.ones(3)}),
     ["names conflict", "'fc' is a value, but 'fc/weight' puts a dict there"]),
    case("conflict-dict-first", lambda p: _npz(p, **{"fc/weight": np.ones(3), "fc": np.ones(2)}),
     ["names conflict", "'fc' is a value, but 'fc/weight' puts a dict there"]),
    case("empty-key-part", lambda p: _npz(p, **{"a//b": np.ones(2)}),
     ["names conflict", "'a//b' has an empty part"]),
    case("duplicate", lambda p: _zip(p, [("w.npy", _array_bytes(np.ones(2))),
                                         ("w.npy", _array_bytes(np.ones(3)))]),
         ["names conflict", "'w' is stored twice"], marks=with_duplicate_member),
    case("strings", lambda p: _npz(p, ok=np.ones(2), names=np.array(["conv", "fc"])),
     ["entry 'names' holds text, not numbers", "<U4"]),
    case("bytes", lambda p: _npz(p, raw=np.array([b"x"])), ["entry 'raw' holds bytes", "|S1"]),
    case("bytes-scalar", lambda p: _npz(p, raw=np.array(b"xy")), ["entry 'raw' holds bytes"]),
    case("object", lambda p: _npz(p, payload=np.array([{"x": 1}], dtype=object)),
     ["entry 'payload' is an object array", "pickle"]),
    case("structured", lambda p: _npz(p, rec=np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")])),
     ["entry 'rec' holds raw or structured records"]),
    case("dates", lambda p: _npz(p, when=np.array(["2024-01-02"], dtype="datetime64[D]")),
     ["entry 'when' holds dates"]),
    case("stray-member", lambda p: _zip(p, [("w.npy", _array_bytes(np.ones(2))),
                                        ("notes.txt", b"hi")]),
     ["entries that are not .npy arrays: notes.txt", "only files written by nb.save"]),
    case("torch-checkpoint", lambda p: _zip(p, [("archive/data.pkl", b"\x80\x02}q\x00.")]),
     ["not .npy arrays", "looks like a PyTorch checkpoint"]),
    case("bzip2-member", lambda p: _zip(p, [("w.npy", _array_bytes(np.ones(2)))],
                                    zipfile.ZIP_BZIP2),
     ["entry 'w' is compressed with method 12", "savez_compressed"]),
]


@pytest.mark.parametrize("make, words", DAMAGED)
def test_a_damaged_checkpoint_is_refused_with_a_clear_error(tmp_path, make, words):
    path = tmp_path / "model.npz"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(CheckpointError) as info:
        nb.load(path)
    assert isinstance(info.value, ValueError) and isinstance(info.value, NnbookError)
    text = str(info.value)
    assert text.startswith(f"nb.load({str(path)!r}): "), text  # where: nb.load and the file
    assert "\n  hint: " in text, text
    for word in words:
        assert word in text, f"{word!r} not in:\n{text}"
    # no numpy or zipfile traceback shown above ours
    assert info.value.__cause__ is None
    assert info.value.__context__ is None or info.value.__suppress_context__
    if before is not None:
        assert path.read_bytes() == before  # loading never writes


def test_a_lying_header_is_refused_before_anything_is_allocated(tmp_path):
    path = tmp_path / "model.npz"  # 200 bytes whose header asks for 80 MB
    _zip(path, [("w.npy", _npy(_header(descr="'<f8'", shape="(10000, 1000)"), bytes(64)))])
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError, match="does not fit its own header"):
            nb.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


def test_numpy_written_files_load_in_every_layout(tmp_path):
    """numpy.savez and savez_compressed, Fortran order, big-endian, bool, int and complex:
    all come back as native, C-ordered arrays with the same values."""
    rng = np.random.default_rng(4)
    arrays = {"f": np.asfortranarray(rng.standard_normal((7, 5))),
              "big": rng.standard_normal((3, 5)).astype(">f4"),
              "mask": rng.random(6) > 0.5, "count": np.int64(12),
              "z": (rng.standard_normal(4) + 1j).astype(np.complex64),
              "empty": np.zeros((0, 3), np.float32)}
    for writer in (np.savez, np.savez_compressed):
        writer(tmp_path / "x.npz", **arrays)
        loaded = nb.load(tmp_path / "x.npz")
        for key, array in arrays.items():
            got = loaded[key].detach().numpy()
            assert got.flags.c_contiguous and got.dtype.isnative, key
            assert got.dtype == array.dtype.newbyteorder("=") and got.shape == np.shape(array)
            np.testing.assert_array_equal(got, array)


def test_a_string_round_trips_as_a_str(tmp_path):
    nb.save({"kind": "Adam", "nested": {"name": "résumé"}, "w": nb.ones(2)},
            tmp_path / "x.npz")
    loaded = nb.load(tmp_path / "x.npz")
    assert loaded["kind"] == "Adam" and type(loaded["kind"]) is str
    assert loaded["nested"]["name"] == "résumé"


def test_load_never_unpickles(tmp_path, monkeypatch):
    _npz(tmp_path / "evil.npz", payload=np.array([{"x": 1}], dtype=object))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("unpickled"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("unpickled"))
    with pytest.raises(CheckpointError, match="object array"):
        nb.load(tmp_path / "evil.npz")


def test_a_file_system_without_fsync_still_saves(tmp_path, monkeypatch):
    def no_fsync(fd):
        raise OSError(errno.EINVAL, "Invalid argument")
    monkeypatch.setattr(os, "fsync", no_fsync)
    nb.save(_state(1), tmp_path / "model.npz")
    monkeypatch.undo()
    _assert_loads_as(tmp_path / "model.npz", _state(1))


def test_file_objects_are_written_and_read(tmp_path):
    import io

    buffer = io.BytesIO()
    nb.save(_state(1), buffer)
    buffer.seek(0)
    _assert_loads_as(buffer, _state(1))
    with pytest.raises(CheckpointError, match=r"^nb.load\(a file object\): the file is not "
                       r"a readable .npz checkpoint"):
        nb.load(io.BytesIO(buffer.getvalue()[:300]))
