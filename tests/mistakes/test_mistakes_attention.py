"""Mistakes with attention and transformer layers.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, ShapeError


class Encoder(nn.Module):
    """Embeddings (N, T, E) into attention built time-first (batch_first left False)."""

    def __init__(self, batch_first=False, kdim=None):
        super().__init__()
        self.attn = nn.MultiheadAttention(10, 2, batch_first=batch_first, kdim=kdim)

    def forward(self, x, memory, **masks):
        return self.attn(x, memory, memory, **masks)[0]


def model_and_inputs(batch_first=False, kdim=None, q=(7, 3, 10), kv=(5, 3, 10)):
    return Encoder(batch_first, kdim), nb.randn(*q), nb.randn(*kv)


MISTAKES = [
    mistake("heads that do not divide the embedding", None,
            lambda: nn.MultiheadAttention(10, 3),
            InputError, "MultiheadAttention", r"embed_dim must be divisible by num_heads.*"
            r"embed_dim=10   num_heads=3", r"divisors of 10: 1, 2, 5, 10"),
    mistake("keys with another width than kdim",
            lambda: model_and_inputs(kdim=4), lambda s: s[0](s[1], s[2]),
            ShapeError, "attn (MultiheadAttention)", r"key with 4 features \(kdim\).*got 10",
            r"kdim=10", also=Encoder.forward),
    mistake("batch-first tensors into a time-first layer",
            lambda: model_and_inputs(q=(3, 7, 10), kv=(3, 5, 10)), lambda s: s[0](s[1], s[2]),
            ShapeError, "attn (MultiheadAttention)", r"disagree on the batch size.*"
            r"query \(3, 7, 10\)   key \(3, 5, 10\)", r"batch_first=True", also=Encoder.forward),
    mistake("a time-first memory with batch-first queries",
            lambda: model_and_inputs(batch_first=True, q=(3, 7, 10), kv=(5, 3, 10)),
            lambda s: s[0](s[1], s[2]),
            ShapeError, "attn (MultiheadAttention)", r"disagree on the batch size",
            r"key and value look like \(L, N, E\), time first.*transpose\(0, 1\)",
            also=Encoder.forward),
    mistake("an attention mask for the wrong lengths",
            lambda: model_and_inputs(), lambda s: s[0](s[1], s[2], attn_mask=nb.zeros(5, 7)),
            ShapeError, "attn (MultiheadAttention)", r"attn_mask must have shape \(L, S\).*"
            r"= \(7, 5\) or \(6, 7, 5\), got \(5, 7\)", r"L is the query length",
            also=Encoder.forward),
    mistake("a padding mask as (S, N)",
            lambda: model_and_inputs(),
            lambda s: s[0](s[1], s[2], key_padding_mask=nb.zeros(5, 3).bool()),
            ShapeError, "attn (MultiheadAttention)", r"key_padding_mask must have shape "
            r"\(N, S\) = \(3, 5\), got \(5, 3\)", r"give key_padding_mask as \(N, S\)",
            also=Encoder.forward),
    mistake("is_causal without the mask",
            lambda: model_and_inputs(), lambda s: s[0](s[1], s[2], is_causal=True),
            InputError, "attn (MultiheadAttention)", r"needs the causal attn_mask",
            r"generate_square_subsequent_mask\(7\)", also=Encoder.forward),
    mistake("an unknown activation name", None,
            lambda: nn.TransformerEncoderLayer(10, 2, activation="swish"),
            InputError, "TransformerEncoderLayer", r"'relu', 'gelu' or a callable, got 'swish'",
            r"nn\.SiLU\(\)"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
