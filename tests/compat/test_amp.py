"""Mixed precision and compile: the AMP training loop runs here, unchanged, with one note each."""
import subprocess
import sys

import numpy as np
import pytest

import nnbook as nb


def train(rng, steps, use_amp):
    """The usual AMP loop; with use_amp False it is the plain loop."""
    gen = nb.Generator().manual_seed(4)
    x = nb.randn(9, 5, generator=gen, dtype=nb.float64)
    y = nb.randn(9, 2, generator=gen, dtype=nb.float64)
    nb.manual_seed(0)
    model = nb.nn.Linear(5, 2).double()
    opt = nb.optim.SGD(model.parameters(), lr=0.1)
    scaler = nb.amp.GradScaler(enabled=use_amp)
    for _ in range(steps):
        with nb.autocast(device_type="cpu", dtype=nb.bfloat16, enabled=use_amp):
            loss = nb.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
    return model.weight.detach().numpy()


def test_the_amp_loop_computes_what_the_plain_loop_computes(rng):
    plain = train(rng, 5, use_amp=False)  # enabled=False: no note at all
    with pytest.warns(nb.NnbookNote) as notes:
        amp = train(rng, 5, use_amp=True)
    np.testing.assert_array_equal(amp, plain)
    texts = {str(n.message).split(":")[0] for n in notes}
    assert texts == {"nb.amp.GradScaler", "nb.autocast"}


def test_a_switched_off_scaler_passes_everything_through():
    with pytest.warns(nb.NnbookNote, match="GradScaler is switched off"):
        scaler = nb.cuda.amp.GradScaler(init_scale=1024.0)
    loss = nb.tensor(2.5, requires_grad=True)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    assert not scaler.is_enabled() and scaler.state_dict() == {}

    class Opt:
        def step(self, closure=None):
            return "stepped"

    assert scaler.step(Opt()) == "stepped"
    assert nb.amp.GradScaler(enabled=False).get_growth_factor() == 2.0


@pytest.mark.parametrize("kwargs", [dict(device_type="cpu", dtype=nb.float32),
                                    dict(device_type="cpu", enabled=False),
                                    dict(device_type="cuda", enabled=False)])
def test_autocast_to_float32_or_disabled_says_nothing(kwargs):
    with nb.autocast(**kwargs):
        y = nb.ones(2, 3) @ nb.ones(3, 2)
    assert y.dtype == nb.float32


@pytest.mark.parametrize("make", [lambda: nb.autocast("cpu"),
                                  lambda: nb.autocast("cuda", dtype=nb.float16),
                                  lambda: nb.amp.autocast("cpu", dtype=nb.bfloat16),
                                  lambda: nb.cuda.amp.autocast()])
def test_autocast_to_half_precision_notes_and_keeps_the_dtype(make):
    with pytest.warns(nb.NnbookNote, match="nothing changes inside this block"):
        with make():
            y = nb.ones(2, 3) @ nb.ones(3, 2)
    assert y.dtype == nb.float32


def test_autocast_is_also_a_decorator():
    @nb.autocast("cpu", enabled=False)
    def f(x):
        return x * 2

    assert f(nb.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(nb.InputError, match="unknown device type 'tpu'"):
        nb.autocast("tpu")
    assert nb.is_autocast_enabled() is False


def test_compile_returns_the_model_and_works_as_a_decorator():
    model = nb.nn.Linear(3, 2)
    with pytest.warns(nb.NnbookNote, match="nb.compile: nnbook does not compile models"):
        assert nb.compile(model) is model
    with pytest.warns(nb.NnbookNote):
        @nb.compile(mode="max-autotune")
        def f(x):
            return x + 1
    assert f(1) == 2
    assert nb.compile(model, disable=True) is model  # disabled: nothing to say


def test_a_note_is_shown_once_however_often_it_is_asked_for():
    code = ("import nnbook as nb, warnings\n"
            "m = nb.nn.Linear(2, 2)\n"
            "for _ in range(3):\n"
            "    nb.compile(m)\n"
            "nb.compile(m)\n")
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stderr
    assert err.count("NnbookNote: nb.compile") == 1
