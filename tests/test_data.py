"""nnbook.data: the generated digits and the stratified split."""

import numpy as np
import pytest

from nnbook.data import GLYPHS, NUM_CLASSES, digits, glyph, train_test_split
from nnbook.errors import InputError, NnbookError


def test_shapes_dtypes_and_range():
    images, labels = digits(300, seed=0)
    assert images.shape == (300, 1, 8, 8) and images.dtype == np.float32
    assert labels.shape == (300,) and labels.dtype == np.int64
    assert images.min() >= 0.0 and images.max() <= 1.0
    assert set(np.unique(labels)) == set(range(10))


@pytest.mark.parametrize("size", [9, 12, 28])
def test_other_canvas_sizes(size):
    images, labels = digits(20, seed=0, size=size)
    assert images.shape == (20, 1, size, size) and labels.shape == (20,)
    assert 0.0 <= images.min() and images.max() <= 1.0


def test_no_images():
    images, labels = digits(0)
    assert images.shape == (0, 1, 8, 8) and labels.shape == (0,)


def test_same_seed_same_images_bit_for_bit():
    a, la = digits(200, seed=3)
    b, lb = digits(200, seed=3)
    assert np.array_equal(a, b) and np.array_equal(la, lb)


def test_different_seeds_differ():
    a, la = digits(200, seed=0)
    b, lb = digits(200, seed=1)
    assert not np.array_equal(la, lb)
    assert np.abs(a - b).mean() > 0.05


def test_the_generator_has_not_changed():
    # The notebooks' printed numbers depend on these exact images: a change here is a
    # change to the data set (re-execute the notebooks, `python3 dev.py notebooks`).
    images, labels = digits(10, seed=0)
    assert labels.tolist() == [4, 6, 2, 7, 3, 5, 9, 0, 8, 1]
    assert round(float(images.astype(np.float64).sum()), 2) == 279.45


def test_nb_seed_does_not_matter():
    import nnbook as nb

    nb.manual_seed(1)
    a, _ = digits(50, seed=0)
    nb.manual_seed(2)
    b, _ = digits(50, seed=0)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("n", [1000, 1005, 7])
def test_labels_are_balanced(n):
    counts = np.bincount(digits(n, seed=5)[1], minlength=NUM_CLASSES)
    assert counts.sum() == n and counts.max() - counts.min() <= 1


def test_labels_are_shuffled():
    labels = digits(100, seed=0)[1]
    assert not np.array_equal(labels, np.arange(100) % 10)


def test_images_carry_their_digit_but_not_trivially():
    # Nearest class mean on raw pixels: far better than chance (the labels match the
    # pictures), far from perfect (shifts and noise make it a task worth a CNN).
    images, labels = digits(3000, seed=0)
    test_images, test_labels = digits(1000, seed=1)
    means = np.stack([images[labels == k].reshape(-1, 64).mean(0) for k in range(10)])
    dist = ((test_images.reshape(-1, 1, 64) - means[None]) ** 2).sum(-1)
    accuracy = (dist.argmin(1) == test_labels).mean()
    assert 0.45 < accuracy < 0.85


def test_every_image_has_ink_and_background():
    images, _ = digits(500, seed=2)
    flat = images.reshape(500, -1)
    darkest = np.percentile(flat, 10, axis=1)  # background, whatever the stroke weight
    assert (flat.max(1) - darkest > 0.35).all()


def test_glyphs_are_five_by_seven_and_distinct():
    assert sorted(GLYPHS) == list(range(10))
    bitmaps = [glyph(d) for d in range(10)]
    assert all(b.shape == (7, 5) and b.dtype == np.float32 for b in bitmaps)
    assert len({b.tobytes() for b in bitmaps}) == 10


@pytest.mark.parametrize("kwargs, match", [
    ({"n": -1}, r"n must be an int of at least 0, got -1"),
    ({"n": 2.5}, r"n must be an int"),
    ({"size": 5}, r"size must be an int of at least 8, got 5"),
    ({"seed": -3}, r"seed must be a non-negative int, got -3"),
    ({"seed": 1.0}, r"seed must be a non-negative int"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(InputError, match=match) as info:
        digits(**kwargs)
    assert isinstance(info.value, NnbookError) and isinstance(info.value, ValueError)
    assert "hint:" in str(info.value)


# ---------------------------------------------------------------------------
# train_test_split
# ---------------------------------------------------------------------------

def test_split_sizes_and_order_of_results():
    images, labels = digits(1000, seed=0)
    train_x, test_x, train_y, test_y = train_test_split(images, labels, test_size=0.2)
    assert train_x.shape == (800, 1, 8, 8) and test_x.shape == (200, 1, 8, 8)
    assert train_y.shape == (800,) and test_y.shape == (200,)
    assert train_x.dtype == np.float32 and train_y.dtype == np.int64


def test_split_is_a_partition_and_keeps_pairs_together():
    labels = np.arange(500) % 10
    ids = np.arange(500)  # stand-ins for images: each row knows where it came from
    train_ids, test_ids, train_y, test_y = train_test_split(ids, labels, test_size=100)
    assert sorted(np.concatenate([train_ids, test_ids]).tolist()) == list(range(500))
    assert np.array_equal(labels[train_ids], train_y) and np.array_equal(labels[test_ids], test_y)


def test_split_is_stratified():
    images, labels = digits(1000, seed=0)
    _, _, train_y, test_y = train_test_split(images, labels, test_size=0.25)
    assert np.bincount(test_y).tolist() == [25] * 10
    assert np.bincount(train_y).tolist() == [75] * 10


def test_split_is_deterministic_by_seed():
    images, labels = digits(300, seed=0)
    a = train_test_split(images, labels, seed=4)
    b = train_test_split(images, labels, seed=4)
    c = train_test_split(images, labels, seed=5)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert not np.array_equal(a[3], c[3])


@pytest.mark.parametrize("test_size", [0.0, 1.0, 0, 300, -0.5, "half", True])
def test_split_refuses_bad_sizes(test_size):
    images, labels = digits(300, seed=0)
    with pytest.raises(InputError, match=r"test_size must be a fraction between 0 and 1"):
        train_test_split(images, labels, test_size=test_size)


def test_split_refuses_mismatched_lengths():
    images, labels = digits(30, seed=0)
    with pytest.raises(InputError, match=r"30 images, 29 labels"):
        train_test_split(images, labels[:-1])
