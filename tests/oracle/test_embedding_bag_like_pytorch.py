"""F.embedding_bag and nn.EmbeddingBag against PyTorch in float64: every mode, 2-D input
and 1-D input with offsets (with and without the last offset), padding_idx,
per_sample_weights, max_norm; values and the gradients to the weight and the sample
weights; the layer's repr, state_dict keys, signature and from_pretrained; errors where
PyTorch raises.  (The oracle: required in CI, skipped without torch locally.)"""
import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import NnbookError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

OFFSETS = np.array([0, 3, 3, 8, 12])  # 5 bags of 13 indices, one of them empty


def agree(rng, table, indices, offsets=None, psw=None, **kw):
    wb, wt = nb.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    pb = pt = None
    if psw is not None:
        pb, pt = nb.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    y = F.embedding_bag(nb.tensor(indices), wb, None if offsets is None else nb.tensor(offsets),
                        per_sample_weights=pb, **kw)
    yt = tF.embedding_bag(torch.tensor(indices), wt,
                          None if offsets is None else torch.tensor(offsets),
                          per_sample_weights=pt, **kw)
    assert y.shape == tuple(yt.shape) and y.dtype == nb.float64
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    r = rng.standard_normal(y.shape)
    y.backward(nb.tensor(r))
    yt.backward(torch.tensor(r))
    np.testing.assert_allclose(wb.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-12)
    if psw is not None:
        np.testing.assert_allclose(pb.grad.numpy(), pt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 3, -7])
def test_bags_as_rows_and_as_offsets_like_pytorch(rng, mode, padding_idx):
    table = rng.standard_normal((10, 5))
    rows = rng.integers(0, 10, (7, 4))
    rows[0] = 3  # a bag of padding only, when padding_idx is 3 (or -7)
    agree(rng, table, rows, mode=mode, padding_idx=padding_idx)
    flat = rng.integers(0, 10, 13)
    flat[:2] = 3
    agree(rng, table, flat, OFFSETS, mode=mode, padding_idx=padding_idx)
    agree(rng, table, flat, np.append(OFFSETS, 13), mode=mode, padding_idx=padding_idx,
          include_last_offset=True)
    agree(rng, table, rows.astype(np.int32), mode=mode, padding_idx=padding_idx)


def test_per_sample_weights_like_pytorch(rng):
    table, flat = rng.standard_normal((10, 5)), rng.integers(0, 10, 13)
    agree(rng, table, flat, OFFSETS, psw=rng.standard_normal(13), mode="sum")
    agree(rng, table, flat, OFFSETS, psw=rng.standard_normal(13), mode="sum",
          padding_idx=int(flat[4]))
    agree(rng, table, flat.reshape(13, 1), psw=rng.standard_normal((13, 1)), mode="sum")


def test_max_norm_rescales_the_looked_up_rows_like_pytorch(rng):
    table = rng.standard_normal((10, 5)) * 3
    ours, theirs = nb.tensor(table.copy()), torch.tensor(table.copy())
    rows = rng.integers(0, 6, (7, 3))  # rows 6..9 are never looked up and keep their norm
    y = F.embedding_bag(nb.tensor(rows), ours, max_norm=1.5, mode="sum")
    yt = tF.embedding_bag(torch.tensor(rows), theirs, max_norm=1.5, mode="sum")
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_scale_grad_by_freq_divides_by_how_often_each_row_occurs(rng):
    # PyTorch's CPU embedding_bag scales by the counts of other rows (its bug, listed in
    # compat); its embedding summed over each bag shows the rule nnbook follows
    table, rows = rng.standard_normal((10, 5)), rng.integers(0, 10, (7, 4))
    w, wt = nb.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    F.embedding_bag(nb.tensor(rows), w, mode="sum", scale_grad_by_freq=True).sum().backward()
    tF.embedding(torch.tensor(rows), wt, scale_grad_by_freq=True).sum(1).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------------------
# The layer
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, dict(mode="max", padding_idx=2, max_norm=1.0),
                                dict(mode="sum", norm_type=1.0, scale_grad_by_freq=True,
                                     include_last_offset=True, padding_idx=-1)])
def test_the_layer_like_pytorch(rng, kw):
    ours = nn.EmbeddingBag(10, 5, dtype=nb.float64, **kw)
    theirs = torch.nn.EmbeddingBag(10, 5, dtype=torch.float64, **kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.padding_idx == theirs.padding_idx
    if ours.padding_idx is not None:
        assert not ours.weight.detach().numpy()[ours.padding_idx].any()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    flat = rng.integers(0, 10, 13)
    offsets = np.append(OFFSETS, 13) if kw.get("include_last_offset") else OFFSETS
    y = ours(nb.tensor(flat), nb.tensor(offsets))
    yt = theirs(torch.tensor(flat), torch.tensor(offsets))
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-6)


def test_from_pretrained_like_pytorch(rng):
    table = rng.standard_normal((10, 5))
    for freeze in (True, False):
        ours = nn.EmbeddingBag.from_pretrained(nb.tensor(table), freeze=freeze, mode="sum")
        theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), freeze=freeze,
                                                       mode="sum")
        assert repr(ours) == repr(theirs)
        assert ours.weight.requires_grad == theirs.weight.requires_grad
        rows = rng.integers(0, 10, (7, 3))
        np.testing.assert_allclose(ours(nb.tensor(rows)).detach().numpy(),
                                   theirs(torch.tensor(rows)).detach().numpy())


def parameters(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


def test_the_names_take_pytorchs_arguments_and_defaults():
    assert parameters(F.embedding_bag) == parameters(tF.embedding_bag)
    assert parameters(nn.EmbeddingBag.__init__) == parameters(torch.nn.EmbeddingBag.__init__)
    assert parameters(nn.EmbeddingBag.forward) == parameters(torch.nn.EmbeddingBag.forward)
    assert parameters(nn.EmbeddingBag.from_pretrained) == \
        parameters(torch.nn.EmbeddingBag.from_pretrained)
    assert "embedding_bag" in F.__all__ and "EmbeddingBag" in nn.__all__


# ---------------------------------------------------------------------------
# Errors where PyTorch raises
# ---------------------------------------------------------------------------

W = np.zeros((10, 3))


@pytest.mark.parametrize("call", [
    lambda F, t: F.embedding_bag(t(np.array([1, 2, 3, 4])), t(W), t(np.array([1, 3]))),
    lambda F, t: F.embedding_bag(t(np.array([1, 2, 3, 4])), t(W), t(np.array([0, 3, 7]))),
    lambda F, t: F.embedding_bag(t(np.array([1, 2, 3, 4])), t(W)),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2], [3, 4]])), t(W), t(np.array([0, 1]))),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2], [3, 4]])), t(W), mode="max",
                                 per_sample_weights=t(np.ones((2, 2)))),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2], [3, 4]])), t(W), mode="sum",
                                 per_sample_weights=t(np.ones(4))),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2], [3, 4]])), t(W), mode="avg"),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2], [3, 12]])), t(W)),
    lambda F, t: F.embedding_bag(t(np.array([[1.0, 2.0]])), t(W)),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2]])), t(W), mode="max",
                                 scale_grad_by_freq=True),
    lambda F, t: F.embedding_bag(t(np.array([1, 2])), t(W), t(np.array([[0, 1]]))),
    lambda F, t: F.embedding_bag(t(np.array([1, 2])), t(W), t(np.array([0, 1])),
                                 padding_idx=10),
    lambda F, t: F.embedding_bag(t(np.array(1)), t(W)),
    lambda F, t: F.embedding_bag(t(np.array([[1, 2]])), t(W[0])),
    lambda F, t: F.embedding_bag(t(np.array([[1, -1]])), t(W)),
])
def test_refused_where_pytorch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(tF, torch.tensor)
    with pytest.raises(NnbookError) as ours:
        call(F, nb.tensor)
    if not isinstance(theirs.value, RuntimeError):  # nnbook's shape and value errors are
        assert isinstance(ours.value, (ValueError, TypeError))  # ValueErrors or TypeErrors
