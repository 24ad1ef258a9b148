"""What "reads on a projector" means for a picture, as a check tests can run.

A picture is judged as it is shown on a projector: scaled to PROJECTOR_PX (1200) pixels
wide, a wider PNG scaled down. There every text must be at least MIN_PT (12) points, a point
counted as a browser counts it (CSS: 1 pt = 96/72 px, so 12 pt = 16 px, a browser's default
text size).

A text drawn at ``size`` pt into a PNG rendered at ``dpi`` and ``width`` pixels wide is
``size * dpi / 72`` px tall in the PNG, ``size * dpi / 72 * 1200 / width`` px once the PNG is
shown 1200 px wide, which is ``size * dpi / 72 * 1200 / width * 72 / 96`` pt there:

    shown_pt = size * dpi * 12.5 / width          # >= 12

For a figure saved whole (width = width_in * dpi) the dpi cancels: ``size * 12.5 / width_in``,
so a figure 12.5 in wide needs 12 pt text, 8 in wide 7.7 pt, 15 in wide 14.4 pt. (Counting
1 pt as 1 px would let 12 pt be 12 px on the projector, smaller than any browser's text.)

Sizes are read from what the Agg renderer actually draws (hidden, empty and unused texts
never reach it), so tick labels, legends and annotations are all counted. A text must also
lie inside the picture: a label cut at the edge does not read either.
"""
from __future__ import annotations

import contextlib
import struct

PROJECTOR_PX = 1200
MIN_PT = 12
CSS_PX_PER_PT = 96 / 72
EDGE_PX = 1.0  # how far a text's box may poke out of the picture (antialiasing, rounding)


def shown_pt(size_pt: float, dpi: float, png_width: float) -> float:
    """The size in pt of a text drawn at `size_pt` into a PNG `png_width` px wide at `dpi`,
    when the PNG is shown PROJECTOR_PX wide (points counted as a browser counts them)."""
    px_in_png = size_pt * dpi / 72
    return px_in_png * PROJECTOR_PX / png_width / CSS_PX_PER_PT


def png_size(png: bytes) -> tuple:
    """(width, height) in px, from the PNG's IHDR chunk."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", png[16:24])


@contextlib.contextmanager
def drawn_texts():
    """Record every text the Agg renderer draws inside the block.

    Yields a list that fills with dicts: text, size (pt), dpi, canvas (w, h) in px and the
    text's box in canvas px (None when the text has no artist to measure).
    """
    from matplotlib.backends.backend_agg import RendererAgg

    drawn = []
    original = RendererAgg.draw_text

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        box = mtext.get_window_extent(self) if mtext is not None else None
        drawn.append({"text": s, "size": prop.get_size_in_points(), "dpi": self.dpi,
                      "canvas": (self.width, self.height),
                      "box": None if box is None else tuple(box.extents)})
        return original(self, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    RendererAgg.draw_text = draw_text
    try:
        yield drawn
    finally:
        RendererAgg.draw_text = original


def problems(drawn: list, png: bytes) -> list:
    """What keeps a picture from reading on a projector, one line each (empty: it reads).

    `drawn` holds the texts recorded while `png` (and maybe other views of the same
    picture) was drawn; each text is judged on the canvas it was drawn into.
    """
    width = png_size(png)[0]
    found = []
    if width < PROJECTOR_PX:
        found.append(f"the PNG is {width} px wide, less than {PROJECTOR_PX}")
    texts = [d for d in drawn if d["text"].strip()]
    if not texts:
        found.append("no text was recorded for this PNG (was it drawn inside drawn_texts?)")
    seen = set()
    for d in texts:
        pt = shown_pt(d["size"], d["dpi"], d["canvas"][0])
        key = (d["text"], round(pt, 1))
        if pt < MIN_PT - 1e-9 and key not in seen:
            seen.add(key)
            found.append(f"{d['text']!r}: {d['size']:g} pt at {d['dpi']:g} dpi shows as "
                         f"{pt:.1f} pt at {PROJECTOR_PX} px wide (needs {MIN_PT})")
        box = d["box"]
        if box is not None:
            x0, y0, x1, y1 = box
            w, h = d["canvas"]
            if x0 < -EDGE_PX or y0 < -EDGE_PX or x1 > w + EDGE_PX or y1 > h + EDGE_PX:
                found.append(f"{d['text']!r} is cut at the edge of the picture "
                             f"(box {x0:.0f}, {y0:.0f} to {x1:.0f}, {y1:.0f} in {w:.0f}×{h:.0f})")
    return found
