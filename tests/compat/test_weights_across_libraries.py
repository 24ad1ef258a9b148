"""Weights trained in one library load into the same model written in the other, through
the format both read: a numpy ``.npz`` of the state dict (``nb.save`` writes one, ``nb.load``
reads one written by ``numpy.savez``). PyTorch's own ``torch.save`` files are pickles, which
nnbook refuses on purpose (``nnbook/compat.py``)."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")


def build(nn):
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(3 * 5 * 3, 4))


def train(lib, model, X, y):
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        lib.nn.functional.cross_entropy(model(X), y).backward()
        optimizer.step()
    model.eval()


def test_weights_trained_in_pytorch_load_into_nnbook(tmp_path, rng):
    x = rng.standard_normal((6, 2, 7, 5)).astype(np.float32)
    labels = rng.integers(0, 4, 6)
    theirs = build(torch.nn)
    train(torch, theirs, torch.tensor(x), torch.tensor(labels))
    np.savez(tmp_path / "w.npz", **{k: v.numpy() for k, v in theirs.state_dict().items()})

    ours = build(nb.nn)
    ours.load_state_dict(nb.load(tmp_path / "w.npz"))
    ours.eval()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_allclose(ours[1].running_var.numpy(), theirs[1].running_var.numpy())
    with torch.no_grad():
        want = theirs(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours(nb.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)


def test_weights_trained_in_nnbook_load_into_pytorch(tmp_path, rng):
    x = rng.standard_normal((6, 2, 7, 5)).astype(np.float32)
    labels = rng.integers(0, 4, 6)
    ours = build(nb.nn)
    train(nb, ours, nb.tensor(x), nb.tensor(labels))
    nb.save(ours.state_dict(), tmp_path / "w.npz")

    theirs = build(torch.nn)
    with np.load(tmp_path / "w.npz") as saved:
        theirs.load_state_dict({k: torch.from_numpy(saved[k]) for k in saved.files})
    theirs.eval()
    assert theirs[1].num_batches_tracked.item() == 3
    with torch.no_grad():
        want = theirs(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours(nb.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
