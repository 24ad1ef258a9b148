"""In a notebook an nnbook error shows the student's lines and its message, not nnbook's
frames; one switch shows everything again (IPython asks the error for
``_render_traceback_``)."""
import pytest

import nnbook as nb
from nnbook import errors


def _raise_a_shape_error():
    model = nb.nn.Sequential(nb.nn.Linear(6, 10))
    return model(nb.randn(2, 4))  # the student's line


def test_only_the_users_frames_and_the_message_are_shown():
    with pytest.raises(nb.ShapeError) as info:
        _raise_a_shape_error()
    (text,) = info.value._render_traceback_()
    assert "test_short_tracebacks.py, line" in text
    assert "----> " in text and "return model(nb.randn(2, 4))  # the student's line" in text
    assert "nnbook/nn/module.py" not in text and "containers.py" not in text
    assert "frame(s) inside nnbook hidden; nb.show_full_tracebacks() shows them" in text
    assert text.rstrip().endswith(str(info.value).splitlines()[-1])
    assert "ShapeError: 0 (Linear): expects input with 6 features" in text


def test_the_switch_gives_ipython_its_usual_traceback(monkeypatch):
    with pytest.raises(nb.ShapeError) as info:
        _raise_a_shape_error()
    monkeypatch.setattr(errors, "_full_tracebacks", False)
    assert hasattr(info.value, "_render_traceback_")
    nb.show_full_tracebacks()
    try:
        assert not hasattr(info.value, "_render_traceback_")  # IPython falls back to its own
    finally:
        nb.show_full_tracebacks(False)
