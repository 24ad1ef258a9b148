"""Embedding: a table of learned vectors, one row per index (a word, a class, a token)."""
from __future__ import annotations

import numpy as np

from ...context import no_grad
from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int


class Embedding(Module):
    """Look up row ``i`` of ``weight`` (num_embeddings, embedding_dim) for each index ``i``:
    input of any shape (*) of integers -> output (*, embedding_dim).

    Initialised like PyTorch: weight ~ N(0, 1), and the ``padding_idx`` row (if given) is
    zeros and never learns.  ``max_norm`` rescales looked-up rows longer than it, in place.
    ``Embedding.from_pretrained(table)`` starts from given vectors (frozen by default).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight=None,
                 _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim, self.padding_idx, self.weight = _table(
            "Embedding", num_embeddings, embedding_dim, padding_idx, sparse, _weight, _freeze,
            device, dtype)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: the lookup, in shapes (its op alone shows no formula)."""
        if not input_shapes:
            return []
        x, table = tuple(input_shapes[0]), fmt_shape(self.weight.shape)
        return ["(*) -> (*, D): for each index i, row i of weight (V, D)",
                f"= {fmt_shape(x)} -> {fmt_shape(x + (self.embedding_dim,))}, rows of {table}"]

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        return text

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, sparse: bool = False):
        """An Embedding whose table is ``embeddings`` (num_embeddings, embedding_dim), shared,
        not copied; ``freeze=True`` keeps it from learning."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise InputError(message(
                "embeddings must be a 2-D Tensor (num_embeddings, embedding_dim), got "
                f"{_describe(embeddings)}.", where="Embedding.from_pretrained",
                hint="pass the table as nb.tensor(vectors), one row per index."))
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


def _table(cls: str, num_embeddings, embedding_dim, padding_idx, sparse, _weight, freeze,
           device, dtype):
    """The arguments Embedding and EmbeddingBag share, checked: (num_embeddings,
    embedding_dim, padding_idx counted from 0, the weight Parameter, not yet initialised)."""
    check_device(cls, device)
    num_embeddings = positive_int(cls, "num_embeddings", num_embeddings)
    embedding_dim = positive_int(cls, "embedding_dim", embedding_dim)
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise InputError(message(
                f"padding_idx={padding_idx} must be within num_embeddings "
                f"({num_embeddings}).", where=cls,
                hint=f"give an index from 0 to {num_embeddings - 1} (often 0, the "
                "padding token), or a negative one counting from the end."))
        padding_idx %= num_embeddings
    if sparse:
        raise InputError(message(
            "sparse=True asks for sparse gradients, which nnbook does not have.",
            where=cls, hint="use sparse=False (the default)."))
    shape = (num_embeddings, embedding_dim)
    if _weight is None:
        weight = Parameter(np.empty(shape, np.dtype(dtype or default_float())),
                           requires_grad=not freeze)
    elif tuple(_weight.shape) != shape:
        raise ShapeError(message(
            f"_weight must have shape {fmt_shape(shape)}, got {fmt_shape(_weight.shape)}.",
            where=cls, hint="give a table of num_embeddings rows of embedding_dim values."))
    else:
        weight = Parameter(_weight, requires_grad=not freeze)
    return num_embeddings, embedding_dim, padding_idx, weight


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a tensor of shape {fmt_shape(value.shape)}"
    return f"a {type(value).__name__}"


class EmbeddingBag(Module):
    """Bags of indices -> one pooled vector each: input (B, L) -> (B, embedding_dim), or
    a 1-D input with ``offsets`` marking where each bag starts.

    ``mode``: 'mean' (the default), 'sum' (with optional ``per_sample_weights``) or 'max'.
    Initialised like Embedding: weight ~ N(0, 1), the ``padding_idx`` row zeros, left out
    of every bag and never learning.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx: int | None = None, device=None, dtype=None):
        super().__init__()
        if mode not in ("sum", "mean", "max"):
            raise InputError(message(
                f"mode={mode!r} is not one of 'sum', 'mean', 'max'.", where="EmbeddingBag",
                hint="mode='mean' (the default) averages each bag's vectors."))
        self.num_embeddings, self.embedding_dim, self.padding_idx, self.weight = _table(
            "EmbeddingBag", num_embeddings, embedding_dim, padding_idx, sparse, _weight,
            False, device, dtype)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: the bags, in shapes."""
        if not input_shapes:
            return []
        x = tuple(input_shapes[0])
        return [f"(B, L) -> (B, D): each row a bag of indices, pooled ({self.mode})",
                f"= {fmt_shape(x)} -> {fmt_shape(x[:1] + (self.embedding_dim,))}"]

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx: int | None = None):
        """An EmbeddingBag whose table is ``embeddings`` (num_embeddings, embedding_dim),
        shared, not copied; ``freeze=True`` keeps it from learning."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise InputError(message(
                "embeddings must be a 2-D Tensor (num_embeddings, embedding_dim), got "
                f"{_describe(embeddings)}.", where="EmbeddingBag.from_pretrained",
                hint="pass the table as nb.tensor(vectors), one row per index."))
        rows, dim = embeddings.shape
        bag = cls(rows, dim, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  _weight=embeddings, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
