"""Small sequence data sets generated on the spot: made-up words and algorithmic tasks.

    from nnbook.data import words, char_dataset, copy_task
    names = words(500, seed=0)              # ['talo', 'misk', 'brenu', ...]
    x, y, alphabet = char_dataset(names)    # next-character prediction, int64 (N, L)
    task = copy_task(1000, length=6, seed=0)
    task.x_train, task.y_train, task.x_val, task.y_val

``words`` follows a small syllable grammar (an onset, a vowel, maybe a coda), so a
character-level model has real regularities to find: which letters start a word,
that a vowel follows a consonant cluster, where words end.

The algorithmic tasks are read one token per step and answered one token per step.
Positions with nothing to predict have the target -100, which ``nn.CrossEntropyLoss`` and
``nn.NLLLoss`` skip by default (``ignore_index=-100``).  Every sequence is unique within a
task, so the validation split holds none of the training sequences.

Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same
data whatever ``nb.manual_seed`` was set to.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError, message

IGNORE = -100  # the target where nothing is to be predicted (the losses' ignore_index)

# The syllable grammar: onset (maybe empty), vowel, coda (maybe empty)
ONSETS = ("", "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
          "br", "dr", "gr", "kr", "pl", "st", "tr", "sk")
VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
CODAS = ("", "", "", "n", "r", "s", "l", "k", "m")
END = "."  # the character that ends a word in char_dataset


def _positive(where: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(message(f"{name} must be a positive int, got {value!r}.",
                                 where=where, hint=f"for example {name}=8."))
    return int(value)


def words(n: int = 1000, seed: int = 0, max_syllables: int = 3) -> list[str]:
    """``n`` made-up words of 1 to ``max_syllables`` syllables (repeats are possible,
    as in real text: short words come up more often)."""
    n = _positive("nb.data.words", "n", n)
    max_syllables = _positive("nb.data.words", "max_syllables", max_syllables)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        parts = []
        for s in range(int(rng.integers(1, max_syllables + 1))):
            # inside a word a syllable starts with a consonant, so vowels never collide
            onset = ONSETS[int(rng.integers(1 if s else 0, len(ONSETS)))]
            coda = CODAS[int(rng.integers(len(CODAS)))] if s == 0 or rng.random() < 0.5 else ""
            parts.append(onset + VOWELS[int(rng.integers(len(VOWELS)))] + coda)
        out.append("".join(parts))
    return out


def char_dataset(word_list: list[str], alphabet: str | None = None):
    """Next-character pairs for a character-level language model.

    Returns ``(x, y, alphabet)``: x (N, L) holds '.' then the word's characters, y (N, L)
    the word's characters then '.', both as indices into ``alphabet`` ('.' is index 0);
    L is the longest word + 1, and the padding is index 0 in x and -100 in y.
    """
    if alphabet is None:
        alphabet = END + "".join(sorted(set("".join(word_list)) - {END}))
    index = {ch: i for i, ch in enumerate(alphabet)}
    missing = sorted(set("".join(word_list)) - set(index))
    if missing:
        raise InputError(message(
            f"the words use characters the alphabet lacks: {''.join(missing)!r}.",
            where="nb.data.char_dataset", hint="leave alphabet out to build it from the words."))
    width = max(len(w) for w in word_list) + 1
    x = np.zeros((len(word_list), width), np.int64)
    y = np.full((len(word_list), width), IGNORE, np.int64)
    for row, word in enumerate(word_list):
        codes = [index[ch] for ch in word]
        x[row, 1:len(codes) + 1] = codes
        y[row, :len(codes) + 1] = codes + [index[END]]
    return x, y, alphabet


@dataclass(frozen=True)
class SequenceTask:
    """An algorithmic task split into training and validation sequences.

    x (N, L) int64 tokens, y (N, L) int64 targets (-100 where there is nothing to
    predict); ``alphabet[k]`` is how token k is written (``task.text(x[0])``).
    """

    name: str
    alphabet: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray

    @property
    def vocab_size(self) -> int:
        return len(self.alphabet)

    def text(self, tokens) -> str:
        """Tokens (or targets) as text; an ignored target shows as a space."""
        return "".join(" " if int(t) == IGNORE else self.alphabet[int(t)] for t in tokens)


def _split(name, alphabet, x, y, validation: float) -> SequenceTask:
    if not 0 <= validation < 1:
        raise InputError(message(f"validation must be a fraction in [0, 1), got {validation!r}.",
                                 where=f"nb.data.{name}_task", hint="validation=0.2 keeps a "
                                 "fifth of the sequences for validation."))
    cut = len(x) - int(round(len(x) * validation))
    return SequenceTask(name, alphabet, x[:cut], y[:cut], x[cut:], y[cut:])


def _unique_rows(where: str, draw, n: int, space: int):
    """``n`` distinct rows from ``draw(count)``, in the order they were drawn."""
    if n > space // 2:
        raise InputError(message(
            f"asks for {n} distinct sequences of only {space} possible.", where=where,
            hint="ask for fewer sequences, or make them longer (length=, symbols=, digits=)."))
    rows = np.empty((0, 0))
    while len(rows) < n:
        more = draw(2 * n)
        rows = more if rows.size == 0 else np.concatenate([rows, more])
        _, first = np.unique(rows, axis=0, return_index=True)
        rows = rows[np.sort(first)]
    return rows[:n]


def _echo_task(name, transform, n, length, symbols, seed, validation) -> SequenceTask:
    """Read ``length`` symbols, then a '|', then answer: ``transform`` of what was read.

    x = s_1 .. s_L | _ .. _   (2L tokens; '_' is a blank to read while answering)
    y = (ignored) .. t_1 .. t_L   the answer starts at the '|'.
    """
    where = f"nb.data.{name}_task"
    n, length = _positive(where, "n", n), _positive(where, "length", length)
    symbols = _positive(where, "symbols", symbols)
    if symbols > 26:
        raise InputError(message(f"symbols must be at most 26, got {symbols}.", where=where,
                                 hint="the symbols are written as the letters a to z."))
    rng = np.random.default_rng(seed)
    seqs = _unique_rows(where, lambda k: rng.integers(0, symbols, (k, length)), n,
                        symbols ** min(length, 12))
    mark, blank = symbols, symbols + 1
    x = np.full((n, 2 * length), blank, np.int64)
    x[:, :length], x[:, length] = seqs, mark
    y = np.full((n, 2 * length), IGNORE, np.int64)
    y[:, length:] = transform(seqs)
    alphabet = "abcdefghijklmnopqrstuvwxyz"[:symbols] + "|_"
    return _split(name, alphabet, x, y, validation)


def copy_task(n=1000, length=8, symbols=8, seed=0, validation=0.2) -> SequenceTask:
    """Repeat the sequence after the '|': x 'cabd|___' -> answer 'cabd'."""
    return _echo_task("copy", lambda s: s, n, length, symbols, seed, validation)


def reverse_task(n=1000, length=8, symbols=8, seed=0, validation=0.2) -> SequenceTask:
    """Write the sequence backwards after the '|': 'cabd|___' -> 'dbac'."""
    return _echo_task("reverse", lambda s: s[:, ::-1], n, length, symbols, seed, validation)


def sort_task(n=1000, length=8, symbols=8, seed=0, validation=0.2) -> SequenceTask:
    """Write the sequence sorted after the '|': 'cabd|___' -> 'abcd'."""
    return _echo_task("sort", lambda s: np.sort(s, axis=1), n, length, symbols, seed,
                      validation)


def addition_task(n=1000, digits=3, seed=0, validation=0.2) -> SequenceTask:
    """Add two numbers of ``digits`` digits: x '042+519=____' -> answer '0561' from '='.

    Numbers are zero-padded; the sum has digits + 1 digits, the first of them the carry.
    """
    where = "nb.data.addition_task"
    n, digits = _positive(where, "n", n), _positive(where, "digits", digits)
    if digits > 9:
        raise InputError(message(f"digits must be at most 9, got {digits}.", where=where,
                                 hint="a few digits already take a model a while to learn."))
    rng = np.random.default_rng(seed)
    pairs = _unique_rows(where, lambda k: rng.integers(0, 10 ** digits, (k, 2)), n,
                         10 ** (2 * digits))
    total = pairs.sum(axis=1)
    plus, equals, blank = 10, 11, 12

    def digits_of(values, width):   # most significant first
        return (values[:, None] // 10 ** np.arange(width - 1, -1, -1)) % 10

    x = np.full((n, 3 * digits + 2), blank, np.int64)
    x[:, :digits], x[:, digits] = digits_of(pairs[:, 0], digits), plus
    x[:, digits + 1:2 * digits + 1] = digits_of(pairs[:, 1], digits)
    x[:, 2 * digits + 1] = equals
    y = np.full(x.shape, IGNORE, np.int64)
    y[:, 2 * digits + 1:] = digits_of(total, digits + 1)
    return _split("addition", "0123456789+=_", x, y, validation)
