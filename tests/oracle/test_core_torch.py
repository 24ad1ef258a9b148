"""Core ops against PyTorch: forward values and gradients on random non-square configurations."""
import numpy as np
import pytest

import nnbook as nb

torch = pytest.importorskip("torch")


def pair(rng, *shape, positive=False, dtype=np.float64):
    data = rng.standard_normal(shape)
    if positive:
        data = np.abs(data) + 0.5
    data = data.astype(dtype)
    return nb.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def check(nb_out, torch_out, nb_inputs, torch_inputs, rng, tol=1e-10):
    np.testing.assert_allclose(
        nb_out.detach().numpy(), torch_out.detach().numpy(), rtol=tol, atol=tol
    )
    g = rng.standard_normal(nb_out.shape).astype(nb_out.dtype)
    nb_out.backward(g)
    torch_out.backward(torch.tensor(g))
    for a, b in zip(nb_inputs, torch_inputs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


CASES = {
    "add_broadcast": (((4, 7, 5), (7, 1)), lambda a, b: a + b, False),
    "sub_broadcast": (((9, 4), (4,)), lambda a, b: a - b, False),
    "mul_broadcast": (((3, 1, 5), (4, 1)), lambda a, b: a * b, False),
    "div_broadcast": (((7, 5), (1, 5)), lambda a, b: a / b, True),
    "pow": (((7, 5), (7, 5)), lambda a, b: a ** b, True),
    "matmul_batched": (((3, 7, 5), (5, 2)), lambda a, b: a @ b, False),
    "matmul_broadcast": (((2, 1, 7, 5), (3, 5, 4)), lambda a, b: a @ b, False),
    "matmul_vec": (((5,), (3, 5, 4)), lambda a, b: a @ b, False),
    "exp": (((7, 5),), lambda x: x.exp(), False),
    "log": (((7, 5),), lambda x: x.log(), True),
    "tanh": (((9, 4),), lambda x: x.tanh(), False),
    "sigmoid": (((9, 4),), lambda x: x.sigmoid(), False),
    "relu": (((9, 4),), lambda x: x.relu(), False),
    "sqrt": (((9, 4),), lambda x: x.sqrt(), True),
    "sum_dim": (((7, 5, 3),), lambda x: x.sum(dim=(0, 2), keepdim=True), False),
    "mean_dim": (((7, 5, 3),), lambda x: x.mean(dim=1), False),
    "max_dim": (((7, 5, 3),), lambda x: x.max(dim=-1).values, False),
    "max_all": (((7, 5),), lambda x: x.max(), False),
    "reshape": (((7, 5, 2),), lambda x: x.reshape(5, -1), False),
    "permute": (((7, 5, 2),), lambda x: x.permute(2, 0, 1), False),
    "transpose": (((7, 5, 2),), lambda x: x.transpose(0, 2), False),
    "flatten": (((3, 7, 5, 2),), lambda x: x.flatten(1), False),
    "index": (((7, 5),), lambda x: x[1:6:2, [4, 0, 4]], False),
    "unsqueeze": (((7, 5),), lambda x: x.unsqueeze(1).expand(7, 3, 5), False),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_op_matches_torch(name, seed):
    rng = np.random.default_rng(seed)
    shapes, fn, positive = CASES[name]
    pairs = [pair(rng, *s, positive=positive) for s in shapes]
    nb_in, torch_in = [p[0] for p in pairs], [p[1] for p in pairs]
    check(fn(*nb_in), fn(*torch_in), nb_in, torch_in, rng)


def test_cat_matches_torch():
    rng = np.random.default_rng(3)
    (a, ta), (b, tb) = pair(rng, 2, 3, 5), pair(rng, 2, 4, 5)
    check(nb.cat([a, b], 1), torch.cat([ta, tb], 1), [a, b], [ta, tb], rng)


def test_float32_matches_torch():
    rng = np.random.default_rng(4)
    (a, ta), (b, tb) = pair(rng, 7, 5, dtype=np.float32), pair(rng, 5, 3, dtype=np.float32)
    out, tout = (a @ b).tanh().sum(0), (ta @ tb).tanh().sum(0)
    assert out.dtype == np.float32
    check(out, tout, [a, b], [ta, tb], rng, tol=1e-5)
