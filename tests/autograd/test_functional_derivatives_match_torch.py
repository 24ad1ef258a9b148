"""``nb.autograd.functional.jacobian``, ``vjp`` and ``jvp`` against PyTorch's: the same
numbers, shapes, dtypes and nesting (tensor or tuple, for inputs and outputs); and the
legacy ``nb.autograd.Variable`` beside PyTorch's (tests/autograd/test_functional_derivatives.py
has the rest)."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")
import torch.autograd.functional as torch_functional  # noqa: E402

functional = nb.autograd.functional

# (name, function written once for both libraries (m is nb or torch), input shapes)
FUNCTIONS = {
    "one_to_one": (lambda m: lambda x: (x ** 2).sin() * x.sum(-1, keepdim=True),
                   [(7, 5)]),
    "to_a_number": (lambda m: lambda x: (x.tanh() * x).sum(), [(7, 5)]),
    "from_a_number": (lambda m: lambda x: m.stack([x, x ** 3, x.exp()]), [()]),
    "two_to_one": (lambda m: lambda x, w: (x @ w).relu() + w.sum(), [(7, 3), (3, 5)]),
    "one_to_two": (lambda m: lambda x: (x.cumsum(0), x.max()), [(3, 5)]),
    "two_to_two": (lambda m: lambda x, y: ((x * y[:3]).exp(), (x.sum() * y).sin()),
                   [(3,), (5,)]),
    "unused_input": (lambda m: lambda x, y: x * 2, [(3, 2), (4,)]),
    "independent_output": (lambda m: lambda x: (x * 3, m.ones(2, dtype=m.float64)), [(4,)]),
    "integer_output": (lambda m: lambda x: (x * 2).long(), [(3,)]),
    "empty_input": (lambda m: lambda x: x.sum() * 2, [(0, 3)]),
}


def _inputs(rng, shapes, tuple_form):
    arrays = [rng.standard_normal(s) for s in shapes]
    made = {m: tuple(m.tensor(a) for a in arrays) for m in (nb, torch)}
    if not tuple_form:
        made = {m: ts[0] for m, ts in made.items()}
    return made


def _same(mine, theirs, tol=1e-10):
    if isinstance(theirs, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            _same(a, b, tol)
        return
    assert isinstance(mine, nb.Tensor) and not mine.requires_grad
    assert mine.shape == tuple(theirs.shape), (mine.shape, theirs.shape)
    assert mine.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(mine.numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _cases():
    for name, (_, shapes) in FUNCTIONS.items():
        yield name, True
        if len(shapes) == 1:
            yield name, False


@pytest.mark.parametrize("name,tuple_form", list(_cases()))
def test_jacobian_matches_torch(rng, name, tuple_form):
    make, shapes = FUNCTIONS[name]
    inputs = _inputs(rng, shapes, tuple_form)
    _same(functional.jacobian(make(nb), inputs[nb]),
          torch_functional.jacobian(make(torch), inputs[torch]))


@pytest.mark.parametrize("name,tuple_form", list(_cases()))
def test_vjp_matches_torch(rng, name, tuple_form):
    make, shapes = FUNCTIONS[name]
    inputs = _inputs(rng, shapes, tuple_form)
    out = make(torch)(*(inputs[torch] if tuple_form else (inputs[torch],)))
    outs = out if isinstance(out, tuple) else (out,)
    vs = [rng.standard_normal(tuple(o.shape)) for o in outs]
    v = {m: tuple(m.tensor(a) for a in vs) for m in (nb, torch)}
    if not isinstance(out, tuple):
        v = {m: t[0] for m, t in v.items()}
    _same(functional.vjp(make(nb), inputs[nb], v[nb]),
          torch_functional.vjp(make(torch), inputs[torch], v[torch]))


@pytest.mark.parametrize("name,tuple_form", [c for c in _cases() if c[0] != "integer_output"])
def test_jvp_matches_torch(rng, name, tuple_form):
    make, shapes = FUNCTIONS[name]
    inputs = _inputs(rng, shapes, tuple_form)
    directions = _inputs(rng, shapes, tuple_form)
    _same(functional.jvp(make(nb), inputs[nb], directions[nb]),
          torch_functional.jvp(make(torch), inputs[torch], directions[torch]))


def test_v_may_be_left_out_for_one_number_as_in_torch(rng):
    x = rng.standard_normal((7, 5))
    _same(functional.vjp(lambda t: (t ** 3).mean(), nb.tensor(x)),
          torch_functional.vjp(lambda t: (t ** 3).mean(), torch.tensor(x)))
    _same(functional.jvp(lambda t: t * nb.tensor(x), nb.tensor(0.5, dtype=nb.float64)),
          torch_functional.jvp(lambda t: t * torch.tensor(x),
                               torch.tensor(0.5, dtype=torch.float64)))


def test_jacobian_of_float32_is_float32_and_options_give_the_same_numbers(rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    fn = lambda t: t.softmax(-1)  # noqa: E731
    plain = functional.jacobian(fn, nb.tensor(x))
    _same(plain, torch_functional.jacobian(fn, torch.tensor(x)), tol=1e-6)
    for options in ({"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}):
        np.testing.assert_array_equal(functional.jacobian(fn, nb.tensor(x), **options).numpy(),
                                      plain.numpy())


def test_variable_returns_a_new_leaf_sharing_memory_as_in_torch(rng):
    data = rng.standard_normal((7, 5))
    for m in (nb, torch):
        t = m.tensor(data)
        v = m.autograd.Variable(t, requires_grad=True)
        assert type(v) is m.Tensor and v is not t and v.requires_grad and v.is_leaf
        assert not t.requires_grad
        assert isinstance(t, m.autograd.Variable) and not isinstance(data, m.autograd.Variable)
        with m.no_grad():
            v.mul_(2)
        np.testing.assert_allclose(t.numpy(), data * 2)  # one memory
        assert t._version == 1
        (v * v).sum().backward()
        np.testing.assert_allclose(v.grad.numpy(), data * 4)
        made = m.tensor(data, requires_grad=True) * 3
        cut = m.autograd.Variable(made)
        assert not cut.requires_grad and cut.grad_fn is None
        assert not m.autograd.Variable(t, False).requires_grad


def test_jvp_of_an_integer_output_is_refused_by_both():
    with pytest.raises(RuntimeError):
        torch_functional.jvp(lambda t: t.long(), torch.ones(3), torch.ones(3))
    with pytest.raises(nb.DTypeError, match="jvp: output 0 of the function is int64"):
        functional.jvp(lambda t: t.long(), nb.ones(3), nb.ones(3))
