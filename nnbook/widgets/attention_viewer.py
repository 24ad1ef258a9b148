"""AttentionViewer: what each query token attends to, per layer and head.

    viewer = AttentionViewer(model, tokens, x)        # runs model(x) once, without grad
    viewer                                            # layer and head menus, a query slider

    with nb.inspect.record_attention(model) as rec:   # or a record you made yourself
        model(x)
    AttentionViewer(rec, tokens)

    for step in range(50):                            # following training
        ...; optimizer.step()
        viewer.update(model)                          # reruns on the same x, one call per step

Heatmaps come from :func:`nnbook.inspect.record_attention` (weights before dropout,
(N, heads, L, S) per attention call).  Rows are queries, columns keys; the query on the
slider is framed and its strongest keys are named.  Every recorded step is kept (up to
``keep``); a step slider goes back over them.
"""
from __future__ import annotations

import html

import ipywidgets as widgets

from ..errors import InputError, ShapeError, message
from ..inspect.attention import AttentionRecord, record_attention
from ._base import PROJECTOR_IN, NnbookWidget
from ._following import FollowsTraining
from .draw.attention import draw_attention_head, head_grid, top_keys
from .palette import FORWARD_COLOR, LAYER_COLOR, MUTED_COLOR

WHERE = "AttentionViewer"


class AttentionViewer(FollowsTraining, NnbookWidget):
    """Attention weights as heatmaps with token labels: a layer menu, a head menu, a query slider.

    ``source``: an AttentionRecord (from ``nb.inspect.record_attention``), or a model to run
    on ``x`` (then ``x`` is required and kept for :meth:`update`; a tuple is unpacked:
    ``(src, tgt)`` for an nn.Transformer).  The model runs as it is (``model.eval()`` first
    for a view without dropout elsewhere; the weights are recorded before dropout anyway).
    ``tokens`` label the queries; ``key_tokens`` the keys when they differ (cross-attention;
    default ``tokens``); each layer takes the list of its lengths.
    """

    figsize = (PROJECTOR_IN, 6.0)

    def __init__(self, source, tokens, x=None, key_tokens=None, layer: int = 0,
                 head="all", query: int = 0, sample: int = 0, keep: int = 500,
                 redraw_interval: float = 0.25):
        super().__init__()
        self.model, self.x = None, x
        self.tokens = _token_list(tokens, "tokens")
        self.key_tokens = _token_list(key_tokens, "key_tokens") if key_tokens is not None \
            else None
        self.keep, self.redraw_interval = int(keep), redraw_interval
        self.steps: list = []     # (step number, maps)
        self._last_draw, self._stale, self._quiet = 0.0, False, False
        maps = self._maps_of(source, x)
        if not isinstance(source, AttentionRecord):
            self.model = source   # update() reruns it on x
        self.steps.append((0, maps))

        self.layer_dropdown = widgets.Dropdown(options=self._layer_options(maps), value=0,
                                               description="layer")
        self.head_dropdown = widgets.Dropdown(description="head")
        self.query_slider = widgets.IntSlider(min=0, max=maps[0].shape[2] - 1,
                                              description="query", readout=False)
        self.query_label = widgets.Label()
        self.sample_slider = widgets.IntSlider(min=0, description="sample")
        self.step_slider = widgets.IntSlider(value=0, min=0, max=0, description="step",
                                             disabled=True)
        self.play = widgets.Play(value=0, min=0, max=0, interval=400, description="play")
        widgets.link((self.play, "value"), (self.step_slider, "value"))
        widgets.link((self.play, "max"), (self.step_slider, "max"))
        self._quiet = True
        try:
            self._set_layer(layer)
            self._set_head(head)
            self._set_query(query)
            self._set_sample(sample)
        finally:
            self._quiet = False
        for control in (self.layer_dropdown, self.head_dropdown, self.query_slider,
                        self.sample_slider, self.step_slider):
            control.observe(self._changed, names="value")
        self._setup([widgets.HBox([self.layer_dropdown, self.head_dropdown, self.sample_slider]),
                     widgets.HBox([self.query_slider, self.query_label]),
                     widgets.HBox([self.play, self.step_slider])])

    # -- inputs ----------------------------------------------------------------------------
    def _maps_of(self, source, x) -> tuple:
        """The maps of a record, or of one run of a model on x; checked against the tokens."""
        if isinstance(source, AttentionRecord):
            record = source
        elif hasattr(source, "named_modules") and callable(source):
            if x is None:
                raise InputError(message(
                    f"needs the input x to run {type(source).__name__} on.", where=WHERE,
                    line=None, hint="AttentionViewer(model, tokens, x), or pass a record: "
                    "with nb.inspect.record_attention(model) as rec: model(x)"))
            from .. import context
            with context.no_grad(), record_attention(source) as record:
                source(*x) if isinstance(x, tuple) else source(x)   # (src, tgt): a Transformer
        else:
            raise InputError(message(
                f"expects an AttentionRecord or a model, got {type(source).__name__}.",
                where=WHERE, line=None,
                hint="with nb.inspect.record_attention(model) as rec: model(x); then "
                "AttentionViewer(rec, tokens)."))
        if not record.maps:
            raise InputError(message(
                "the record holds no attention weights: no nn.MultiheadAttention ran.",
                where=WHERE, line=None,
                hint="run the model inside the with block (model(x) under "
                "nb.inspect.record_attention(model)), on a model with an attention layer."))
        for m in record.maps:
            n, heads, length, keys = m.shape
            if self._labels(m) is None:
                what = (f"{len(self.tokens)} tokens" if self.key_tokens is None else
                        f"{len(self.tokens)} tokens and {len(self.key_tokens)} key tokens")
                raise ShapeError(message(
                    f"{m.path or '(model)'} call {m.call} attends from {length} queries to "
                    f"{keys} keys, but got {what}.", where=WHERE, line=None,
                    values=f"weights (N, heads, L, S) = {m.shape}",
                    hint="give one label per position: tokens for the L queries, and "
                    "key_tokens for the S keys when they differ (cross-attention)."))
        return tuple(record.maps)

    def _labels(self, m):
        """(query labels, key labels) of one map, or None when no list has its lengths.

        Rows take ``tokens`` (else ``key_tokens``) and columns ``key_tokens`` (else
        ``tokens``), whichever has the length: so in an nn.Transformer with tokens=the
        target and key_tokens=the source, cross-attention gets both lists and the
        encoder's self-attention the source's (when the two lengths differ)."""
        length, keys = m.shape[2:]
        lists = [self.tokens] + ([self.key_tokens] if self.key_tokens is not None else [])
        rows = next((t for t in lists if len(t) == length), None)
        columns = next((t for t in reversed(lists) if len(t) == keys), None)
        return None if rows is None or columns is None else (rows, columns)

    @staticmethod
    def _layer_options(maps) -> list:
        counts: dict = {}
        for m in maps:
            counts[m.path] = counts.get(m.path, 0) + 1
        return [(f"{m.path or '(model)'}" + (f" (call {m.call})" if counts[m.path] > 1 else ""),
                 i) for i, m in enumerate(maps)]

    def _set_layer(self, layer) -> None:
        maps = self.steps[-1][1]
        if isinstance(layer, str):
            names = [name for name, _ in self._layer_options(maps)]
            if layer not in names:
                raise InputError(message(
                    f"no attention layer {layer!r}.", where=WHERE, line=None,
                    hint=f"one of: {', '.join(names)} (or its index, 0 to {len(names) - 1})."))
            layer = names.index(layer)
        if not isinstance(layer, int) or not 0 <= layer < len(maps):
            raise InputError(message(
                f"layer must be an index from 0 to {len(maps) - 1}, got {layer!r}.",
                where=WHERE, line=None, hint="layer=0 is the first attention call."))
        self.layer_dropdown.value = layer
        self._update_heads()

    def _update_heads(self) -> None:
        heads = self.current_map.shape[1]
        options = [("all heads", "all")] + [(f"head {h}", h) for h in range(heads)]
        value = self.head_dropdown.value
        self.head_dropdown.options = options
        self.head_dropdown.value = value if value in [v for _, v in options] else "all"
        self.sample_slider.max = self.current_map.shape[0] - 1
        self.query_slider.max = self.current_map.shape[2] - 1
        self._update_query_label()
        self.sample_slider.disabled = self.sample_slider.max == 0

    def _set_head(self, head) -> None:
        heads = self.current_map.shape[1]
        if head != "all" and (not isinstance(head, int) or not 0 <= head < heads):
            raise InputError(message(
                f"head must be 'all' or an index from 0 to {heads - 1}, got {head!r}.",
                where=WHERE, line=None, hint="head='all' shows one panel per head."))
        self.head_dropdown.value = head

    def _set_query(self, query) -> None:
        if not isinstance(query, int) or not 0 <= query < len(self.query_labels):
            raise InputError(message(
                f"query must be a token index from 0 to {len(self.query_labels) - 1}, got "
                f"{query!r}.", where=WHERE, line=None, hint="query=0 is the first token."))
        self.query_slider.value = query
        self._update_query_label()

    def _set_sample(self, sample) -> None:
        n = self.current_map.shape[0]
        if not isinstance(sample, int) or not 0 <= sample < n:
            raise InputError(message(
                f"sample must be an index into the batch, 0 to {n - 1}, got {sample!r}.",
                where=WHERE, line=None, hint="sample=0 is the first sequence of the batch; "
                "the tokens label that one."))
        self.sample_slider.value = sample

    def _update_query_label(self) -> None:
        q = self.query_slider.value
        self.query_label.value = f"{q}: {self.query_labels[q]!r}"

    # -- following training -------------------------------------------------------------------
    def update(self, source=None, step: int | None = None):
        """Record the attention now and show it: a model reruns on the kept x (no grad),
        a record is taken as it is.  Call once per training step; drawing is throttled to
        every ``redraw_interval`` seconds (the newest step is drawn when the cell ends)."""
        if source is None:
            if self.model is None:
                raise InputError(message(
                    "update() without arguments needs the model the viewer was made with.",
                    where=f"{WHERE}.update", line=None,
                    hint="pass a new record: viewer.update(rec), or the model and x: "
                    "viewer.update(model) after AttentionViewer(model, tokens, x)."))
            source = self.model
        maps = self._maps_of(source, self.x)
        old = self.steps[-1][1]
        if [(m.path, m.call, m.shape[1]) for m in maps] != \
                [(m.path, m.call, m.shape[1]) for m in old]:
            raise InputError(message(
                "the new record has other attention layers or heads than the first.",
                where=f"{WHERE}.update", line=None,
                values=f"before: {[m.path for m in old]}, now: {[m.path for m in maps]}",
                hint="update() follows one model through training; make a new "
                "AttentionViewer for another model."))
        if not isinstance(source, AttentionRecord):
            self.model = source
        number = step if step is not None else self.steps[-1][0] + 1
        self.steps.append((number, maps))
        if len(self.steps) > self.keep:
            del self.steps[1:len(self.steps) - self.keep + 1]   # keep the first and the newest
        newest = len(self.steps) - 1
        self._show_newest(newest)
        return maps

    def _changed(self, change) -> None:
        if change["owner"] is self.layer_dropdown:
            self._quiet, quiet = True, self._quiet
            try:
                self._update_heads()
            finally:
                self._quiet = quiet
        if change["owner"] is self.query_slider:
            self._update_query_label()
        if not self._quiet:
            self.redraw()

    # -- what is shown ----------------------------------------------------------------------------
    @property
    def key_labels(self) -> list:
        """The labels of the current layer's keys (the columns)."""
        return self._labels(self.current_map)[1]

    @property
    def query_labels(self) -> list:
        """The labels of the current layer's queries (the rows)."""
        return self._labels(self.current_map)[0]

    @property
    def current_step(self) -> int:
        return self.steps[min(self.step_slider.value, len(self.steps) - 1)][0]

    @property
    def current_map(self):
        i = min(self.step_slider.value, len(self.steps) - 1)
        return self.steps[i][1][self.layer_dropdown.value]

    @property
    def heads(self) -> list:
        """The head indices shown now."""
        head = self.head_dropdown.value
        return list(range(self.current_map.shape[1])) if head == "all" else [head]

    def weights(self, head: int):
        """The (L, S) weights of one head, for the sample shown."""
        return self.current_map.head(self.sample_slider.value, head)

    def top(self, head: int, k: int = 3) -> list:
        """[(key index, key token, weight), ...]: where the query on the slider looks most."""
        return top_keys(self.weights(head)[self.query_slider.value], self.key_labels, k)

    def _layer_name(self) -> str:
        return dict((v, k) for k, v in self.layer_dropdown.options)[self.layer_dropdown.value]

    def _title(self) -> str:
        m = self.current_map
        text = f"{self._layer_name()}, {m.shape[1]} heads"
        if m.shape[0] > 1:
            text += f", sample {self.sample_slider.value} of {m.shape[0]}"
        if len(self.steps) > 1:
            text += f", step {self.current_step} ({self.step_slider.value + 1} of " \
                    f"{len(self.steps)} recorded)"
        return text

    def draw(self, fig) -> None:
        heads = self.heads
        length, source = self.current_map.shape[2:]
        # in inches: PROJECTOR_IN wide (1200 px, where 12-pt text reads on a projector); as
        # many panels side by side (at most 4) as leave each key 0.45 in (12-pt labels),
        # rows as tall as the query labels need
        width, bar_w, gap = PROJECTOR_IN, 1.4, 0.55
        label_w = 0.55 + 0.1 * max(len(t) for t in self.query_labels)
        need = max(2.2, 0.45 * source)
        columns = head_grid(len(heads))[1]
        while columns > 1 and (width - 0.3 - bar_w) / columns - gap - label_w < need:
            columns -= 1
        rows = (len(heads) + columns - 1) // columns
        share = (width - 0.3 - bar_w) / columns - gap
        panel_w = min(share - label_w, max(2.2, 0.75 * source))
        panel_h = max(2.0, 0.26 * length, min(panel_w, 0.6 * length))
        key_room = 0.25 + 0.1 * max(len(t) for t in self.key_labels)  # rotated key labels
        row_h = panel_h + key_room + 0.9
        height = max(4.6, rows * row_h + 0.7)
        fig.set_size_inches(width, height)
        q = self.query_slider.value
        # the framed row's numbers when each cell has room for '0.17' in 12 pt and at most
        # two panels are drawn (more texts make a redraw slow; the text lists the top keys)
        annotate = panel_w / source >= 0.5 and len(heads) <= 2
        image = None
        for k, head in enumerate(heads):
            r, c = divmod(k, columns)
            left = 0.3 + c * (share + gap) + label_w
            bottom = height - 0.7 - (r + 1) * row_h + key_room + 0.45
            ax = fig.add_axes((left / width, bottom / height, panel_w / width,
                               panel_h / height))
            names = ", ".join(f"{tok} {w:.2f}" for _, tok, w in self.top(head, 2))
            image = draw_attention_head(ax, self.weights(head), self.query_labels,
                                        self.key_labels,
                                        q, title=f"head {head}: {names}", annotate=annotate,
                                        query_labels=c == 0, key_title=r == rows - 1)
        bar_ax = fig.add_axes(((width - bar_w + 0.1) / width, 0.5 - 1.6 / height,
                               0.22 / width, 3.2 / height))
        bar = fig.colorbar(image, cax=bar_ax)
        bar.set_label("attention weight\n(each row sums to 1)", fontsize=12)
        bar.ax.tick_params(labelsize=12)
        fig.text(0.3 / width, 1 - 0.2 / height,
                 f"{self._title()}   ·   orange frame: query {q} {self.query_labels[q]!r}",
                 fontsize=14, ha="left", va="top")

    def describe(self) -> str:
        q = self.query_slider.value
        lines = [f"AttentionViewer: {self._title()}; query {q} {self.query_labels[q]!r} attends to"]
        for head in self.heads:
            top = ", ".join(f"{j} {tok!r} {w:.2f}" for j, tok, w in self.top(head))
            lines.append(f"  head {head}: {top}")
        return "\n".join(lines)

    def caption_html(self) -> str:
        q = self.query_slider.value
        esc = html.escape
        rows = "".join(
            f"<div>head {head}: "
            + ", ".join(f"<b>{esc(tok)}</b> {w:.2f}" for _, tok, w in self.top(head))
            + "</div>" for head in self.heads)
        return ('<div style="font-size:15px;line-height:1.5;">'
                f"<div><b>{esc(self._title())}</b></div>"
                f'<div>query <b style="color:{LAYER_COLOR};">{q} {esc(self.query_labels[q])!s}'
                f"</b> (orange frame) attends most to:</div>{rows}"
                f'<div style="color:{MUTED_COLOR};">rows: queries, columns: keys; '
                f'<span style="color:{FORWARD_COLOR};">darker blue</span> = more weight, '
                "each row sums to 1</div></div>")


def _token_list(tokens, name: str) -> list:
    if isinstance(tokens, str) or not hasattr(tokens, "__len__") or not len(tokens):
        raise InputError(message(
            f"{name} must be a non-empty list of labels, one per position, got "
            f"{type(tokens).__name__}" + (f" {tokens!r}" if isinstance(tokens, str) else "")
            + ".", where=WHERE, line=None,
            hint="e.g. tokens=['the', 'cat', 'sat'] (a sentence: sentence.split())."))
    return [str(t) for t in tokens]
