"""Small data sets generated on the spot, so no download is ever needed: images here,
sequences (made-up words, copy/reverse/sort/addition tasks) in sequence_data.py.

    from nnbook.data import digits, train_test_split
    images, labels = digits(2000, seed=0)       # (2000, 1, 8, 8) float32, (2000,) int64
    train_x, test_x, train_y, test_y = train_test_split(images, labels, test_size=0.25)

``digits`` draws the ten digits from the 5×7 bitmaps below, each one placed on the
canvas by its own random affine map (shift, scale, rotation, shear), rendered with
2×2 supersampling, then given a random stroke weight, contrast, background and
pixel noise.  A linear classifier gets most of them right; a small CNN, which can
follow a stroke wherever it was moved, gets almost all of them.

Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the
same images, bit for bit, whatever ``nb.manual_seed`` was set to.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError, message

# The ten glyphs, 7 rows of 5 columns; '#' is ink.
GLYPHS = {
    0: (".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    1: ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    2: (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    3: (".###.", "#...#", "....#", "..##.", "....#", "#...#", ".###."),
    4: ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    5: ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    6: ("..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."),
    7: ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    8: (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
    9: (".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."),
}
GLYPH_HEIGHT, GLYPH_WIDTH = 7, 5
NUM_CLASSES = len(GLYPHS)
_PAD = 2  # zeros around each glyph, so a sample that falls off it reads 0


def glyph(digit: int) -> np.ndarray:
    """The 7×5 bitmap of ``digit`` as a float32 array of 0s and 1s."""
    return np.array([[c == "#" for c in row] for row in GLYPHS[digit]], dtype=np.float32)


def _glyph_stack() -> np.ndarray:
    """(20, 7 + 2·PAD, 5 + 2·PAD): the ten glyphs thin, then bold (smeared one column right)."""
    thin = np.stack([glyph(d) for d in range(NUM_CLASSES)])
    bold = thin.copy()
    bold[:, :, 1:] = np.maximum(bold[:, :, 1:], thin[:, :, :-1])
    return np.pad(np.concatenate([thin, bold]), ((0, 0), (_PAD, _PAD), (_PAD, _PAD)))


def digits(n: int = 2000, seed: int = 0, size: int = 8):
    """``n`` images of handwritten-looking digits and their labels, made from ``seed``.

    Returns ``(images, labels)``: float32 ``(n, 1, size, size)`` in [0, 1] (0 is
    background, 1 is ink) and int64 ``(n,)``.  Every digit appears ``n // 10`` or
    ``n // 10 + 1`` times, in random order.  A different seed gives different images,
    so ``digits(500, seed=1)`` is a fresh held-out set for a model trained on seed 0.

    >>> images, labels = digits(10, seed=0)
    >>> images.shape, labels.dtype
    ((10, 1, 8, 8), dtype('int64'))
    """
    n = _count("n", n, minimum=0)
    size = _count("size", size, minimum=8)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(message(
            f"seed must be a non-negative int, got {seed!r}.", where="nnbook.data.digits",
            hint="e.g. digits(2000, seed=0); a different seed gives other images."))
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % NUM_CLASSES).astype(np.int64)
    bold = (rng.random(n) < 0.35).astype(np.int64)

    # Each image's affine map from canvas to glyph coordinates (in glyph pixels).
    half_turn = rng.uniform(-0.1, 0.1, n)         # tan(angle / 2): angle within ±11 degrees
    shear = rng.uniform(-0.25, 0.25, n)
    scale_y = rng.uniform(0.8, 1.05, n)           # glyph pixels per canvas pixel, at size 8
    scale_x = scale_y * rng.uniform(0.85, 1.2, n)
    shift = rng.uniform(-1.2, 1.2, (n, 2))        # canvas pixels, at size 8
    unit = size / 8                               # canvas pixels per pixel of an 8×8 canvas

    # The inverse map, canvas offset -> glyph offset: scale · shear · rotation.
    # cos and sin from tan(angle / 2) with + - * / only: the same bits on every machine
    cos, sin = (1 - half_turn**2) / (1 + half_turn**2), 2 * half_turn / (1 + half_turn**2)
    a = np.stack([np.stack([cos, -sin]), np.stack([sin + shear * cos, cos - shear * sin])])
    a = (a * np.stack([scale_y, scale_x])[:, None] / unit).astype(np.float32)  # (2, 2, n)

    # 2×2 supersampling: four points in every canvas pixel, averaged afterwards.
    sub = ((np.arange(2 * size) + 0.5) / 2 - size / 2).astype(np.float32)  # from the centre
    oy = sub[None, :, None] - (shift[:, 0] * unit).astype(np.float32)[:, None, None]
    ox = sub[None, None, :] - (shift[:, 1] * unit).astype(np.float32)[:, None, None]
    col = lambda v: v[:, None, None]  # noqa: E731  (n,) -> (n, 1, 1)
    # glyph pixel k's centre is at index k; the canvas centre lands on the glyph's centre
    y = col(a[0, 0]) * oy + col(a[0, 1]) * ox + (GLYPH_HEIGHT / 2 + _PAD - 0.5)
    x = col(a[1, 0]) * oy + col(a[1, 1]) * ox + (GLYPH_WIDTH / 2 + _PAD - 0.5)

    ink = _bilinear(_glyph_stack(), bold * NUM_CLASSES + labels, y, x)  # (n, 2S, 2S)
    ink = ink.reshape(n, size, 2, size, 2).mean(axis=(2, 4))           # (n, S, S)

    # Pen and paper: stroke weight, contrast, background, noise.
    weight = rng.uniform(1.2, 2.2, (n, 1, 1))
    contrast = rng.uniform(0.6, 1.0, (n, 1, 1))
    background = rng.uniform(0.0, 0.2, (n, 1, 1))
    noise = rng.uniform(0.03, 0.12, (n, 1, 1)) * rng.standard_normal((n, size, size))
    images = background + (contrast - background) * np.minimum(ink * weight, 1.0) + noise
    images = np.clip(images, 0.0, 1.0).astype(np.float32)
    return images[:, None], labels


def _bilinear(stack, which, y, x):
    """Sample glyph ``stack[which[i]]`` at (y[i], x[i]) bilinearly; beyond the glyph is 0."""
    height, width = stack.shape[-2:]
    y = np.clip(y, 0, height - 1.001)  # the padding is zeros, so clipping keeps 0 outside
    x = np.clip(x, 0, width - 1.001)
    y0, x0 = y.astype(np.int64), x.astype(np.int64)  # floor: both are >= 0
    wy, wx = y - y0, x - x0
    flat = stack.reshape(-1)
    corner = (which[:, None, None] * height + y0) * width + x0  # index of the top-left pixel
    top = (1 - wx) * flat[corner] + wx * flat[corner + 1]
    bottom = (1 - wx) * flat[corner + width] + wx * flat[corner + width + 1]
    return (1 - wy) * top + wy * bottom


def train_test_split(images, labels, test_size: float = 0.25, seed: int = 0):
    """Split into ``(train_images, test_images, train_labels, test_labels)``, as scikit-learn.

    Stratified: each class gives the same share to the test set (rounded), so both
    parts stay balanced.  ``test_size`` is a fraction in (0, 1) or a number of samples.

    >>> x, y = digits(100)
    >>> train_x, test_x, train_y, test_y = train_test_split(x, y, test_size=0.2)
    >>> len(train_y), len(test_y)
    (80, 20)
    """
    images, labels = np.asarray(images), np.asarray(labels)
    n = len(labels)
    if len(images) != n:
        raise InputError(message(
            f"images and labels differ in length: {len(images)} images, {n} labels.",
            where="nnbook.data.train_test_split",
            hint="pass the two arrays digits() returned, unchanged."))
    if isinstance(test_size, float) and 0 < test_size < 1:
        fraction = test_size
    elif isinstance(test_size, (int, np.integer)) and not isinstance(test_size, bool) \
            and 0 < test_size < n:
        fraction = test_size / n
    else:
        raise InputError(message(
            f"test_size must be a fraction between 0 and 1 or a count between 1 and "
            f"{n - 1}, got {test_size!r}.", where="nnbook.data.train_test_split",
            hint="e.g. test_size=0.25 keeps a quarter of the samples for testing."))
    rng = np.random.default_rng(seed)
    test = []
    for c in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == c))
        test.append(members[:int(round(fraction * len(members)))])
    test = np.concatenate(test)
    is_test = np.zeros(n, dtype=bool)
    is_test[test] = True
    train_idx = rng.permutation(np.flatnonzero(~is_test))
    test_idx = rng.permutation(test)
    return images[train_idx], images[test_idx], labels[train_idx], labels[test_idx]


def _count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(message(
            f"{name} must be an int of at least {minimum}, got {value!r}.",
            where="nnbook.data.digits",
            hint="e.g. digits(n=2000, seed=0, size=8)."))
    return int(value)


# Sequences (made-up words, algorithmic tasks) live in sequence_data.py
from .sequence_data import (  # noqa: E402
    IGNORE,
    SequenceTask,
    addition_task,
    char_dataset,
    copy_task,
    reverse_task,
    sort_task,
    words,
)

__all__ = ["GLYPHS", "NUM_CLASSES", "digits", "glyph", "train_test_split", "IGNORE",
           "SequenceTask", "addition_task", "char_dataset", "copy_task", "reverse_task",
           "sort_task", "words"]
