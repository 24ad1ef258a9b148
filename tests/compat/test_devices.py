"""Devices: the CPU answers, the portable device line, and the error for a GPU."""
import subprocess
import sys

import pytest

import nnbook as nb

CPU_LINE = "write the device line so it works everywhere: device = 'cuda' if " \
           "nb.cuda.is_available() else 'cpu'"


def test_the_device_questions_answer_as_pytorch_without_a_gpu():
    assert nb.cuda.is_available() is False and nb.cuda.device_count() == 0
    assert nb.cuda.is_bf16_supported() is False and nb.cuda.is_initialized() is False
    assert nb.cuda.memory_allocated() == 0 and nb.cuda.max_memory_allocated() == 0
    assert nb.backends.mps.is_available() is False and nb.backends.mps.is_built() is False
    assert nb.backends.cudnn.is_available() is False
    assert nb.accelerator.is_available() is False
    assert nb.accelerator.current_accelerator() is None and nb.accelerator.device_count() == 0
    assert nb.get_default_device() == nb.device("cpu")


def test_seeding_and_emptying_the_gpu_do_nothing():
    state = nb.get_rng_state().tolist()
    nb.cuda.manual_seed(3)
    nb.cuda.manual_seed_all(3)
    nb.cuda.empty_cache()
    assert nb.get_rng_state().tolist() == state


def test_the_portable_device_lines_pick_the_cpu():
    device = "cuda" if nb.cuda.is_available() else "cpu"
    x = nb.ones(7, 5).to(device)
    model = nb.nn.Linear(5, 3).to(device)
    assert model(x).shape == (7, 3)
    device = nb.accelerator.current_accelerator().type if nb.accelerator.is_available() \
        else "cpu"
    use_mps = nb.backends.mps.is_available()
    assert device == "cpu" and not use_mps
    assert x.to(nb.device(device), non_blocking=True) is x
    assert x.to("cpu", nb.float64, True).dtype == nb.float64  # positional non_blocking


def test_backend_switches_keep_what_is_assigned():
    try:
        nb.backends.cudnn.benchmark = True
        nb.backends.cudnn.deterministic = True
        nb.backends.cuda.matmul.allow_tf32 = True
        assert nb.backends.cudnn.benchmark and nb.backends.cudnn.deterministic
        assert nb.backends.cuda.matmul.allow_tf32
    finally:
        nb.backends.cudnn.benchmark = nb.backends.cudnn.deterministic = False
        nb.backends.cuda.matmul.allow_tf32 = False
    nb.use_deterministic_algorithms(True)
    assert nb.are_deterministic_algorithms_enabled()
    nb.use_deterministic_algorithms(False)
    nb.set_float32_matmul_precision("high")
    assert nb.get_float32_matmul_precision() == "high"
    nb.set_float32_matmul_precision("highest")
    with pytest.raises(nb.InputError, match="'highest', 'high' or 'medium', got 'low'"):
        nb.set_float32_matmul_precision("low")


@pytest.mark.parametrize("call", [
    lambda: nb.ones(3).to("cuda"),
    lambda: nb.ones(3).cuda(),
    lambda: nb.ones(3).to(nb.device("mps")),
    lambda: nb.nn.Linear(2, 3).to("cuda:0"),
    lambda: nb.nn.Linear(2, 3).to(device=nb.device("cuda", 1)),
    lambda: nb.nn.Linear(2, 3).cuda(),
    lambda: nb.zeros(2, device="cuda"),
    lambda: nb.set_default_device("mps"),
])
def test_asking_for_a_gpu_explains_the_portable_line(call):
    with pytest.raises(nb.InputError) as err:
        call()
    text = str(err.value)
    assert "nnbook computes on the CPU only" in text and CPU_LINE in text
    assert "test_devices.py, line" in text  # the user's line


def test_gpu_only_calls_raise_unsupported_with_the_guard():
    for call in (nb.cuda.synchronize, nb.cuda.current_device, nb.accelerator.synchronize):
        with pytest.raises(nb.UnsupportedError, match="hint: guard"):
            call()
    with pytest.raises(nb.UnsupportedError, match="nb.cuda.Event"):
        nb.cuda.Event(enable_timing=True)


def test_set_default_device_takes_the_cpu():
    nb.set_default_device("cpu")
    nb.set_default_device(nb.device("cpu"))
    nb.set_default_device(None)
    assert nb.get_default_device().type == "cpu"


def test_the_gpu_modules_load_only_when_asked():
    code = ("import sys, nnbook; names = ('nnbook.cuda', 'nnbook.backends', 'nnbook.amp', "
            "'nnbook.accelerator', 'nnbook.utils'); print([n for n in names if n in "
            "sys.modules]); nnbook.cuda.is_available(); print('nnbook.cuda' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]
