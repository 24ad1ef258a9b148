"""The CTC loss (ops/sequence_losses.py, F.ctc_loss, nn.CTCLoss) without PyTorch: the loss
is minus the log of the brute-force sum over every path that reads as the target, the
gradient passes gradcheck on odd shapes in float64, the alpha and beta recursions agree at
every frame, and the lengths, reductions, zero_infinity and errors do what PyTorch's do."""
import itertools

import numpy as np
import pytest
from shared import changed_in_place_is_caught_or_harmless

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.ops.base import Spec
from nnbook.ops.sequence_losses import (
    CtcLoss,
    alpha_recursion,
    beta_recursion,
    extended_labels,
)
from nnbook.tensor import apply

# T=9 frames, N=3 samples, C=5 classes (0 the blank); targets of 3, 1 and 4 labels with
# repeats that need a blank between them ([2, 2, 3], [4, 3, 4, 4])
T, N, C = 9, 3, 5
TARGETS = np.array([[2, 2, 3, 0], [1, 0, 0, 0], [4, 3, 4, 4]])
INPUT_LENGTHS = np.array([9, 6, 8])
TARGET_LENGTHS = np.array([3, 1, 4])


def log_softmax(x, axis=-1):
    return x - np.logaddexp.reduce(x, axis=axis, keepdims=True)


def collapse(path, blank=0):
    """What a path reads as: repeats merged, then blanks dropped."""
    merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return tuple(k for k in merged if k != blank)


def brute_force_loss(lp, target, blank=0):
    """-log of the sum over all C**T paths that read as ``target``: lp is (T, C)."""
    frames, classes = lp.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=frames):
        if collapse(path, blank) == tuple(target):
            total += np.exp(lp[np.arange(frames), path].sum())
    return -np.log(total) if total > 0 else np.inf


def ctc(lp, targets=TARGETS, input_lengths=INPUT_LENGTHS, target_lengths=TARGET_LENGTHS,
        **kwargs):
    return F.ctc_loss(lp, nb.tensor(targets), nb.tensor(input_lengths),
                      nb.tensor(target_lengths), **kwargs)


@pytest.fixture
def lp(rng):
    return log_softmax(rng.standard_normal((T, N, C)))


# ---------------------------------------------------------------------------
# Values against the brute-force sum
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("target", [(1,), (2, 2), (1, 2), (2, 1, 2), (1, 1, 1), (), (2, 2, 2, 1)])
def test_the_loss_is_minus_the_log_of_the_sum_over_the_paths_that_read_as_the_target(
        rng, target):
    lp = log_softmax(rng.standard_normal((6, 3)))  # 3**6 = 729 paths
    got = F.ctc_loss(nb.tensor(lp), nb.tensor(np.array(target, dtype=np.int64)), (6,),
                     (len(target),), reduction="sum")
    # (2, 2, 2, 1) needs 6 frames with its blanks; with fewer it is impossible: inf
    np.testing.assert_allclose(got.item(), brute_force_loss(lp, target), rtol=1e-12)


def test_a_blank_of_another_index_is_summed_the_same_way(rng):
    lp = log_softmax(rng.standard_normal((6, 3)))
    got = F.ctc_loss(nb.tensor(lp), nb.tensor([0, 0, 1]), (6,), (3,), blank=2, reduction="sum")
    np.testing.assert_allclose(got.item(), brute_force_loss(lp, (0, 0, 1), blank=2), rtol=1e-12)


def test_each_sample_reads_its_own_frames_and_labels(lp):
    losses = ctc(nb.tensor(lp), reduction="none").numpy()
    for n in range(N):
        alone = F.ctc_loss(nb.tensor(lp[:INPUT_LENGTHS[n], n]),
                           nb.tensor(TARGETS[n, :TARGET_LENGTHS[n]]), (int(INPUT_LENGTHS[n]),),
                           (int(TARGET_LENGTHS[n]),), reduction="sum")
        np.testing.assert_allclose(losses[n], alone.item(), rtol=1e-12)
    np.testing.assert_allclose(losses[1], brute_force_loss(lp[:6, 1], (1,)), rtol=1e-12)


def test_a_target_longer_than_its_input_can_hold_costs_inf(lp):
    # [4, 3, 4, 4] needs 5 frames (a blank between the two 4s); [2, 2, 3] needs 4
    losses = ctc(nb.tensor(lp), input_lengths=np.array([3, 6, 4]), reduction="none").numpy()
    assert losses[0] == losses[2] == np.inf and np.isfinite(losses[1])


def test_an_empty_target_costs_the_blank_at_every_frame_and_nothing_for_no_frames(lp):
    losses = ctc(nb.tensor(lp), input_lengths=np.array([9, 0, 0]),
                 target_lengths=np.array([0, 0, 2]), reduction="none").numpy()
    np.testing.assert_allclose(losses[0], -lp[:, 0, 0].sum(), rtol=1e-12)
    assert losses[1] == 0 and losses[2] == np.inf


# ---------------------------------------------------------------------------
# Reductions, zero_infinity, the forms of targets and lengths
# ---------------------------------------------------------------------------

def test_mean_divides_each_loss_by_its_target_length_then_averages(lp):
    lengths = np.array([3, 0, 4])  # a target of length 0 divides by 1
    losses = ctc(nb.tensor(lp), target_lengths=lengths, reduction="none").numpy()
    mean = ctc(nb.tensor(lp), target_lengths=lengths).item()
    np.testing.assert_allclose(mean, (losses / np.maximum(lengths, 1)).mean(), rtol=1e-12)
    np.testing.assert_allclose(ctc(nb.tensor(lp), reduction="sum").item(),
                               ctc(nb.tensor(lp), reduction="none").numpy().sum(), rtol=1e-12)


def test_zero_infinity_zeroes_the_impossible_samples_and_their_gradients(lp):
    short = np.array([3, 6, 8])  # sample 0 cannot fit its target
    x = nb.tensor(lp, requires_grad=True)
    ctc(x, input_lengths=short, reduction="sum").backward()
    assert np.isnan(x.grad.numpy()[:3, 0]).all() and (x.grad.numpy()[3:, 0] == 0).all()
    y = nb.tensor(lp, requires_grad=True)
    zeroed = ctc(y, input_lengths=short, reduction="none", zero_infinity=True)
    assert zeroed.detach().numpy()[0] == 0
    zeroed.sum().backward()
    assert (y.grad.numpy()[:, 0] == 0).all()
    np.testing.assert_allclose(y.grad.numpy()[:, 1:], x.grad.numpy()[:, 1:], rtol=1e-12)


def test_targets_padded_or_one_after_another_and_lengths_of_any_form_agree(lp):
    want = ctc(nb.tensor(lp), reduction="none").numpy()
    concatenated = np.concatenate([TARGETS[n, :TARGET_LENGTHS[n]] for n in range(N)])
    padded_otherwise = np.where(np.arange(4) < TARGET_LENGTHS[:, None], TARGETS, 99)
    for targets, il, tl in [
        (concatenated, (9, 6, 8), (3, 1, 4)),
        (padded_otherwise, [9, 6, 8], [3, 1, 4]),  # the padding is never read
        (TARGETS.astype(np.int32), INPUT_LENGTHS.reshape(3, 1), nb.tensor(TARGET_LENGTHS)),
        (TARGETS.astype(np.float64), INPUT_LENGTHS.astype(np.int32), TARGET_LENGTHS),
    ]:
        got = F.ctc_loss(nb.tensor(lp), targets, il, tl, reduction="none")
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_one_sample_without_a_batch_dimension(lp):
    one = F.ctc_loss(nb.tensor(lp[:, 2]), nb.tensor([4, 3, 4, 4]), nb.tensor(8), nb.tensor(4),
                     reduction="none")
    assert one.shape == ()
    np.testing.assert_allclose(one.item(), ctc(nb.tensor(lp), reduction="none").numpy()[2],
                               rtol=1e-12)


def test_float32_log_probs_give_a_float32_loss_and_gradient(lp):
    x = nb.tensor(lp.astype(np.float32), requires_grad=True)
    loss = ctc(x)
    loss.backward()
    assert loss.dtype == x.grad.dtype == nb.float32
    np.testing.assert_allclose(loss.item(), ctc(nb.tensor(lp)).item(), rtol=1e-5)


def test_the_layer_is_the_function():
    loss = nn.CTCLoss(blank=4, reduction="sum", zero_infinity=True)
    assert repr(loss) == "CTCLoss()"
    assert (loss.blank, loss.reduction, loss.zero_infinity) == (4, "sum", True)
    lp = log_softmax(np.random.default_rng(3).standard_normal((T, N, C)))
    targets = TARGETS % 4  # no 4, the blank; a 0 is a label now
    np.testing.assert_allclose(
        loss(nb.tensor(lp), targets, (9, 6, 8), (3, 1, 4)).item(),
        F.ctc_loss(nb.tensor(lp), targets, (9, 6, 8), (3, 1, 4), blank=4,
                   reduction="sum").item(), rtol=1e-12)


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradcheck_on_odd_shapes(lp, reduction):
    x = nb.tensor(lp, requires_grad=True)
    assert nb.gradcheck(lambda t: ctc(t, reduction=reduction), [x])


def test_gradcheck_of_log_probs_that_are_not_normalised_and_of_one_sample(rng):
    raw = nb.tensor(rng.standard_normal((T, C)), requires_grad=True)
    assert nb.gradcheck(lambda t: F.ctc_loss(t, nb.tensor([2, 2, 3]), (7,), (3,)), [raw])


def test_the_gradient_is_minus_the_share_of_the_paths_through_each_class(lp):
    """For every frame inside a sample's input, the shares sum to 1 over the classes
    (each path shows one class per frame); after it the gradient is 0."""
    x = nb.tensor(lp, requires_grad=True)
    ctc(x, reduction="sum").backward()
    per_frame = x.grad.numpy().sum(axis=2)  # (T, N)
    inside = np.arange(T)[:, None] < INPUT_LENGTHS
    np.testing.assert_allclose(per_frame[inside], -1.0, rtol=1e-12)
    assert (x.grad.numpy()[~inside] == 0).all()


def test_through_log_softmax_the_logits_get_softmax_minus_the_share(rng):
    logits = nb.tensor(rng.standard_normal((T, N, C)), requires_grad=True)
    ctc(F.log_softmax(logits, 2), reduction="sum").backward()
    lp = nb.tensor(log_softmax(logits.detach().numpy()), requires_grad=True)
    ctc(lp, reduction="sum").backward()
    inside = (np.arange(T)[:, None] < INPUT_LENGTHS)[:, :, None]
    want = np.where(inside, np.exp(lp.detach().numpy()) + lp.grad.numpy(), 0)
    np.testing.assert_allclose(logits.grad.numpy(), want, rtol=1e-10, atol=1e-12)


def test_alpha_and_beta_give_the_same_probability_at_every_frame(lp):
    labels = np.where(np.arange(4) < TARGET_LENGTHS[:, None], TARGETS, 0)
    ext, can_skip = extended_labels(labels, 0)
    emit = lp[:, np.arange(N)[:, None], ext]
    states = np.arange(ext.shape[1])
    last = (states == 2 * TARGET_LENGTHS[:, None]) | (states == 2 * TARGET_LENGTHS[:, None] - 1)
    alpha = alpha_recursion(emit, can_skip)
    beta = beta_recursion(emit, can_skip, INPUT_LENGTHS, last)
    through = np.logaddexp.reduce(alpha[1:] + beta, axis=2)  # (T, N): log p at each frame
    losses = ctc(nb.tensor(lp), reduction="none").numpy()
    for n in range(N):
        np.testing.assert_allclose(through[:INPUT_LENGTHS[n], n], -losses[n], rtol=1e-12)


def test_extended_labels_allow_a_skip_only_between_different_labels():
    ext, can_skip = extended_labels(np.array([[2, 2, 3]]), 0)
    assert ext.tolist() == [[0, 2, 0, 2, 0, 3, 0]]
    assert can_skip.tolist() == [[False, False, False, False, False, True, False]]


def test_a_value_changed_in_place_after_the_loss_never_gives_a_wrong_gradient(lp):
    outcomes = changed_in_place_is_caught_or_harmless(
        lambda x: ctc(x, reduction="none"), [lp])
    assert set(outcomes.values()) <= {"refused", "same"}


# ---------------------------------------------------------------------------
# The shape rule and the errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reduction,log_probs,want", [
    ("none", (T, N, C), (N,)), ("mean", (T, N, C), ()), ("none", (T, C), ())])
def test_the_shape_rule_stores_nothing(reduction, log_probs, want):
    op = CtcLoss(reduction=reduction)
    before = dict(vars(op))
    specs = [Spec(log_probs, np.float64), Spec(log_probs[1:-1] + (4,), np.int64),
             Spec(log_probs[1:-1], np.int64), Spec(log_probs[1:-1], np.int64)]
    assert op.infer(*specs) == want
    assert vars(op) == before


WRONG = [
    ("blank in a target", dict(targets=np.array([[2, 0, 3, 0], [1, 0, 0, 0], [4, 3, 4, 4]])),
     InputError, r"sample 0 hold the blank \(class 0\) as label 1.*hint: if your labels count "
     r"from 0, shift them"),
    ("a class the model has not", dict(targets=TARGETS + 1), DimError,
     r"sample 2 hold class 5 as label 0, but log_probs have 5 classes.*C = 6"),
    ("an input length beyond T", dict(input_lengths=np.array([10, 6, 8])), InputError,
     r"input_lengths\[0\] = 10 is not a number of frames from 0 to 9"),
    ("a negative target length", dict(target_lengths=np.array([3, -1, 4])), InputError,
     r"target_lengths\[1\] = -1 is negative"),
    ("a target length beyond the padding", dict(target_lengths=np.array([3, 1, 5])),
     InputError, r"target_lengths\[2\] = 5 is more than the 4 labels a row"),
    ("too few input lengths", dict(input_lengths=np.array([9, 6])), ShapeError,
     r"input_lengths must hold one length per sample, 3, got 2"),
    ("float lengths", dict(target_lengths=np.array([3.0, 1, 4])), DTypeError,
     r"target_lengths must hold integers, got float64"),
    ("a target row too many", dict(targets=np.zeros((4, 4), np.int64)), ShapeError,
     r"targets must have one row per sample, 3, got 4"),
    ("labels one after another that do not add up", dict(targets=np.array([2, 2, 3, 1, 4])),
     ShapeError, r"targets hold 5 labels one after another, but target_lengths add up to 8"),
]


@pytest.mark.parametrize("case,kwargs,error,match", WRONG, ids=[w[0] for w in WRONG])
def test_wrong_targets_and_lengths_raise_nnbook_errors(lp, case, kwargs, error, match):
    with pytest.raises(error, match=f"(?s)^ctc_loss: .*{match}") as caught:
        ctc(nb.tensor(lp), **kwargs)
    assert type(caught.value) is error


@pytest.mark.parametrize("log_probs,blank,error,match", [
    (np.zeros((T, N, C), np.int64), 0, DTypeError, r"float32 or float64 log_probs, got int64"),
    (np.zeros((1, T, N, C)), 0, DimError, r"log_probs of shape \(T, N, C\) or \(T, C\), got 4-D"),
    (np.zeros((0, N, C)), 0, ShapeError, r"log_probs must not be empty, got \(0, 3, 5\)"),
    (np.zeros((T, N, C)), 5, InputError, r"blank=5 is not a class of log_probs with 5 classes"),
    (np.zeros((N, T, C)), 0, ShapeError, r"one length per sample, 9, got 3(?s:.*)look "
     r"batch-first \(N, T, C\).*log_probs\.transpose\(0, 1\)"),
])
def test_wrong_log_probs_raise_nnbook_errors(log_probs, blank, error, match):
    with pytest.raises(error, match=match) as caught:
        ctc(nb.tensor(log_probs), blank=blank)
    assert type(caught.value) is error


@pytest.mark.parametrize("build,error,match", [
    (lambda: CtcLoss(blank=1.0), ArgumentError, r"blank must be an int, got 1\.0"),
    (lambda: CtcLoss(blank=-1), InputError, r"blank=-1 must be a class index >= 0"),
    (lambda: CtcLoss(reduction="avg"), InputError, r"reduction='avg' is not one of"),
    (lambda: nn.CTCLoss(blank=True), ArgumentError, r"^CTCLoss: blank must be an int"),
    (lambda: nn.CTCLoss(reduction="batchmean"), InputError, r"^CTCLoss: reduction="),
])
def test_bad_arguments_are_refused_when_the_op_or_layer_is_built(build, error, match):
    with pytest.raises(error, match=match):
        build()


@pytest.mark.parametrize("lengths,match", [
    (9, r"input_lengths must be a tensor or a tuple of ints, got the number 9"),
    ((9.0,), r"input_lengths must hold ints, got \(9\.0,\)"),
])
def test_lengths_that_are_neither_tensors_nor_tuples_of_ints_are_refused(lp, lengths, match):
    with pytest.raises(DTypeError, match=match):
        F.ctc_loss(nb.tensor(lp[:, 0]), nb.tensor([2, 2, 3]), lengths, (3,))


def test_the_op_runs_through_apply_with_every_input_checked(lp):
    op = CtcLoss(reduction="sum")
    loss = apply(op, nb.tensor(lp), nb.tensor(TARGETS), nb.tensor(INPUT_LENGTHS),
                 nb.tensor(TARGET_LENGTHS))
    np.testing.assert_allclose(loss.item(), ctc(nb.tensor(lp), reduction="sum").item())
