"""Notes: what nnbook says, once, when PyTorch code asks for something it does differently.

``nb.compile(model)``, ``autocast`` to bfloat16, ``GradScaler`` or a DataLoader with
``num_workers=2`` all run here -- nnbook just does the plain thing instead -- and
say so once, as a warning of category :class:`NnbookNote`, so that tutorial code
keeps running and the student still learns what happened.

Silence them with ``warnings.filterwarnings("ignore", category=nb.NnbookNote)``.
"""
from __future__ import annotations

import warnings

from .errors import message, warn_from_user_code


class NnbookNote(UserWarning):
    """A one-time remark: nnbook ran PyTorch code by doing something simpler."""


_ONCE = ("once", None, NnbookNote, None, 0)  # how warnings.filters holds that filter


def note(what: str, *, where: str, hint: str | None = None) -> None:
    """Warn with ``what`` the first time this text is noted in this Python process."""
    # 'once' matches on the text, so each note appears once however many lines ask;
    # appended, so a filter the user set first still wins.  Added only when missing:
    # every change of the filters makes Python forget which warnings it has shown.
    if _ONCE not in warnings.filters:
        warnings.filterwarnings("once", category=NnbookNote, append=True)
    warn_from_user_code(NnbookNote(message(what, where=where, hint=hint, line=False)))
