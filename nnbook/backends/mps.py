"""``nb.backends.mps``: Apple's GPU backend, absent here (``is_available()`` is False)."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
