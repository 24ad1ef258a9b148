"""nb.save / nb.load and load_state_dict: .npz only, pickles refused, no half-loaded models."""
import pickle
import zipfile

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import CheckpointError


def _model():
    return nn.Sequential(nn.Conv2d(3, 4, (3, 1), padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.Flatten(), nn.Linear(4 * 7 * 7, 5))


def _snapshot(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def _assert_same(a: dict, b: dict):
    assert list(a) == list(b)
    for key in a:
        assert a[key].dtype == b[key].dtype, key
        assert a[key].tobytes() == b[key].tobytes(), key  # bit for bit


def test_round_trip_restores_every_value_and_dtype(tmp_path):
    nb.manual_seed(0)
    model = _model()
    model(nb.randn(2, 3, 7, 5))  # move the BatchNorm running statistics
    path = tmp_path / "model.pt"  # any extension: the file is written where asked
    nb.save(model.state_dict(), path)
    assert path.exists() and zipfile.is_zipfile(path)
    loaded = nb.load(path)
    assert all(isinstance(v, nb.Tensor) for v in loaded.values())
    assert loaded["1.num_batches_tracked"].dtype == np.int64
    other = _model()
    other.load_state_dict(loaded)
    _assert_same(_snapshot(model), _snapshot(other))


def test_nested_dicts_round_trip(tmp_path):
    nb.save({"a": {"b": nb.ones(2), "c": 3.5}, "d": [1, 2]}, tmp_path / "x.npz")
    out = nb.load(tmp_path / "x.npz")
    assert out["a"]["b"].tolist() == [1.0, 1.0]
    assert out["a"]["c"].item() == 3.5 and out["d"].tolist() == [1, 2]


def test_object_array_is_refused_naming_the_key(tmp_path):
    path = tmp_path / "evil.npz"
    np.savez(path, good=np.ones(3), payload=np.array([{"x": 1}], dtype=object))
    with pytest.raises(CheckpointError, match=r"the entry 'payload' is an object array"):
        nb.load(path)


def test_pickle_and_other_files_are_refused(tmp_path):
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(pickle.dumps({"w": [1.0]}))
    with pytest.raises(CheckpointError, match="is a pickle, which nb.load never reads"):
        nb.load(pickled)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(CheckpointError, match=r"is not an .npz checkpoint"):
        nb.load(text)
    single = tmp_path / "one.npy"
    np.save(single, np.ones((2, 3)))
    with pytest.raises(CheckpointError, match=r"single .npy array of shape \(2, 3\)"):
        nb.load(single)
    torch_like = tmp_path / "torch.pt"
    with zipfile.ZipFile(torch_like, "w") as zf:
        zf.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    with pytest.raises(CheckpointError, match="looks like a PyTorch checkpoint"):
        nb.load(torch_like)
    with pytest.raises(CheckpointError, match="there is no file"):
        nb.load(tmp_path / "missing.npz")


def test_save_refuses_what_it_cannot_store_without_pickle(tmp_path):
    with pytest.raises(CheckpointError, match="state dict"):
        nb.save(_model(), tmp_path / "m.npz")
    with pytest.raises(CheckpointError, match="cannot store 'name': it is bytes"):
        nb.save({"name": b"resnet"}, tmp_path / "m.npz")
    with pytest.raises(CheckpointError, match=r"cannot store 'a/b': it is an array of "
                       r"dtype <U4[\s\S]*hint: store Tensors"):
        nb.save({"a": {"b": np.array(["conv", "fc"])}}, tmp_path / "m.npz")
    with pytest.raises(CheckpointError, match="cannot store 'f': it is set"):
        nb.save({"f": {1, 2}}, tmp_path / "m.npz")
    with pytest.raises(CheckpointError, match="contains '/'"):
        nb.save({"a/b": nb.ones(1)}, tmp_path / "m.npz")
    with pytest.raises(CheckpointError, match="two keys of the dict are both stored as '0'"):
        nb.save({0: nb.ones(1), "0": nb.ones(2)}, tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []  # refused before a file was made


def test_mismatched_load_reports_everything_and_changes_nothing():
    nb.manual_seed(1)
    model = _model()
    before = _snapshot(model)
    sd = {k: v.detach().numpy().copy() + 1 for k, v in _model().state_dict().items()}
    sd["0.weigth"] = sd.pop("0.weight")             # a typo: missing and unexpected
    sd["4.weight"] = np.zeros((5, 3), np.float32)    # the wrong shape
    sd["extra.bias"] = np.zeros(2, np.float32)        # unexpected
    with pytest.raises(CheckpointError) as info:
        model.load_state_dict(sd)
    text = str(info.value)
    assert "(1 missing, 2 unexpected, 1 of the wrong shape); nothing was loaded" in text
    assert "missing from the checkpoint: 0.weight (did you mean 0.weigth?)" in text
    assert "not in the model: 0.weigth (did you mean 0.weight?), extra.bias" in text
    assert "4.weight: the checkpoint has (5, 3), the model (5, 196)" in text
    _assert_same(before, _snapshot(model))


def test_shape_mismatch_is_refused_even_when_not_strict():
    model = _model()
    before = _snapshot(model)
    sd = model.state_dict()
    sd = {k: v.detach().numpy() + 1 for k, v in sd.items()}
    sd["1.running_mean"] = np.zeros(3, np.float32)
    with pytest.raises(CheckpointError, match="shapes differ"):
        model.load_state_dict(sd, strict=False)
    _assert_same(before, _snapshot(model))


def test_not_strict_loads_what_matches_and_returns_the_rest():
    model = _model()
    sd = {"0.weight": np.full((4, 3, 3, 1), 0.5), "bogus": np.ones(1)}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert unexpected == ["bogus"] and "0.bias" in missing and "0.weight" not in missing
    assert model[0].weight.dtype == np.float32  # cast to the parameter's dtype
    assert np.all(model[0].weight.detach().numpy() == 0.5)


def test_loading_keeps_the_parameter_objects():
    model = _model()
    weight = model[0].weight
    model.load_state_dict(_model().state_dict())
    assert model[0].weight is weight  # an optimizer holding it still updates the model


def test_wrapper_prefix_is_recognised():
    inner = _model()
    sd = {"module." + k: v for k, v in inner.state_dict().items()}
    with pytest.raises(CheckpointError, match=r"starts with 'module.'"):
        _model().load_state_dict(sd)


def test_non_numeric_values_are_refused():
    sd = {k: v for k, v in _model().state_dict().items()}
    sd["0.bias"] = "zeros"
    with pytest.raises(CheckpointError, match="'0.bias' is not numeric"):
        _model().load_state_dict(sd)


def test_loading_is_self_contained_and_module_imports_it_at_the_top():
    """nn.loading needs nothing from nn.module, which imports it once, at the top."""
    import ast
    import inspect

    from nnbook.nn import loading, module

    for node in ast.walk(ast.parse(inspect.getsource(loading))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any(n == "module" or n.endswith(".module") for n in names), \
                ast.dump(node)
    tree = ast.parse(inspect.getsource(module))
    top = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "loading"]
    assert top and {"check_and_load", "IncompatibleKeys"} <= {a.name for a in top[0].names}
    nested = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
              and n.module == "loading" and n not in top]
    assert nested == []
    assert module.IncompatibleKeys is loading.IncompatibleKeys
    result = _model().load_state_dict(_model().state_dict())
    assert isinstance(result, loading.IncompatibleKeys) and result == ([], [])
