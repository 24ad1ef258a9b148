"""Attention as data: the shape of each step of a MultiheadAttention, and the weights each
attention layer used in a real forward.

    steps = nb.inspect.attention_shapes(mha, (3, 7, 10))       # no data needed
    [(s.name, s.formula, s.shape) for s in steps]

    with nb.inspect.record_attention(model) as rec:
        model(x)
    rec.maps[0].weights        # (N, heads, L, S), each row sums to 1
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

import numpy as np

from .. import context
from ..errors import fmt_shape
from .shapes import check_model, infer_shapes


@dataclass(frozen=True)
class AttentionShapeStep:
    """One step of multi-head attention: what it computes, with which shapes, and the result."""

    name: str          # 'query projection', 'split heads (query)', 'scores', ...
    formula: str       # the rule with symbols, e.g. '(N, L, E) -> (N, h, L, E/h)'
    shape: tuple       # the result's shape for these inputs
    numbers: str = ""  # the same rule with the sizes filled in


@dataclass(frozen=True)
class AttentionShapes:
    """The steps of one MultiheadAttention call, and the sizes its symbols stand for."""

    layer: str
    sizes: dict        # symbol -> size: N, L, S, E, h, d (= E/h), E_k, E_v
    steps: tuple

    def __iter__(self):
        return iter(self.steps)

    def __len__(self):
        return len(self.steps)

    def __getitem__(self, i):
        return self.steps[i]

    def as_list(self) -> list[dict]:
        """The steps as plain dicts (name, formula, numbers, shape)."""
        return [{"name": s.name, "formula": s.formula, "numbers": s.numbers,
                 "shape": s.shape} for s in self.steps]

    def __str__(self):
        sizes = "  ".join(f"{k}={v}" for k, v in self.sizes.items())
        width = max(len(s.name) for s in self.steps)
        lines = [f"{self.layer}: {sizes}"]
        for s in self.steps:
            lines.append(f"  {s.name.ljust(width)}  {fmt_shape(s.shape):<16} {s.formula}")
        return "\n".join(lines)


def attention_shapes(mha, query_shape, key_shape=None, value_shape=None, mask=None,
                     need_weights=True, average_attn_weights=True) -> AttentionShapes:
    """Every step of ``mha`` (a MultiheadAttention) on inputs of these shapes, without data.

    ``key_shape`` and ``value_shape`` default to ``query_shape`` (self-attention); ``mask``
    names the masks to show: None, 'attn_mask', 'key_padding_mask' or 'both'.  A mismatch
    raises the layer's own error (the shapes are first checked by ``nb.infer_shapes``).
    """
    check_model(mha, "nb.inspect.attention_shapes")
    key_shape = tuple(key_shape or query_shape)
    value_shape = tuple(value_shape or key_shape)
    infer_shapes(mha, [tuple(query_shape), key_shape, value_shape]).raise_error()
    sizes = _sizes(mha, tuple(query_shape), key_shape)
    steps = _steps(mha, sizes, mask, need_weights, average_attn_weights)
    return AttentionShapes(layer=type(mha).__name__, sizes=sizes, steps=tuple(steps))


def _sizes(mha, query_shape, key_shape) -> dict:
    batched = len(query_shape) == 3
    if not batched:
        n, (length, _), source = 1, query_shape, key_shape[0]
    elif mha.batch_first:
        n, length, source = query_shape[0], query_shape[1], key_shape[1]
    else:
        n, length, source = query_shape[1], query_shape[0], key_shape[0]
    return {"N": n, "L": length, "S": source, "E": mha.embed_dim, "h": mha.num_heads,
            "d": mha.head_dim, "E_k": mha.kdim, "E_v": mha.vdim}


_SYMBOL = re.compile(r"\b(E_k|E_v|[NLSEhd])\b")   # a size's symbol, as a whole word


def _step(name, formula, sizes, shape_symbols):
    """A step whose result has the shape named by ``shape_symbols`` ('N h L S')."""
    shape = tuple(sizes[s] for s in shape_symbols.split())
    numbers = _SYMBOL.sub(lambda m: str(sizes[m.group()]), formula)
    return AttentionShapeStep(name, formula, shape, numbers)


def _steps(mha, sizes, mask, need_weights, average) -> list:
    first = not mha.batch_first
    steps = []
    if first:
        steps.append(_step("batch first", "(L, N, E) -> (N, L, E)", sizes, "N L E"))
    for name, e in (("query", "E"), ("key", "E_k"), ("value", "E_v")):
        t = "L" if name == "query" else "S"
        steps.append(_step(f"{name} projection", f"(N, {t}, {e}) @ (E, {e})^T + (E,) -> "
                           f"(N, {t}, E)", sizes, f"N {t} E"))
    for name in ("query", "key", "value"):
        t = "L" if name == "query" else "S"
        steps.append(_step(f"split heads ({name})", f"(N, {t}, E) -> (N, {t}, h, d) -> "
                           f"(N, h, {t}, d),  d = E/h", sizes, f"N h {t} d"))
    steps.append(_step("scores", "(N, h, L, d) @ (N, h, d, S) / sqrt(d) -> (N, h, L, S)",
                       sizes, "N h L S"))
    masks = {"attn_mask": "(L, S) or (N*h, L, S)", "key_padding_mask": "(N, S) -> (N, 1, 1, S)"}
    for key in (["attn_mask", "key_padding_mask"] if mask == "both" else
                [mask] if mask else []):
        steps.append(_step(f"mask ({key})", f"scores + {masks[key]}: -inf where blocked -> "
                           "(N, h, L, S)", sizes, "N h L S"))
    steps.append(_step("softmax", "softmax over S: each row sums to 1 -> (N, h, L, S)",
                       sizes, "N h L S"))
    steps.append(_step("weighted sum", "(N, h, L, S) @ (N, h, S, d) -> (N, h, L, d)",
                       sizes, "N h L d"))
    steps.append(_step("merge heads", "(N, h, L, d) -> (N, L, h, d) -> (N, L, E)", sizes,
                       "N L E"))
    steps.append(_step("output projection", "(N, L, E) @ (E, E)^T + (E,) -> (N, L, E)",
                       sizes, "N L E"))
    if first:
        steps.append(_step("time first", "(N, L, E) -> (L, N, E)", sizes, "L N E"))
    if need_weights:
        steps.append(_step("weights returned", "mean over h: (N, h, L, S) -> (N, L, S)"
                           if average else "(N, h, L, S)", sizes,
                           "N L S" if average else "N h L S"))
    return steps


# ---------------------------------------------------------------- the weights of a real pass

@dataclass(frozen=True)
class AttentionMap:
    """The attention weights one MultiheadAttention call used (before dropout)."""

    path: str          # the layer's dotted path in the model ('' for the model itself)
    call: int          # 0 for the first call of this layer in the block, 1 for the next...
    weights: np.ndarray = field(repr=False, compare=False)   # (N, heads, L, S)

    @property
    def shape(self) -> tuple:
        return tuple(self.weights.shape)

    def head(self, sample: int = 0, head: int = 0) -> np.ndarray:
        """One head's (L, S) map for one sample: row i, how query i spreads over the keys."""
        return self.weights[sample, head]


class AttentionRecord:
    """What :func:`record_attention` collected: ``maps`` in call order."""

    def __init__(self):
        self.maps: list[AttentionMap] = []

    def by_path(self, path: str) -> list[AttentionMap]:
        return [m for m in self.maps if m.path == path]

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(m.path for m in self.maps))

    def __len__(self):
        return len(self.maps)

    def __repr__(self):
        lines = [f"<AttentionRecord: {len(self.maps)} maps>"]
        lines += [f"  {m.path or '(model)'} call {m.call}: weights {fmt_shape(m.shape)}"
                  for m in self.maps]
        return "\n".join(lines)


class _AttentionWatcher(context.Observer):
    """Keeps the softmax output computed directly in a MultiheadAttention's forward."""

    def __init__(self, model, record):
        from ..nn.layers.attention import MultiheadAttention  # the floor below, when inspecting
        self.kind, self.record, self.model = MultiheadAttention, record, model
        self.calls: dict[str, int] = {}

    def op_ran(self, op, inputs, out):
        if op.name not in ("softmax", "safe_softmax") or not context.module_stack:
            return
        path, module = context.module_stack[-1]
        if isinstance(module, self.kind) and out.ndim == 4:
            call = self.calls.get(path, 0)
            self.calls[path] = call + 1
            self.record.maps.append(AttentionMap(path, call, out.detach().numpy().copy()))


@contextlib.contextmanager
def record_attention(model=None):
    """Collect the attention weights of every MultiheadAttention call inside the block.

    Works whether or not the layer was asked for its weights (``need_weights=False``, as
    the transformer layers ask), and leaves the computation unchanged.
    """
    if model is not None:
        check_model(model, "nb.inspect.record_attention")
    record = AttentionRecord()
    with context.watching(_AttentionWatcher(model, record)):
        yield record
