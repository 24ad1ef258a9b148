"""What nnbook does not do: importing works, calling raises one error that names the way out."""
import pytest

import nnbook as nb
from nnbook.unsupported import REFUSED, STUB_MODULES, STUB_NAMES


def test_a_single_process_script_that_mentions_ddp_runs():
    # the top of nanoGPT's train.py, run without the RANK variable
    import nnbook.distributed as dist
    from nnbook.distributed import destroy_process_group, init_process_group  # noqa: F401

    from nnbook.nn.parallel import DistributedDataParallel as DDP

    model, ddp = nb.nn.Linear(3, 2), False
    if ddp:
        init_process_group(backend="nccl")
        model = DDP(model)
    assert dist.is_available() is False and dist.is_initialized() is False
    with pytest.raises(nb.UnsupportedError, match="DistributedDataParallel: torch.distributed "
                                                  "trains one model in several processes"):
        DDP(model)


@pytest.mark.parametrize("area", STUB_MODULES)
def test_every_stub_module_refuses_with_a_hint(area):
    module = getattr(nb, area)
    with pytest.raises(nb.UnsupportedError) as err:
        module.some_function(1, key=2)
    text = str(err.value)
    assert text.startswith(f"nnbook.{area}.some_function: {REFUSED[area][0]}.")
    assert "test_unsupported.py, line" in text
    assert f"hint: {REFUSED[area][1]}." in text
    assert isinstance(err.value, RuntimeError)


@pytest.mark.parametrize("name", STUB_NAMES)
def test_every_stub_name_refuses_when_called(name):
    with pytest.raises(nb.UnsupportedError, match=f"nb.{name}: .*\n.*\n  hint: "):
        getattr(nb, name)([0])


def test_jit_names_the_alternative():
    model = nb.nn.Linear(2, 2)
    with pytest.raises(nb.UnsupportedError, match=r"hint: call the model directly; save it with "
                                                  r"nb.save\(model.state_dict\(\), path\)"):
        nb.jit.script(model)


def test_refused_names_still_answer_introspection():
    import nnbook.jit

    assert hasattr(nb.jit, "trace") and callable(nb.jit.trace)
    assert repr(nb.sparse_coo_tensor) == "<nb.sparse_coo_tensor: not in nnbook>"
    with pytest.raises(AttributeError):
        nnbook.jit.__path__  # noqa: B018  (not a package: `import nnbook.jit.x` fails cleanly)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        nb.no_such_name  # noqa: B018
