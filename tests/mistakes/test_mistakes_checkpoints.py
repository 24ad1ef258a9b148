"""Mistakes with checkpoints: nb.save, nb.load and load_state_dict.

See catalogue.py for what every entry is checked for; here "unchanged" also covers every
file in the test's folder, byte for byte (a failed save leaves the old file, and no
temporary file behind), and every parameter and buffer of the model being loaded into.
"""
import pickle
import zipfile

import numpy as np
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, CheckpointError


def model():
    return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2))


def saved(tmp_path, obj=None, name="model.npz"):
    """A model and the path of a checkpoint of it (or of ``obj``) in tmp_path."""
    m = model()
    path = tmp_path / name
    nb.save(m.state_dict() if obj is None else obj, path)
    return m, path


def damaged(change):
    """A model and the path of its checkpoint, whose bytes ``change`` then spoils."""
    def setup(tmp_path):
        m, path = saved(tmp_path)
        path.write_bytes(change(path.read_bytes()))
        return m, path
    return setup


def written(path, data: bytes):
    path.write_bytes(data)
    return path


def npz(tmp_path, **arrays):
    """A file written by numpy.savez (not nb.save) with these entries."""
    path = tmp_path / "other.npz"
    np.savez(path, **arrays)
    return path


def with_entry(key, value):
    """A model and a state dict of it with ``key`` set to ``value``."""
    def setup():
        m = model()
        sd = dict(m.state_dict())
        sd[key] = value
        return m, sd
    return setup


def without(key):
    def setup():
        m = model()
        return m, {k: v for k, v in m.state_dict().items() if k != key}
    return setup


def other_model():
    return model(), nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.Linear(5, 2))


SAVING = [
    mistake("saving the model instead of its state dict", lambda tmp: (model(), tmp / "m.npz"),
            lambda mp: nb.save(mp[0], mp[1]),
            CheckpointError, "nb.save", r"stores a state dict.*got Sequential",
            r"save model\.state_dict\(\)"),
    mistake("saving over a checkpoint with an object inside", saved,
            lambda mp: nb.save({**mp[0].state_dict(), "note": object()}, mp[1]),
            CheckpointError, "nb.save", r"cannot store 'note': it is object",
            r"leave other objects out"),
    mistake("saving a list of strings", saved,
            lambda mp: nb.save({"classes": ["cat", "dog"]}, mp[1]),
            CheckpointError, "nb.save", r"cannot store 'classes': it is list, and nb.save keeps",
            r"store Tensors, numeric arrays, numbers or a string"),
    mistake("a key with a slash", saved, lambda mp: nb.save({"fc/weight": nb.zeros(2)}, mp[1]),
            CheckpointError, "nb.save", r"'fc/weight' is empty or contains '/'",
            r"rename the key without '/'"),
    mistake("saving into a folder that does not exist",
            lambda tmp: (model(), tmp / "runs" / "m.npz"),
            lambda mp: nb.save(mp[0].state_dict(), mp[1]),
            CheckpointError, "nb.save", r"the folder .*runs' does not exist", r"os\.makedirs"),
    mistake("saving to a folder's path", lambda tmp: (model(), tmp),
            lambda mp: nb.save(mp[0].state_dict(), mp[1]),
            CheckpointError, "nb.save", r"is a folder", r"model\.npz"),
]

LOADING = [
    mistake("loading a file that does not exist", saved,
            lambda mp: nb.load(mp[1].with_name("modle.npz")),
            CheckpointError, "nb.load", r"there is no file .*modle\.npz.*its folder holds: "
            r"model\.npz", r"check the path"),
    mistake("loading a folder", saved, lambda mp: nb.load(mp[1].parent),
            CheckpointError, "nb.load", r"is a folder.*it holds: model\.npz",
            r"path of the \.npz file inside it"),
    mistake("a truncated checkpoint", damaged(lambda b: b[:len(b) // 2]),
            lambda mp: nb.load(mp[1]),
            CheckpointError, "nb.load", r"zip structure is damaged \(BadZipFile",
            r"incomplete or corrupted; save it again"),
    mistake("a checkpoint with a flipped byte in its data",
            damaged(lambda b: b[:200] + bytes([b[200] ^ 0xFF]) + b[201:]),
            lambda mp: nb.load(mp[1]),
            CheckpointError, "nb.load", r"damaged", r"incomplete or corrupted"),
    mistake("an empty file", lambda tmp: written(tmp / "m.npz", b""), lambda path: nb.load(path),
            CheckpointError, "nb.load", r"the file is empty", r"save the checkpoint again"),
    mistake("a pickle", lambda tmp: written(tmp / "m.pt", pickle.dumps({"w": [1.0]})),
            lambda path: nb.load(path),
            CheckpointError, "nb.load", r"a pickle, which nb.load never reads",
            r"can run any code"),
    mistake("a single .npy array", lambda tmp: np.save(tmp / "w.npy", np.zeros((3, 2)))
            or tmp / "w.npy", lambda path: nb.load(path),
            CheckpointError, "nb.load", r"single \.npy array of shape \(3, 2\)", r"np\.load"),
    mistake("a text file", lambda tmp: written(tmp / "m.txt", b"weights: 1 2 3"),
            lambda path: nb.load(path),
            CheckpointError, "nb.load", r"not an \.npz checkpoint \(it starts with b'weigh",
            r"files written by nb\.save"),
    mistake("keys fc and fc/weight together",
            lambda tmp: npz(tmp, **{"fc": np.zeros(2), "fc/weight": np.ones(2)}),
            lambda path: nb.load(path),
            CheckpointError, "nb.load", r"'fc' is a value, but 'fc/weight' puts a dict there",
            r"Rename the conflicting entries"),
    mistake("an object array in the file",
            lambda tmp: npz(tmp, w=np.array([{"a": 1}], dtype=object)),
            lambda path: nb.load(path),
            CheckpointError, "nb.load", r"'w' is an object array, stored with pickle",
            r"Save only numeric arrays"),
    mistake("a PyTorch checkpoint",
            lambda tmp: _zip(tmp / "m.pth", {"archive/data.pkl": b"\x80\x02}q\x00."}),
            lambda path: nb.load(path),
            CheckpointError, "nb.load", r"entries that are not \.npy arrays: archive/data\.pkl",
            r"PyTorch checkpoint.*torch"),
    mistake("a path that is a number", None, lambda: nb.load(3),
            ArgumentError, "nb.load", r"needs a path or a file opened for reading, got int 3",
            r"nb\.load\('model\.npz'\)"),
]

def file_with_a_string(tmp_path):
    """A model and a checkpoint file (numpy.savez) whose '0.bias' holds text."""
    m = model()
    arrays = {k: v.numpy() for k, v in m.state_dict().items()}
    arrays["0.bias"] = np.array("zeros")
    return m, npz(tmp_path, **arrays)


LOADING_INTO_A_MODEL = [
    mistake("a string entry in a checkpoint file", file_with_a_string,
            lambda mp: mp[0].load_state_dict(nb.load(mp[1])),
            CheckpointError, "Sequential.load_state_dict",
            r"the value for '0\.bias' is not numeric \(numpy sees dtype <U5\)",
            r"maps each path to a Tensor"),
    mistake("a string among the values", with_entry("0.bias", "zeros"),
            lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict",
            r"the value for '0\.bias' is not numeric", r"maps each path to a Tensor"),
    mistake("a missing key", without("2.bias"), lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict", r"1 missing.*missing from the "
            r"checkpoint: 2\.bias", r"strict=False to load only the keys that match"),
    mistake("an unexpected key", with_entry("3.weight", nb.zeros(2, 2)),
            lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict", r"1 unexpected.*not in the model: "
            r"3\.weight", r"strict=False"),
    mistake("another architecture", other_model,
            lambda mo: mo[0].load_state_dict(mo[1].state_dict()),
            CheckpointError, "Sequential.load_state_dict", r"of the wrong shape.*0\.weight: "
            r"the checkpoint has \(5, 4\), the model \(3, 4\)", r"same layers, sizes and order"),
    mistake("another architecture, even with strict=False", other_model,
            lambda mo: mo[0].load_state_dict(mo[1].state_dict(), strict=False),
            CheckpointError, "Sequential.load_state_dict", r"of the wrong shape",
            r"same layers, sizes and order"),
    mistake("a checkpoint saved from a wrapper", lambda: (model(), {
                f"model.{k}": v for k, v in model().state_dict().items()}),
            lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict", r"not in the model: model\.0\.weight",
            r"every key in the checkpoint starts with 'model\.'.*removeprefix"),
    mistake("a whole training checkpoint", lambda: (lambda m: (m, {
                "model": m.state_dict(), "epoch": 3}))(model()),
            lambda ms: ms[0].load_state_dict(ms[1]),
            CheckpointError, "Sequential.load_state_dict", r"not in the model: model, epoch",
            r"the checkpoint holds a state dict under 'model': load checkpoint\['model'\]"),
    mistake("a path instead of a state dict", saved, lambda mp: mp[0].load_state_dict(str(mp[1])),
            CheckpointError, "Sequential.load_state_dict", r"needs a dict of path -> tensor, "
            r"got str", r"nb\.load\(path\)"),
    mistake("a list of tensors", lambda: model(),
            lambda m: m.load_state_dict(list(m.state_dict().values())),
            CheckpointError, "Sequential.load_state_dict", r"got list",
            r"model\.state_dict\(\)"),
]

MISTAKES = SAVING + LOADING + LOADING_INTO_A_MODEL


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)

