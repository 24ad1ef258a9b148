"""The transformer layers of PyTorch, with its parameter names, masks and defaults.

An encoder layer (norm_first=False, "post-norm"; True: "pre-norm" x + f(norm(x))):

    x = norm1(x + dropout1(self_attn(x, x, x)))
    x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))

A decoder layer adds attention to the encoder's output (``memory``) between the two.
"""
from __future__ import annotations

import copy

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor, _wrap
from .. import functional as F
from .. import init
from ..module import Module
from ._args import check_device
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .norm import LayerNorm


def _activation(cls: str, activation):
    """'relu' or 'gelu' -> the function; a callable (function or module) as it is."""
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise InputError(message(
        f"activation should be 'relu', 'gelu' or a callable, got {activation!r}.", where=cls,
        hint="activation='gelu', or pass a function such as F.silu or a module nn.SiLU()."))


class _Sublayers(Module):
    """The parts encoder and decoder layers share: the feed-forward block and the norms."""

    def _feed_forward_parts(self, d_model, dim_feedforward, dropout, bias, dtype):
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)

    def _ff_block(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))

    def _attend(self, attn, x, memory, mask, padding, is_causal, dropout):
        return dropout(attn(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                            need_weights=False, is_causal=is_causal)[0])


class TransformerEncoderLayer(_Sublayers):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm (PyTorch's layer: same parameter names, so state dicts load across)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        check_device("TransformerEncoderLayer", device)
        activation = _activation("TransformerEncoderLayer", activation)  # before drawing weights
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self._feed_forward_parts(d_model, dim_feedforward, dropout, bias, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        def attend(x):
            return self._attend(self.self_attn, x, x, src_mask, src_key_padding_mask,
                                is_causal, self.dropout1)
        x = src
        if self.norm_first:
            x = x + attend(self.norm1(x))
            return x + self.dropout2(self._ff_block(self.norm2(x)))
        x = self.norm1(x + attend(x))
        return self.norm2(x + self.dropout2(self._ff_block(x)))


class TransformerDecoderLayer(_Sublayers):
    """Self-attention, attention to the encoder's output (``memory``), a feed-forward block;
    each with a residual connection and a LayerNorm (PyTorch's layer and names)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        check_device("TransformerDecoderLayer", device)
        activation = _activation("TransformerDecoderLayer", activation)  # before drawing weights
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        self._feed_forward_parts(d_model, dim_feedforward, dropout, bias, dtype)
        self.norm_first = norm_first
        self.norm1, self.norm2, self.norm3 = (
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype) for _ in range(3))
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout) for _ in range(3))
        self.activation = activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        def self_block(x):
            return self._attend(self.self_attn, x, x, tgt_mask, tgt_key_padding_mask,
                                tgt_is_causal, self.dropout1)

        def memory_block(x):
            return self._attend(self.multihead_attn, x, memory, memory_mask,
                                memory_key_padding_mask, memory_is_causal, self.dropout2)
        x = tgt
        if self.norm_first:
            x = x + self_block(self.norm1(x))
            x = x + memory_block(self.norm2(x))
            return x + self.dropout3(self._ff_block(self.norm3(x)))
        x = self.norm1(x + self_block(x))
        x = self.norm2(x + memory_block(x))
        return self.norm3(x + self.dropout3(self._ff_block(x)))


def _clones(layer, num_layers):
    """num_layers independent copies (as PyTorch: each starts with the same weights)."""
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


def _is_causal_mask(mask, is_causal, size):
    """PyTorch's detection: is_causal=None and a mask equal to the causal one -> True."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    array = np.asarray(mask)
    blocked = np.triu(np.ones((size, size), bool), k=1)   # True above the diagonal
    if array.shape != blocked.shape:
        return False
    if array.dtype == bool:  # a bool mask: True where attention is blocked
        return bool(np.all(array == blocked))
    return bool(np.all(np.where(blocked, array == -np.inf, array == 0)))


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer``, then ``norm`` if given.
    ``enable_nested_tensor`` and ``mask_check`` are accepted and ignored (no nested tensors)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        length = src.shape[1 if batch_first and src.ndim == 3 else 0]
        is_causal = _is_causal_mask(mask, is_causal, length)
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=is_causal,
                        src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, then ``norm`` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        length = tgt.shape[1 if batch_first and tgt.ndim == 3 else 0]
        tgt_is_causal = _is_causal_mask(tgt_mask, tgt_is_causal, length)
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder stack and a decoder stack (PyTorch's ``nn.Transformer``): every weight
    matrix starts xavier-uniform; ``forward(src, tgt)`` returns the decoder's output."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        check_device("Transformer", device)
        shared = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                      layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                      norm_first=norm_first, bias=bias, dtype=dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **shared), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **shared), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        self._check(src, tgt)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    def _check(self, src, tgt):
        values = f"src {fmt_shape(src.shape)}   tgt {fmt_shape(tgt.shape)}   " \
                 f"d_model={self.d_model}   batch_first={self.batch_first}"
        b = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[b] != tgt.shape[b]:
            swap = src.shape[1 - b] == tgt.shape[1 - b]
            raise ShapeError(message(
                f"src and tgt must have the same batch size (dimension {b}).", values=values,
                hint=f"pass batch_first={not self.batch_first} if your tensors are "
                f"{'(N, T, E)' if b else '(T, N, E)'}." if swap else
                "give one target sequence per source sequence."))
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ShapeError(message(
                f"src and tgt must have d_model={self.d_model} features in their last "
                "dimension.", values=values,
                hint="embed tokens to d_model features first (nn.Embedding(vocab, d_model))."))

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None) -> Tensor:
        """(sz, sz) float mask: 0 where position i may attend to j <= i, -inf above."""
        dtype = np.dtype(dtype or default_float())
        mask = np.triu(np.full((sz, sz), -np.inf, dtype), k=1)
        return _wrap(mask)
