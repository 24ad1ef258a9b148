"""x[key] and x[key] = value agree with PyTorch on random keys: values, shapes, gradients.

Keys mix ints, slices with positive steps, negative indices, lists, integer tensors,
boolean masks, None and ``...`` on odd shapes of up to 4 dimensions.  Where PyTorch refuses
a key (an index out of range, advanced indices that do not broadcast together, a negative
step) nnbook must refuse it too, with its own error of the same builtin class.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nnbook as nb

torch = pytest.importorskip("torch")

from like_pytorch import assert_same, outcome, same_failure  # noqa: E402

FEW = settings(max_examples=120, deadline=None, derandomize=True)


# ---------------------------------------------------------------------------------- keys
# A key is drawn as a list of entries, each ("kind", payload), turned into the key nnbook
# and the key PyTorch get by `as_key`.  Entries index the dimensions in order; an ellipsis
# splits them between the front and the back of the shape.

@st.composite
def entries_for(draw, sizes, index_shape):
    """Entries that index the dimensions of ``sizes`` (in order) and some Nones."""
    out, i = [], 0
    while i < len(sizes):
        n = sizes[i]
        kind = draw(st.sampled_from(["list", "tensor", "mask", "int", "slice", "int0d", "none",
                                     "skip"]))
        if kind == "none":
            out.append(("none", None))
            continue
        if kind == "skip":  # a full slice, written as `:`
            out.append(("slice", slice(None)))
        elif kind in ("int", "int0d"):
            out.append((kind, draw(st.integers(-n, n - 1))))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = draw(st.sampled_from([None, 1, 2, 3]))
            out.append(("slice", slice(draw(bound), draw(bound), step)))
        elif kind in ("list", "tensor"):
            shape = index_shape if kind == "tensor" else index_shape[-1:]
            if draw(st.integers(0, 9)) < 9:  # mostly shapes that broadcast together
                shape = tuple(draw(st.sampled_from([s, 1])) for s in shape)
            else:
                shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))
            values = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(shape)),
                                   max_size=int(np.prod(shape))))
            payload = np.array(values, dtype=np.int64).reshape(shape)
            out.append((kind, payload.tolist() if kind == "list" else payload))
        else:  # a mask over the next one or two dimensions
            span = draw(st.integers(1, min(2, len(sizes) - i)))
            shape = tuple(sizes[i:i + span])
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                 max_size=int(np.prod(shape))))
            out.append(("mask", np.array(bits, dtype=bool).reshape(shape)))
            i += span
            continue
        i += 1
    return out


@st.composite
def shapes_and_keys(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    index_shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    front = len(shape) - draw(st.integers(0, len(shape)))  # mostly every dimension
    if draw(st.booleans()):  # an ellipsis, with entries before and after it
        back = len(shape) - front - draw(st.integers(0, len(shape) - front))
        entries = draw(entries_for(shape[:front], index_shape)) + [("ellipsis", None)] + \
            draw(entries_for(shape[len(shape) - back:], index_shape))
    else:
        entries = draw(entries_for(shape[:front], index_shape))
    if draw(st.booleans()) and len(entries) == 1:
        return shape, entries[0]  # a bare entry, not a tuple
    return shape, entries


def as_key(entries, library):
    """The key for nnbook (library=nb) or PyTorch (library=torch)."""
    def one(kind, payload):
        if kind in ("tensor", "mask", "int0d"):
            return library.tensor(payload)
        return {"none": None, "ellipsis": Ellipsis}.get(kind, payload)
    if isinstance(entries, tuple):
        return one(*entries)
    return tuple(one(*e) for e in entries)


def both(data, requires_grad=False):
    return (nb.tensor(data.copy(), requires_grad=requires_grad),
            torch.tensor(data.copy(), requires_grad=requires_grad))


# ---------------------------------------------------------------------------------- x[key]

@FEW
@given(shapes_and_keys(), st.integers(0, 2**32 - 1))
def test_reading_gives_pytorchs_values_shapes_and_gradients(case, seed):
    shape, entries = case
    rng = np.random.default_rng(seed)
    x, tx = both(rng.standard_normal(shape), requires_grad=True)
    key, tkey = as_key(entries, nb), as_key(entries, torch)
    (y, error), (ty, terror) = outcome(lambda: x[key]), outcome(lambda: tx[tkey])
    if same_failure(error, terror, f"x{list(shape)}[{entries}]"):
        return
    assert_same(y, ty, f"x{list(shape)}[{entries}]")
    upstream = rng.standard_normal(ty.shape)
    y.backward(nb.tensor(upstream))
    ty.backward(torch.tensor(upstream))
    assert_same(x.grad, tx.grad, f"gradient of x{list(shape)}[{entries}]")


def _duplicates(shape, tkey) -> bool:
    """Does ``key`` pick an element twice (then which value a write leaves is unspecified)?"""
    picked = torch.arange(int(np.prod(shape))).reshape(shape)[tkey].reshape(-1)
    return picked.numel() != picked.unique().numel()


@st.composite
def value_shapes(draw, target):
    """Shapes that broadcast to ``target``: itself, with ones, shorter, or with leading ones."""
    shape = tuple(draw(st.sampled_from([s, 1])) for s in target)
    shape = shape[draw(st.integers(0, len(shape))):]
    return (1,) * draw(st.integers(0, 2)) + shape


@FEW
@given(shapes_and_keys(), st.data(), st.integers(0, 2**32 - 1))
def test_writing_under_no_grad_gives_pytorchs_values(case, data, seed):
    shape, entries = case
    rng = np.random.default_rng(seed)
    x, tx = both(rng.standard_normal(shape))
    key, tkey = as_key(entries, nb), as_key(entries, torch)
    target, terror = outcome(lambda: tx[tkey].shape)
    if terror is not None:  # a key PyTorch refuses: nnbook refuses to write through it too
        _, error = outcome(lambda: x.__setitem__(key, 1.0))
        same_failure(error, terror, f"x{list(shape)}[{entries}] = 1.0")
        return
    if data.draw(st.booleans()) or _duplicates(shape, tkey):
        value = float(rng.standard_normal())
        v, tv = value, value
    else:
        v, tv = both(rng.standard_normal(data.draw(value_shapes(tuple(target)))))
    with nb.no_grad():
        _, error = outcome(lambda: x.__setitem__(key, v))
    with torch.no_grad():
        _, terror = outcome(lambda: tx.__setitem__(tkey, tv))
    what = f"x{list(shape)}[{entries}] = value of shape {np.shape(v)}"
    if not same_failure(error, terror, what):
        assert_same(x, tx, what)


@FEW
@given(shapes_and_keys(), st.data(), st.integers(0, 2**32 - 1))
def test_writing_in_a_graph_gives_pytorchs_gradients_to_target_and_value(case, data, seed):
    shape, entries = case
    rng = np.random.default_rng(seed)
    x, tx = both(rng.standard_normal(shape), requires_grad=True)
    key, tkey = as_key(entries, nb), as_key(entries, torch)
    target, terror = outcome(lambda: tx[tkey].shape)
    if terror is not None:
        return  # refusals are compared in the test above
    value_shape = tuple(target) if not _duplicates(shape, tkey) else ()  # one value if twice
    if data.draw(st.booleans()):
        value_shape = data.draw(value_shapes(tuple(target))) if value_shape else value_shape
    v, tv = both(rng.standard_normal(value_shape), requires_grad=True)
    y, ty = x * 2.0, tx * 2.0  # a target with a history
    y[key] = v
    ty[tkey] = tv
    what = f"y = 2 * x{list(shape)}; y[{entries}] = value of shape {value_shape}"
    assert_same(y, ty, what)
    upstream = rng.standard_normal(shape)
    y.backward(nb.tensor(upstream))
    ty.backward(torch.tensor(upstream))
    assert_same(x.grad, tx.grad, f"{what}: the gradient of x")
    assert_same(v.grad, tv.grad, f"{what}: the gradient of the value")


# ---------------------------------------------------------------------------------- refusals

@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_negative_steps_and_indices_out_of_range_are_refused_by_both(shape, data):
    x, tx = both(np.zeros(shape))
    n = shape[0]
    kind = data.draw(st.sampled_from(["step", "int", "list", "tensor"]))
    if kind == "step":  # at the front of the key, or after some full slices
        at = data.draw(st.integers(0, len(shape) - 1))
        step = slice(data.draw(st.none() | st.integers(-n, n)), None,
                     data.draw(st.integers(-3, -1)))
        nb_key = torch_key = (slice(None),) * at + (step,) if at else step
    else:
        bad = data.draw(st.integers(n, n + 3) | st.integers(-n - 3, -n - 1))
        nb_key = torch_key = [0, bad] if kind == "list" else bad
        if kind == "tensor":
            nb_key, torch_key = nb.tensor([bad, 0]), torch.tensor([bad, 0])
    _, error = outcome(lambda: x[nb_key])
    _, terror = outcome(lambda: tx[torch_key])
    assert same_failure(error, terror, f"x{shape}[{torch_key}]")
    expected = nb.InputError if kind == "step" else nb.DimError
    assert isinstance(error, expected)
    _, error = outcome(lambda: x.__setitem__(nb_key, 1.0))
    assert isinstance(error, expected)


NUMBERS = [2.7, -1, True, 300, -255, -256, -1.5, 255.9, 123456789.0, 7e4, 1e10, np.inf, np.nan]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float16", "float32"])
def test_writing_a_python_number_converts_it_to_the_tensors_dtype_as_pytorch(dtype):
    for number in NUMBERS:  # some wrap (-1 in uint8), some are refused (300 in int8)
        x, tx = nb.zeros(3, dtype=getattr(nb, dtype)), torch.zeros(3, dtype=getattr(torch, dtype))
        _, error = outcome(lambda x=x, number=number: x.__setitem__(1, number))
        _, terror = outcome(lambda tx=tx, number=number: tx.__setitem__(1, number))
        what = f"{dtype} x[1] = {number!r}"
        if not same_failure(error, terror, what):
            assert_same(x, tx, what)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_gather_and_the_scatters_take_int32_or_int64_indices_as_pytorch(index_dtype):
    rng = np.random.default_rng(8)
    data, src = rng.standard_normal((3, 4)), rng.standard_normal((3, 2))
    index = np.array([[0, 1], [2, 3], [1, 1]], dtype=index_dtype)
    calls = [lambda lib, x, i, s: x.gather(1, i),
             lambda lib, x, i, s: x.scatter(1, i, s),
             lambda lib, x, i, s: x.scatter_add(1, i, s),
             lambda lib, x, i, s: x.scatter_reduce(1, i, s, "amax")]
    for call in calls:
        x, s = nb.tensor(data, requires_grad=True), nb.tensor(src, requires_grad=True)
        tx, ts = torch.tensor(data, requires_grad=True), torch.tensor(src, requires_grad=True)
        out, tout = call(nb, x, nb.tensor(index), s), call(torch, tx, torch.tensor(index), ts)
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy())
        out.sum().backward()
        tout.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
