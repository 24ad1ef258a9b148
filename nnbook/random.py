"""Random numbers: generators, seeds and the distributions PyTorch code draws from.

Every random number nnbook draws (``nb.randn``, layer initialisation, dropout,
``DataLoader(shuffle=True)``) comes from a :class:`Generator`: the one given as
``generator=``, or the default one that ``nb.manual_seed`` seeds.  The same seed
gives the same numbers on any machine -- not the numbers PyTorch draws (its
generator is a different algorithm), so compare results, not random draws.
"""
from __future__ import annotations

import os

import numpy as np

from . import dtypes
from .device import check_device
from .errors import ArgumentError, DTypeError, InputError, message


def _seed_value(seed, where) -> int:
    try:
        value = int(seed)  # PyTorch takes anything int() takes, '42' included
    except (TypeError, ValueError):
        raise ArgumentError(message(f"a seed must be a whole number, got {seed!r}.",
                                    where=where, hint="e.g. nb.manual_seed(0).")) from None
    if value < 0:
        value &= (1 << 64) - 1  # as PyTorch, a negative seed wraps around
    return value


class Generator:
    """An independent stream of random numbers (PyTorch's ``torch.Generator``).

        g = nb.Generator().manual_seed(2147483647)
        nb.randn(3, generator=g)     # the same three numbers every time
    """

    def __init__(self, device="cpu"):
        check_device(device, "nb.Generator")
        self._seed = 67280421310721  # PyTorch's default seed, for the record
        self.numpy = np.random.default_rng(self._seed)

    @property
    def device(self):
        from .device import CPU

        return CPU

    def manual_seed(self, seed, _where="Generator.manual_seed") -> "Generator":
        self._seed = _seed_value(seed, _where)
        self.numpy = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed used."""
        self._seed = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.numpy = np.random.default_rng(self._seed)
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor (save it to draw the same numbers again later)."""
        import json

        from .tensor import _wrap

        text = json.dumps(self.numpy.bit_generator.state)
        return _wrap(np.frombuffer(text.encode(), dtype=np.uint8).copy())

    def set_state(self, state) -> "Generator":
        import json

        try:
            raw = bytes(np.asarray(state, dtype=np.uint8).tobytes())
            self.numpy.bit_generator.state = json.loads(raw.decode())
        except (ValueError, TypeError, KeyError, UnicodeDecodeError):
            raise InputError(message(
                "this is not a generator state saved by nnbook.", where="set_state",
                hint="pass what get_state() / nb.get_rng_state() returned.")) from None
        return self

    def __repr__(self):
        return f"<nnbook.Generator, seeded with {self._seed}>"


default_generator = Generator()


def _default_generator_after_fork() -> None:
    """A forked child has only the thread that forked.  Had another thread been drawing
    from the default generator, its numpy bit generator's lock would stay held in the
    child for good: the child continues the same stream in a new bit generator."""
    old = default_generator.numpy.bit_generator
    fresh = type(old)()
    fresh.state = old.state  # the getter and setter take no lock
    default_generator.numpy = np.random.Generator(fresh)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_default_generator_after_fork)


def manual_seed(seed) -> Generator:
    """Seed every random number nnbook draws by default (initialisation, dropout, randn...)."""
    return default_generator.manual_seed(seed, "nb.manual_seed")


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)


def numpy_generator(generator=None) -> np.random.Generator:
    """The numpy generator to draw from: ``generator``'s, or the default one."""
    if generator is None:
        return default_generator.numpy
    if not isinstance(generator, Generator):
        raise ArgumentError(message(
            f"generator= must be an nb.Generator, got {type(generator).__name__}.",
            where="generator=", hint="make one with g = nb.Generator().manual_seed(0)."))
    return generator.numpy


def float_dtype(dtype, where) -> np.dtype:
    """The dtype of a random float tensor: the default float unless a float dtype is given."""
    if dtype is None:
        return dtypes.default_float()
    d = dtypes.numpy_dtype(dtype, where)
    if d.kind != "f":
        raise DTypeError(message(
            f"{where} draws floating point numbers; dtype {dtypes.of_numpy(d).name} is not one.",
            where=where, hint="use nb.float32 or nb.float64 (for integers: nb.randint)."))
    return d
