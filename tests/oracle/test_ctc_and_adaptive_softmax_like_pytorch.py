"""F.ctc_loss, nn.CTCLoss and nn.AdaptiveLogSoftmaxWithLoss against PyTorch in float64 (and
float32): CTC's losses for every reduction with and without zero_infinity, on odd sizes
(T=9, N=3, C=5, target lengths 1 to 4 with repeated labels), padded and concatenated
targets, lengths as tensors and tuples, one sample without a batch, the gradients of the
logits through log_softmax, the gradient of log_probs themselves (the listed difference),
and errors where PyTorch raises; the adaptive softmax with PyTorch's weights loaded by
state_dict: output, loss, log_prob, predict and every gradient.  (The oracle: required in
CI, skipped without torch locally.)"""
import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tF = torch.nn.functional

from like_pytorch import assert_same, outcome, same_failure  # noqa: E402

import nnbook as nb  # noqa: E402
from nnbook import nn  # noqa: E402
from nnbook.errors import InputError  # noqa: E402
from nnbook.nn import functional as F  # noqa: E402

T, N, C = 9, 3, 5
TARGETS = np.array([[2, 2, 3, 0], [1, 0, 0, 0], [4, 3, 4, 4]])
TARGET_LENGTHS = np.array([3, 1, 4])
REDUCTIONS = ["none", "mean", "sum"]


def both(fn, *arrays, **kwargs):
    """fn(...) in nnbook and in PyTorch, numpy arrays made tensors of each library."""
    def run(lib, f):
        return f(*[lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays],
                 **kwargs)
    return outcome(lambda: run(nb, fn[0])), outcome(lambda: run(torch, fn[1]))


CTC = (F.ctc_loss, tF.ctc_loss)


def arguments(fn):
    """The names and defaults of a function's or a class' arguments."""
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("input_lengths", [(9, 6, 8), (9, 4, 4), (0, 9, 5), (1, 1, 1)],
                         ids=["fit", "too-short", "empty-input", "one-frame"])
def test_ctc_loss_and_the_logits_gradient_like_pytorch(rng, reduction, zero_infinity,
                                                       input_lengths):
    logits = rng.standard_normal((T, N, C))
    lengths = np.array(input_lengths)
    ours = nb.tensor(logits, requires_grad=True)
    theirs = torch.tensor(logits, requires_grad=True)
    kw = dict(reduction=reduction, zero_infinity=zero_infinity)
    loss = F.ctc_loss(F.log_softmax(ours, 2), nb.tensor(TARGETS), nb.tensor(lengths),
                      nb.tensor(TARGET_LENGTHS), **kw)
    want = tF.ctc_loss(tF.log_softmax(theirs, 2), torch.tensor(TARGETS), torch.tensor(lengths),
                       torch.tensor(TARGET_LENGTHS), **kw)
    assert_same(loss, want, "ctc_loss")
    r = rng.standard_normal(loss.shape)
    loss.backward(nb.tensor(r))
    want.backward(torch.tensor(r))
    assert_same(ours.grad, theirs.grad, "the logits' gradient", tol=1e-10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_the_gradient_of_log_probs_themselves_lacks_pytorchs_exp_term(rng, reduction):
    """PyTorch returns exp(lp) - share, the gradient of ctc_loss(log_softmax(lp)) at a lp
    that is already normalised; nnbook the derivative of what it computed, -share (a
    Difference in nnbook/compat.py).  Through log_softmax both give the same."""
    lengths = np.array([9, 6, 8])
    for lp in (rng.standard_normal((T, N, C)),  # not normalised
               tF.log_softmax(torch.tensor(rng.standard_normal((T, N, C))), 2).numpy()):
        ours, theirs = nb.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
        loss = F.ctc_loss(ours, TARGETS, tuple(lengths), tuple(TARGET_LENGTHS),
                          reduction=reduction)
        want = tF.ctc_loss(theirs, torch.tensor(TARGETS), tuple(lengths),
                           tuple(TARGET_LENGTHS), reduction=reduction)
        assert_same(loss, want, "ctc_loss")
        loss.sum().backward()
        want.sum().backward()
        scale = {"none": 1.0, "sum": 1.0, "mean": 1 / (N * TARGET_LENGTHS)}[reduction]
        inside = (np.arange(T)[:, None] < lengths)[:, :, None]
        exp_term = np.where(inside, np.exp(lp) * np.reshape(scale, (1, -1, 1)), 0)
        assert_same(ours.grad.numpy() + exp_term, theirs.grad, "log_probs' gradient",
                    tol=1e-10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_targets_one_after_another_tuples_one_sample_and_float32_like_pytorch(rng, reduction):
    lp = tF.log_softmax(torch.tensor(rng.standard_normal((T, N, C))), 2).numpy()
    flat = np.array([2, 2, 3, 1, 4, 3, 4, 4])
    cases = [
        (lp, flat, (9, 6, 8), (3, 1, 4)),
        (lp, TARGETS.astype(np.int32), [9, 6, 8], [3, 1, 4]),
        (lp.astype(np.float32), TARGETS, np.array([9, 6, 8]), np.array([3, 1, 4])),
        (lp[:, 2], np.array([4, 3, 4, 4]), np.array(8), np.array(4)),
        (lp[:, 2], np.array([[4, 3, 4, 4]]), (8,), (4,)),
        (lp, np.zeros((N, 0), np.int64), (9, 6, 8), (0, 0, 0)),
    ]
    for i, args in enumerate(cases):
        (ours, error), (theirs, torch_error) = both(CTC, *args, reduction=reduction)
        assert error is None and torch_error is None, (error, torch_error)
        assert_same(ours, theirs, f"case {i}")


def test_the_layer_like_pytorchs(rng):
    assert repr(nn.CTCLoss(blank=2)) == repr(torch.nn.CTCLoss(blank=2)) == "CTCLoss()"
    assert arguments(nn.CTCLoss) == arguments(torch.nn.CTCLoss)
    assert arguments(F.ctc_loss) == arguments(tF.ctc_loss)
    for name in ("blank", "reduction", "zero_infinity"):
        assert getattr(nn.CTCLoss(3, "sum", True), name) == \
            getattr(torch.nn.CTCLoss(3, "sum", True), name)
    lp = tF.log_softmax(torch.tensor(rng.standard_normal((T, N, C))), 2).numpy()
    targets = TARGETS % 4 + 0  # class 4 the blank
    ours = nn.CTCLoss(blank=4, reduction="sum")(nb.tensor(lp), targets, (9, 6, 8), (3, 1, 4))
    theirs = torch.nn.CTCLoss(blank=4, reduction="sum")(
        torch.tensor(lp), torch.tensor(targets), (9, 6, 8), (3, 1, 4))
    assert_same(ours, theirs, "CTCLoss(blank=4)")


WRONG = {  # what PyTorch refuses: nnbook refuses too, with the builtin class PyTorch's has
    "an input length beyond T": (TARGETS, (10, 6, 8), (3, 1, 4), {}),
    "a negative input length": (TARGETS, (9, -1, 8), (3, 1, 4), {}),
    "a negative target length": (TARGETS, (9, 6, 8), (3, -1, 4), {}),
    "a target length beyond the padding": (TARGETS, (9, 6, 8), (3, 1, 5), {}),
    "one input length too few": (TARGETS, (9, 6), (3, 1, 4), {}),
    "one target length too many": (TARGETS, (9, 6, 8), (3, 1, 4, 1), {}),
    "a target row too many": (np.zeros((4, 4), np.int64), (9, 6, 8), (3, 1, 4), {}),
    "3-D targets": (TARGETS[None], (9, 6, 8), (3, 1, 4), {}),
    "labels that do not add up": (np.array([2, 2, 3, 1]), (9, 6, 8), (3, 1, 4), {}),
    "float lengths": (TARGETS, np.array([9.0, 6, 8]), (3, 1, 4), {}),
    "boolean lengths": (TARGETS, (9, 6, 8), np.array([True, True, True]), {}),
    "a blank beyond the classes": (TARGETS, (9, 6, 8), (3, 1, 4), {"blank": 5}),
    "a negative blank": (TARGETS, (9, 6, 8), (3, 1, 4), {"blank": -1}),
    "a float blank": (TARGETS, (9, 6, 8), (3, 1, 4), {"blank": 1.0}),
    "an unknown reduction": (TARGETS, (9, 6, 8), (3, 1, 4), {"reduction": "avg"}),
    "a number as the lengths": (TARGETS[2, :4], 8, 4, {}),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_ctc_loss_refuses_what_pytorch_refuses(rng, case):
    targets, il, tl, kwargs = WRONG[case]
    lp = rng.standard_normal((T, C) if case == "a number as the lengths" else (T, N, C))
    (_, error), (_, torch_error) = both(CTC, lp, targets, il, tl, **kwargs)
    assert same_failure(error, torch_error, case)


@pytest.mark.parametrize("log_probs", [np.zeros((T, N, C), np.int64), np.zeros((T, N, C, 1)),
                                       np.zeros(T), np.zeros((0, N, C)), np.zeros((T, 0, C))],
                         ids=["int64", "4-D", "1-D", "no frames", "no samples"])
def test_ctc_loss_refuses_the_log_probs_pytorch_refuses(log_probs):
    n = log_probs.shape[1] if log_probs.ndim > 1 else 1
    lengths = (1,) * n
    (_, error), (_, torch_error) = both(CTC, log_probs, np.ones((n, 1), np.int64), lengths,
                                        lengths)
    assert same_failure(error, torch_error, "log_probs")


def test_a_blank_inside_a_target_is_refused_where_pytorch_computes(rng):
    """A listed difference: PyTorch sums paths that read as a target holding the blank."""
    lp = tF.log_softmax(torch.tensor(rng.standard_normal((T, N, C))), 2).numpy()
    targets = np.array([[2, 0, 3, 0], [1, 0, 0, 0], [4, 3, 4, 4]])
    (_, error), (theirs, torch_error) = both(CTC, lp, targets, (9, 6, 8), (3, 1, 4))
    assert torch_error is None and np.isfinite(theirs.item())
    assert isinstance(error, InputError) and "hold the blank" in str(error)


# ---------------------------------------------------------------------------
# AdaptiveLogSoftmaxWithLoss
# ---------------------------------------------------------------------------

IN, CLASSES = 13, 23


def pair(cutoffs=(4, 9, 15), **kwargs):
    """The layer in nnbook and in PyTorch, float64, with PyTorch's weights loaded.  (With
    13 features a div_value of 4 leaves the second cluster's projection 0 features wide,
    which PyTorch warns about; 2 keeps every projection at least 1 wide.)"""
    kwargs.setdefault("div_value", 2.0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, list(cutoffs), **kwargs).double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, list(cutoffs), **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: nb.tensor(v.numpy().copy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def test_adaptive_softmax_names_sizes_repr_and_signature_like_pytorchs():
    ours, theirs = pair(head_bias=True)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    for name in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias",
                 "shortlist_size", "n_clusters", "head_size"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert arguments(nn.AdaptiveLogSoftmaxWithLoss) == \
        arguments(torch.nn.AdaptiveLogSoftmaxWithLoss)
    for method in ("forward", "log_prob", "predict"):
        assert [name for name, _ in arguments(getattr(nn.AdaptiveLogSoftmaxWithLoss, method))] \
            == [name.rstrip("_") for name, _ in
                arguments(getattr(torch.nn.AdaptiveLogSoftmaxWithLoss, method))]


@pytest.mark.parametrize("cutoffs,kwargs", [((4, 9, 15), dict(head_bias=True)),
                                            ((5,), dict(div_value=4.0)),
                                            ((1, 2, 20), dict(div_value=1.5))])
def test_adaptive_softmax_forward_log_prob_and_gradients_like_pytorch(rng, cutoffs, kwargs):
    ours, theirs = pair(cutoffs, **kwargs)
    x = rng.standard_normal((11, IN))
    target = rng.integers(0, CLASSES, 11)
    target[:3] = [0, CLASSES - 1, cutoffs[0]]
    a, b = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, loss = ours(a, nb.tensor(target))
    tout, tloss = theirs(b, torch.tensor(target))
    assert_same(out, tout, "output")
    assert_same(loss, tloss, "loss")
    r = rng.standard_normal(11)
    ((out * nb.tensor(r)).sum() + loss).backward()
    ((tout * torch.tensor(r)).sum() + tloss).backward()
    assert_same(a.grad, b.grad, "the input's gradient", tol=1e-10)
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_same(p.grad, tp.grad, name, tol=1e-10)
    assert_same(ours.log_prob(a), theirs.log_prob(b), "log_prob")


def test_adaptive_softmax_predict_and_one_sample_like_pytorch(rng):
    ours, theirs = pair(head_bias=True)
    with torch.no_grad():  # the cluster tokens win some rows, the shortlist others
        theirs.head.bias[4:] = torch.tensor(3.0 * rng.standard_normal(3))
    ours.load_state_dict({k: nb.tensor(v.numpy().copy()) for k, v in
                          theirs.state_dict().items()})
    x = rng.standard_normal((17, IN))
    assert_same(ours.predict(nb.tensor(x)), theirs.predict(torch.tensor(x)), "predict")
    out, loss = ours(nb.tensor(x[3]), nb.tensor(np.int64(12)))
    tout, tloss = theirs(torch.tensor(x[3]), torch.tensor(12))
    assert_same(out, tout, "one sample's output")
    assert_same(loss, tloss, "one sample's loss")
    out, loss = ours(nb.tensor(x[:0]), nb.tensor(np.zeros(0, np.int64)))  # an empty batch
    tout, tloss = theirs(torch.tensor(x[:0]), torch.zeros(0, dtype=torch.int64))
    assert_same(out, tout, "an empty batch's output")
    assert_same(loss, tloss, "an empty batch's loss")


@pytest.mark.parametrize("case,x_shape,target", [
    ("a class too many", (5, IN), [0, 1, 2, 3, CLASSES]),
    ("a negative class", (5, IN), [0, -1, 2, 3, 4]),
    ("fewer targets than rows", (5, IN), [0, 1, 2]),
    ("a target per position", (5, 2, IN), [[0, 1]] * 5),
    ("a 3-D input", (5, 2, IN), [0, 1, 2, 3, 4]),
    ("a batch with a 0-D target", (5, IN), 3),
    ("too few features", (5, IN - 1), [0, 1, 2, 3, 4]),
])
def test_adaptive_softmax_refuses_what_pytorch_refuses(case, x_shape, target):
    ours, theirs = pair()
    x = np.zeros(x_shape)
    (_, error), (_, torch_error) = both((ours, theirs), x, np.array(target))
    assert same_failure(error, torch_error, case)


@pytest.mark.parametrize("cutoffs", [[4, 9, 23], [9, 4], [0, 4], [4, 4], []])
def test_adaptive_softmax_refuses_the_cutoffs_pytorch_refuses(cutoffs):
    (_, error), (_, torch_error) = both(
        (nn.AdaptiveLogSoftmaxWithLoss, torch.nn.AdaptiveLogSoftmaxWithLoss), IN, CLASSES,
        cutoffs)
    assert same_failure(error, torch_error, f"cutoffs={cutoffs}")
