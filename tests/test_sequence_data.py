"""The generated sequence data (nnbook/sequence_data.py): the same seed gives the same data,
the targets are right, and the validation split shares no sequence with training."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.data import (
    IGNORE,
    addition_task,
    char_dataset,
    copy_task,
    reverse_task,
    sort_task,
    words,
)
from nnbook.errors import InputError
from nnbook.sequence_data import CODAS, ONSETS, VOWELS

TASKS = [copy_task, reverse_task, sort_task, addition_task]


def test_words_are_the_same_for_a_seed_whatever_the_global_seed():
    nb.manual_seed(1)
    first = words(300, seed=4)
    nb.manual_seed(2)
    np.random.seed(2)
    assert words(300, seed=4) == first
    assert words(300, seed=5) != first


def test_words_follow_the_syllable_grammar():
    vowels = set("".join(VOWELS))
    letters = set("".join(ONSETS + VOWELS + CODAS))
    found = words(500, seed=6, max_syllables=2)
    assert len(found) == 500 and len(set(found)) > 200
    for word in found:
        assert set(word) <= letters and set(word) & vowels, word
        # at most a vowel pair (ai, ou) in a row: syllables inside a word open with a consonant
        runs = "".join("v" if ch in vowels else "c" for ch in word)
        assert "vvv" not in runs, word
        assert 1 <= sum(1 for a, b in zip("c" + runs, runs) if a == "c" and b == "v") <= 2


def test_char_dataset_shifts_by_one_and_ends_with_the_stop():
    x, y, alphabet = char_dataset(["bra", "ousk", "e"])
    assert alphabet[0] == "." and sorted(alphabet[1:]) == list(alphabet[1:])
    assert x.shape == y.shape == (3, 5) and x.dtype == y.dtype == np.int64

    def text(row):
        return "".join(alphabet[i] for i in row if i != IGNORE)

    assert [text(r) for r in x] == [".bra.", ".ousk", ".e..."]    # '.' start, then padding
    assert [text(r) for r in y] == ["bra.", "ousk.", "e."]
    assert y[0, 4] == IGNORE and y[2, 2:].tolist() == [IGNORE] * 3
    np.testing.assert_array_equal(x[:, 1:][y[:, :-1] != IGNORE], y[:, :-1][y[:, :-1] != IGNORE])
    with pytest.raises(InputError, match="characters the alphabet lacks: 'z'"):
        char_dataset(["zab"], alphabet=".ab")


@pytest.mark.parametrize("task", TASKS)
def test_tasks_are_the_same_for_a_seed_and_different_for_another(task):
    a, b, c = task(n=200, seed=7), task(n=200, seed=7), task(n=200, seed=8)
    for name in ("x_train", "y_train", "x_val", "y_val"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.x_train, c.x_train)


@pytest.mark.parametrize("task", TASKS)
def test_the_validation_split_holds_no_training_sequence(task):
    t = task(n=300, seed=9, validation=0.25)
    assert len(t.x_train) == 225 and len(t.x_val) == 75
    seen = {tuple(row) for row in t.x_train}
    assert len(seen) == 225 and not seen & {tuple(row) for row in t.x_val}
    assert t.x_train.dtype == t.y_train.dtype == np.int64
    assert t.x_train.min() >= 0 and t.x_train.max() < t.vocab_size


@pytest.mark.parametrize("task,answer", [
    (copy_task, lambda s: s),
    (reverse_task, lambda s: s[::-1]),
    (sort_task, lambda s: "".join(sorted(s))),
])
def test_echo_tasks_answer_after_the_mark(task, answer):
    t = task(n=50, length=5, symbols=6, seed=10)
    assert t.x_train.shape == (40, 10)
    for x, y in zip(t.x_train, t.y_train):
        read, answered = t.text(x), t.text(y)
        assert read[5:] == "|____" and set(read[:5]) <= set("abcdef")
        assert answered[:5] == "     " and answered[5:] == answer(read[:5])


def test_addition_answers_the_sum_with_its_carry():
    t = addition_task(n=80, digits=3, seed=11)
    assert t.x_train.shape == (64, 11)
    carries = 0
    for x, y in zip(t.x_train, t.y_train):
        read, answered = t.text(x), t.text(y)
        a, b = read[:3], read[4:7]
        assert read[3] == "+" and read[7] == "=" and read[8:] == "___"
        assert answered[:7] == " " * 7 and answered[7:] == f"{int(a) + int(b):04d}"
        carries += answered[7] == "1"
    assert 0 < carries < 64      # both kinds of answer occur


def test_too_many_sequences_for_the_space_are_refused():
    with pytest.raises(InputError, match=r"asks for 20 distinct sequences of only 16"):
        copy_task(n=20, length=2, symbols=4)
    with pytest.raises(InputError, match=r"validation must be a fraction"):
        sort_task(validation=1.5)
    with pytest.raises(InputError, match=r"length must be a positive int"):
        reverse_task(length=0)
