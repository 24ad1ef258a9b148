"""Drawing attention weights: one heatmap per head, queries as rows and keys as columns.

White is weight 0 and dark blue the largest weight a row can have (1: the query looks at
that key only); each row sums to 1.  The query being studied is framed in orange and
its weights are written in its cells.
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patches import Rectangle

from ..palette import FORWARD_COLOR, LAYER_COLOR, MUTED_COLOR, TEXT_COLOR

FONT = 12
SMALL = 12
WEIGHTS_CMAP = LinearSegmentedColormap.from_list("nnbook_attention", ["#ffffff", FORWARD_COLOR])


def top_keys(row, keys, k: int = 3) -> list:
    """The k keys a query row gives most weight to: [(index, token, weight), ...]."""
    order = np.argsort(-np.asarray(row), kind="stable")[:k]
    return [(int(i), keys[i], float(row[i])) for i in order]


def draw_attention_head(ax, weights, queries, keys, query=None, title=None,
                        annotate: bool = True, query_labels: bool = True,
                        key_title: bool = True):
    """One head's (L, S) weights as a heatmap; ``query`` (a row index) framed and annotated.

    ``annotate``: write the framed row's weights in its cells (when they fit);
    ``query_labels`` / ``key_title``: label the rows / name the key axis (panels side by
    side share them: drawing fewer texts keeps a redraw fast).  Returns
    the image, so a caller can add one colour bar for several panels.
    """
    weights = np.asarray(weights)
    length, source = weights.shape
    image = ax.imshow(weights, cmap=WEIGHTS_CMAP, vmin=0.0, vmax=1.0, aspect="auto",
                      interpolation="nearest")
    ax.set_xticks(range(source), keys, rotation=45 if source > 4 else 0,
                  ha="right" if source > 4 else "center", fontsize=SMALL)
    ax.set_yticks(range(length), queries if query_labels else [], fontsize=SMALL)
    ax.tick_params(length=0)
    if key_title:
        ax.set_xlabel("key (attended to)", fontsize=FONT, color=MUTED_COLOR)
    if query_labels:
        ax.set_ylabel("query (attending)", fontsize=FONT, color=MUTED_COLOR)
    if title:
        ax.set_title(title, fontsize=FONT + 1, loc="left")
    if query is not None:
        ax.add_patch(Rectangle((-0.5, query - 0.5), source, 1.0, fill=False,
                               edgecolor=LAYER_COLOR, linewidth=3.5, clip_on=False))
        if query_labels:
            ax.get_yticklabels()[query].set_color(LAYER_COLOR)
            ax.get_yticklabels()[query].set_fontweight("bold")
        if annotate:
            for j, w in enumerate(weights[query]):
                ax.text(j, query, f"{w:.2f}", ha="center", va="center", fontsize=SMALL,
                        color="white" if w > 0.55 else TEXT_COLOR)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return image


def head_grid(count: int) -> tuple:
    """(rows, columns) for ``count`` panels: at most four side by side."""
    columns = min(count, 4)
    return (count + columns - 1) // columns, columns
