"""What every nnbook widget shares: a reused Figure, an Output redrawn by assignment, and a
static fallback (short text + PNG) for places with no live front end.

A widget subclass builds its controls, calls ``self._setup(controls)`` and implements
``draw(fig)`` (draw the current view into a clean Figure, from records only) and
``describe()`` (a short, deterministic text of the current view).  Control callbacks call
``self.redraw()``.
"""
from __future__ import annotations

import base64
import io

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PNG_DPI = 80
PROJECTOR_PX = 1200  # every widget's PNG is at least this wide: readable on a projector
# Shown PROJECTOR_PX wide, a figure this wide shows its text at its own size in points (as a
# browser counts them, 96 px to the inch): a widget as wide draws no text under 12 pt, a
# wider one proportionally more (12 pt * width / PROJECTOR_IN).
PROJECTOR_IN = PROJECTOR_PX / 96


def figure_png(fig: Figure, dpi: float = PNG_DPI) -> bytes:
    """The figure as PNG bytes; no timestamps or version text, so the bytes are stable."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


class NnbookWidget(widgets.VBox):
    """Base class: controls above, the drawn view below.

    A subclass defines ``draw(fig)`` and ``describe()``; one that lacks either is
    refused when the class is defined (ipywidgets' metaclass does not mix with abc's).
    """

    figsize = (8.0, 4.0)
    png_dpi = PNG_DPI  # a full-width chart sets more, so that its PNG is 1200 px or wider
    REQUIRED = ("draw", "describe")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        missing = [name for name in cls.REQUIRED if not callable(getattr(cls, name, None))]
        if missing:
            raise TypeError(f"{cls.__name__} must define {' and '.join(missing)}: "
                            f"draw(fig) draws the current view into a clean Figure, "
                            f"describe() returns its short text.")

    def _setup(self, controls: list, extra=()) -> None:
        self.figure = Figure(figsize=self.figsize)
        FigureCanvasAgg(self.figure)  # draw without pyplot's global state
        self.output = widgets.Output()
        self.caption = widgets.HTML()
        self.children = (*controls, self.caption, self.output, *extra)
        self._png = b""
        self.redraw()

    # -- may be replaced ---------------------------------------------------------
    def caption_html(self) -> str:
        return ""

    # -- shared ---------------------------------------------------------------------
    def redraw(self) -> None:
        """Draw the current view and show it (assigning outputs: nothing leaks under nbval)."""
        self.figure.clear()
        self.draw(self.figure)
        self._png = figure_png(self.figure, self.dpi())
        self.caption.value = self.caption_html()
        self.output.outputs = ({
            "output_type": "display_data",
            "data": {"image/png": base64.b64encode(self._png).decode("ascii"),
                     "text/plain": self.describe()},
            "metadata": {},
        },)

    def png(self) -> bytes:
        return self._png

    def dpi(self) -> float:
        """The PNG's resolution: a narrow figure is drawn finer, never below PROJECTOR_PX wide."""
        return max(self.png_dpi, PROJECTOR_PX / self.figure.get_figwidth())

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        bundle = super()._repr_mimebundle_(include=include, exclude=exclude, **kwargs) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        bundle = dict(bundle)
        bundle["text/plain"] = self.describe()
        bundle["image/png"] = base64.b64encode(self._png).decode("ascii")
        return bundle

    def __repr__(self):
        first = self.describe().splitlines()[0]
        name = type(self).__name__
        return f"<{first}>" if first.startswith(name) else f"<{name}: {first}>"
