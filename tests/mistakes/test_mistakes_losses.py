"""Mistakes with the margin and likelihood losses: class indices where 0/1 targets are
wanted and the other way round, one-hot labels, labels counted from 1, a variance that can
go negative or has the wrong shape, scores with an extra dimension; bags of
embeddings without offsets, with the bags' lengths as offsets, or with float token ids; CTC
with labels counted from the blank's 0, batch-first log-probabilities, or lengths of the raw
input or as floats; and an adaptive softmax with n_classes among its cutoffs, a language
model's (B, T, H) batch, or a class beyond n_classes.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import numpy as np
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F


def scores_and_labels():
    return nb.randn(5, 3), nb.tensor([0, 2, 1, 1, 0])


def scores_and_one_hot():
    return nb.randn(5, 3), nb.tensor(np.eye(3, dtype=np.int64)[[0, 2, 1, 1, 0]])


def scores_and_multi_hot():
    return nb.randn(5, 3), nb.tensor([[1.0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1]])


def regression():
    """A mean and a raw (unconstrained) variance head, and targets."""
    head = nn.Linear(4, 2)
    out = head(nb.randn(5, 4))
    return head, out[:, 0], out[:, 1] - 10, nb.randn(5)


MISTAKES = [
    mistake("multi_margin_loss with one-hot labels", scores_and_one_hot,
            lambda sl: F.multi_margin_loss(sl[0], sl[1]),
            ShapeError, "multi_margin_loss", r"target of shape \(5,\).*got \(5, 3\)",
            r"one-hot.*target\.argmax\(1\)"),
    mistake("MultiMarginLoss with float labels",
            lambda: (nn.MultiMarginLoss(), nb.randn(5, 3), nb.tensor([0.0, 2, 1, 1, 0])),
            lambda s: s[0](s[1], s[2]),
            DTypeError, "MultiMarginLoss, in multi_margin_loss",
            r"class indices as integers, got float32", r"target\.long\(\)"),
    mistake("multi_margin_loss with labels that count from 1",
            lambda: (nb.randn(5, 3), nb.tensor([1, 2, 3, 1, 2])),
            lambda sl: F.multi_margin_loss(sl[0], sl[1]),
            DimError, "multi_margin_loss", r"target value 3 at position 2 is out of range "
            r"for 3 classes", r"count from 1; use target - 1"),
    mistake("multilabel_margin_loss with 0/1 targets", scores_and_multi_hot,
            lambda st: F.multilabel_margin_loss(st[0], st[1]),
            DTypeError, "multilabel_margin_loss", r"class indices as integers, ended by -1, "
            r"got float32", r"0/1 targets.*F\.multilabel_soft_margin_loss"),
    mistake("multilabel_margin_loss with one label per sample", scores_and_labels,
            lambda sl: F.multilabel_margin_loss(sl[0], sl[1]),
            ShapeError, "multilabel_margin_loss", r"input's shape \(5, 3\), got \(5,\)",
            r"one class per sample is multi_margin_loss"),
    mistake("multilabel_soft_margin_loss with class indices", scores_and_labels,
            lambda sl: F.multilabel_soft_margin_loss(sl[0], sl[1]),
            ShapeError, "F.multilabel_soft_margin_loss", r"input's shape \(5, 3\), got \(5,\)",
            r"F\.one_hot\(target, 3\)\.float\(\)"),
    mistake("MultiLabelSoftMarginLoss with class indices",
            lambda: (nn.MultiLabelSoftMarginLoss(), *scores_and_labels()),
            lambda s: s[0](s[1], s[2]),
            ShapeError, "MultiLabelSoftMarginLoss, in F.multilabel_soft_margin_loss",
            r"got \(5,\)", r"F\.one_hot"),
    mistake("soft_margin_loss of (N, 1) scores against (N,) labels",
            lambda: (nb.randn(5, 1), nb.tensor([1.0, -1, 1, 1, -1])),
            lambda sl: F.soft_margin_loss(sl[0], sl[1]),
            ShapeError, "F.soft_margin_loss", r"same shape, got \(5, 1\) and \(5,\).*\(5, 5\)",
            r"input\.squeeze\(-1\)"),
    mistake("gaussian_nll_loss with a raw variance that went negative", regression,
            lambda r: F.gaussian_nll_loss(r[1], r[3], r[2]),
            InputError, "F.gaussian_nll_loss", r"var has negative entry/entries",
            r"F\.softplus or \.exp\(\)"),
    mistake("GaussianNLLLoss with one variance per feature for a batch",
            lambda: (nn.GaussianNLLLoss(), nb.randn(5, 3), nb.randn(5, 3), nb.ones(5, 3)[0]),
            lambda s: s[0](s[1], s[2], s[3]),
            ShapeError, "GaussianNLLLoss, in F.gaussian_nll_loss",
            r"var is of incorrect size: \(3,\) for an input of shape \(5, 3\)",
            r"without its last dimension \(5,\), or with 1 in one dimension"),
    mistake("poisson_nll_loss of integer scores",
            lambda: (nb.tensor([0, 1, 2]), nb.tensor([1, 0, 3])),
            lambda xt: F.poisson_nll_loss(xt[0], xt[1]),
            DTypeError, "F.poisson_nll_loss", r"floating point input, got int64",
            r"input\.float\(\)"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)


# -- bags of embeddings ------------------------------------------------------------------

def bag_and_tokens():
    """Three sentences of 3, 2 and 4 tokens, one after another."""
    return nn.EmbeddingBag(10, 4), nb.tensor([1, 5, 2, 7, 7, 3, 0, 9, 4])


EMBEDDING_BAGS = [
    mistake("EmbeddingBag on a 1-D batch without offsets", bag_and_tokens,
            lambda bt: bt[0](bt[1]),
            InputError, "EmbeddingBag, in embedding_bag", r"a 1-D input needs offsets",
            r"offsets\[b\] is where bag b starts"),
    mistake("EmbeddingBag given the bags' lengths as offsets", bag_and_tokens,
            lambda bt: bt[0](bt[1], nb.tensor([3, 2, 4])),
            InputError, "EmbeddingBag, in embedding_bag", r"offsets\[0\] must be 0.*got 3",
            r"offsets = lengths\.cumsum\(0\) - lengths"),
    mistake("EmbeddingBag weighting the indices in mean mode", bag_and_tokens,
            lambda bt: bt[0](bt[1], nb.tensor([0, 3, 5]), per_sample_weights=nb.ones(9)),
            InputError, "EmbeddingBag, in embedding_bag",
            r"per_sample_weights are only supported for mode='sum', got mode='mean'",
            r"mode='sum'"),
    mistake("EmbeddingBag on float token ids",
            lambda: (nn.EmbeddingBag(10, 4), nb.tensor([[1.0, 5.0], [2.0, 7.0]])),
            lambda bt: bt[0](bt[1]),
            DTypeError, "EmbeddingBag, in embedding_bag", r"integer indices as input, got "
            r"dtype float32", r"input\.long\(\)"),
]


@pytest.mark.parametrize("m", EMBEDDING_BAGS)
def test_embedding_bag_mistake(m, tmp_path):
    check(m, tmp_path)


# -- sequences: CTC, and the adaptive softmax of large vocabularies ----------------------

def speech_batch():
    """9 frames of 3 utterances over 5 classes (class 0 the blank), and their lengths."""
    log_probs = nb.randn(9, 3, 5).log_softmax(2)
    return log_probs, nb.tensor([9, 7, 9]), nb.tensor([3, 1, 4])


def adaptive_softmax_and_a_language_model_batch():
    """Hidden states of 4 sequences of 6 tokens (B, T, H), and the next tokens (B, T)."""
    return (nn.AdaptiveLogSoftmaxWithLoss(16, 100, [10, 40]), nb.randn(4, 6, 16),
            nb.randint(0, 100, (4, 6)))


SEQUENCES = [
    mistake("ctc_loss with labels that count from 0, the blank's index", speech_batch,
            lambda s: F.ctc_loss(s[0], nb.tensor([[0, 2, 3, 0], [1, 0, 0, 0], [3, 2, 3, 3]]),
                                 s[1], s[2]),
            InputError, "ctc_loss", r"sample 0 hold the blank \(class 0\) as label 0",
            r"shift them: targets \+ 1.*blank=C - 1"),
    mistake("CTCLoss on batch-first log-probabilities", speech_batch,
            lambda s: nn.CTCLoss()(s[0].transpose(0, 1), nb.tensor([[2, 2, 3, 0], [1, 0, 0, 0],
                                                                    [4, 3, 4, 4]]), s[1], s[2]),
            ShapeError, "CTCLoss, in ctc_loss",
            r"input_lengths must hold one length per sample, 9, got 3",
            r"batch-first \(N, T, C\).*log_probs\.transpose\(0, 1\)"),
    mistake("ctc_loss with the raw input's length instead of the model's frames", speech_batch,
            lambda s: F.ctc_loss(s[0], nb.tensor([2, 2, 3, 1, 4, 3, 4, 4]),
                                 nb.tensor([36, 28, 36]), s[2]),
            InputError, "ctc_loss", r"input_lengths\[0\] = 36 is not a number of frames from "
            r"0 to 9", r"after a strided convolution or a pooling, count its output steps"),
    mistake("ctc_loss with lengths computed as floats", speech_batch,
            lambda s: F.ctc_loss(s[0], nb.tensor([2, 2, 3, 1, 4, 3, 4, 4]), s[1] / 1, s[2]),
            DTypeError, "ctc_loss", r"input_lengths must hold integers, got float32",
            r"lengths\.long\(\)"),
    mistake("AdaptiveLogSoftmaxWithLoss with n_classes among its cutoffs", None,
            lambda: nn.AdaptiveLogSoftmaxWithLoss(16, 100, [10, 40, 100]),
            InputError, "AdaptiveLogSoftmaxWithLoss", r"each from 1 to n_classes - 1 = 99; "
            r"got \[10, 40, 100\]", r"leave n_classes out.*cutoffs=\[10, 40\]"),
    mistake("AdaptiveLogSoftmaxWithLoss on a language model's (B, T, H) hidden states",
            adaptive_softmax_and_a_language_model_batch, lambda s: s[0](s[1], s[2]),
            ShapeError, "AdaptiveLogSoftmaxWithLoss", r"0-D or 1-D target.*got 2-D",
            r"input\.reshape\(-1, 16\), target\.reshape\(-1\)"),
    mistake("AdaptiveLogSoftmaxWithLoss with a class beyond n_classes",
            adaptive_softmax_and_a_language_model_batch,
            lambda s: s[0](s[1][0], nb.tensor([3, 99, 100, 7, 0, 12])),
            DimError, "AdaptiveLogSoftmaxWithLoss", r"target values should be in \[0, 99\], "
            r"but values in \[0, 100\] were found", r"n_classes must exceed the largest class"),
    mistake("AdaptiveLogSoftmaxWithLoss after a layer of another width",
            adaptive_softmax_and_a_language_model_batch,
            lambda s: s[0](s[1][0, :, :12], nb.tensor([3, 9, 10, 7, 0, 12])),
            ShapeError, "AdaptiveLogSoftmaxWithLoss", r"16 features in its last dimension, "
            r"got 12", r"make it output 16.*AdaptiveLogSoftmaxWithLoss\(12, 100, \[10, 40\]\)"),
]


@pytest.mark.parametrize("m", SEQUENCES)
def test_sequence_loss_mistake(m, tmp_path):
    check(m, tmp_path)
