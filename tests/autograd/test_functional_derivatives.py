"""``nb.autograd.functional.jacobian``, ``vjp`` and ``jvp`` on functions whose derivatives
are known, their agreement with one another, the inputs left as they were, the nesting of
tuples and the errors; and ``nb.autograd.Variable``.  (The comparisons with PyTorch are in
tests/autograd/test_functional_derivatives_match_torch.py.)"""
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import ArgumentError, BackwardError, DTypeError, InputError, ShapeError

functional = nb.autograd.functional


def test_jacobians_of_known_functions(rng):
    x, a = rng.standard_normal(5), rng.standard_normal((7, 5))
    np.testing.assert_allclose(functional.jacobian(lambda t: t ** 2, nb.tensor(x)).numpy(),
                               np.diag(2 * x), rtol=1e-12)
    np.testing.assert_allclose(  # d(A x)/dx = A, and d(A x)/dA[i, j, k] = [i == j] x[k]
        functional.jacobian(lambda m, t: m @ t, (nb.tensor(a), nb.tensor(x)))[1].numpy(),
        a, rtol=1e-12)
    by_matrix = functional.jacobian(lambda m: m @ nb.tensor(x), nb.tensor(a))
    assert by_matrix.shape == (7, 7, 5)
    np.testing.assert_allclose(by_matrix.numpy(), np.einsum("ij,k->ijk", np.eye(7), x),
                               rtol=1e-12)
    gradient = functional.jacobian(lambda t: (t.sin() * 3).sum(), nb.tensor(x))
    assert gradient.shape == (5,)
    np.testing.assert_allclose(gradient.numpy(), 3 * np.cos(x), rtol=1e-12)


def test_tuples_nest_output_first(rng):
    x, y = nb.tensor(rng.standard_normal((3, 2))), nb.tensor(rng.standard_normal(4))
    jac = functional.jacobian(lambda a, b: (a.sum(0) * b[:2], b.exp()), (x, y))
    assert [[block.shape for block in row] for row in jac] == [[(2, 3, 2), (2, 4)],
                                                                [(4, 3, 2), (4, 4)]]
    np.testing.assert_array_equal(jac[1][0].numpy(), np.zeros((4, 3, 2)))
    np.testing.assert_allclose(jac[1][1].numpy(), np.diag(np.exp(y.numpy())), rtol=1e-12)
    one_input = functional.jacobian(lambda a: (a * 2, a.sum()), x)
    assert isinstance(one_input, tuple) and [j.shape for j in one_input] == [(3, 2, 3, 2),
                                                                              (3, 2)]
    one_output = functional.jacobian(lambda a, b: a.sum() * b, (x, y))
    assert isinstance(one_output, tuple) and [j.shape for j in one_output] == [(4, 3, 2),
                                                                               (4, 4)]


def test_vjp_and_jvp_are_the_jacobian_times_a_vector(rng):
    x, w = nb.tensor(rng.standard_normal((3, 2))), nb.tensor(rng.standard_normal((2, 5)))
    fn = lambda a, b: ((a @ b).tanh(), (a * a).sum())  # noqa: E731
    (j00, j01), (j10, j11) = functional.jacobian(fn, (x, w))
    v = (nb.tensor(rng.standard_normal((3, 5))), nb.tensor(1.5))
    values, (vjp_x, vjp_w) = functional.vjp(fn, (x, w), v)
    np.testing.assert_allclose(values[0].numpy(), (x @ w).tanh().numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        vjp_x.numpy(), np.einsum("ij,ijkl->kl", v[0].numpy(), j00.numpy()) + 1.5 * j10.numpy(),
        rtol=1e-12)
    np.testing.assert_allclose(vjp_w.numpy(),
                               np.einsum("ij,ijkl->kl", v[0].numpy(), j01.numpy()), rtol=1e-12)
    u = (nb.tensor(rng.standard_normal((3, 2))), nb.tensor(rng.standard_normal((2, 5))))
    _, (jvp0, jvp1) = functional.jvp(fn, (x, w), u)
    np.testing.assert_allclose(jvp0.numpy(), np.einsum("ijkl,kl->ij", j00.numpy(), u[0].numpy())
                               + np.einsum("ijkl,kl->ij", j01.numpy(), u[1].numpy()), rtol=1e-12)
    np.testing.assert_allclose(jvp1.numpy(), (j10.numpy() * u[0].numpy()).sum(), rtol=1e-12)


def test_the_inputs_given_are_left_as_they_were(rng):
    x = nb.tensor(rng.standard_normal(5), requires_grad=True)
    jac = functional.jacobian(lambda t: t.exp(), x)
    assert x.grad is None and x.is_leaf and x._version == 0 and not jac.requires_grad
    np.testing.assert_allclose(jac.numpy(), np.diag(np.exp(x.detach().numpy())), rtol=1e-12)


def test_wrong_calls_get_nnbook_errors():
    x = nb.ones(3)
    with pytest.raises(ArgumentError, match="jacobian: the inputs must be a tensor or a tuple "
                                            "of tensors, got a list"):
        functional.jacobian(lambda t: t, [x])
    with pytest.raises(ArgumentError, match="the outputs of the function must be a tensor or "
                                            "a tuple of tensors, got a float"):
        functional.jacobian(lambda t: 3.0, x)
    with pytest.raises(BackwardError, match="output 1 of the function does not depend on the "
                                            "inputs"):
        functional.jacobian(lambda t: (t * 2, nb.ones(2)), x, strict=True)
    with pytest.raises(BackwardError, match="output 0 of the function does not depend on "
                                            "input 1"):
        functional.vjp(lambda t, u: t * 2, (x, nb.ones(2)), x, strict=True)
    with pytest.raises(DTypeError, match="only floating point tensors can require gradients"):
        functional.jacobian(lambda t: t * 2, nb.tensor([1, 2]))
    with pytest.raises(BackwardError, match="create_graph=True asks for a graph"):
        functional.jacobian(lambda t: t * 2, x, create_graph=True)
    with pytest.raises(InputError, match="strategy must be 'reverse-mode' or 'forward-mode'"):
        functional.jacobian(lambda t: t * 2, x, strategy="bogus")
    with pytest.raises(InputError, match="forward-mode' needs vectorize=True"):
        functional.jacobian(lambda t: t * 2, x, strategy="forward-mode")
    with pytest.raises(InputError, match="vjp: v can only be left out when the function "
                                         r"returns one tensor with one element.*\(3,\)"):
        functional.vjp(lambda t: t * 2, x)
    with pytest.raises(InputError, match="jvp: v can only be left out when the input is one"):
        functional.jvp(lambda t: t * 2, x)
    with pytest.raises(ShapeError, match=r"v must have the shapes of the outputs: \(3,\); got "
                                         r"\(4,\)"):
        functional.vjp(lambda t: t * 2, x, nb.ones(4))
    with pytest.raises(DTypeError, match="jvp: output 0 of the function is int64"):
        functional.jvp(lambda t: t.long(), x, x)
    with pytest.raises(ShapeError, match=r"v must have the shapes of the inputs: \(3,\), \(2,\)"):
        functional.jvp(lambda t, u: t * 2, (x, nb.ones(2)), (x,))


@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
def test_second_derivatives_are_refused_with_an_error_that_says_why(name):
    with pytest.raises(nb.UnsupportedError, match=rf"{name} needs second derivatives"):
        getattr(functional, name)(lambda t: (t ** 3).sum(), nb.ones(3))


# -- Variable ----------------------------------------------------------------------------

def test_variable_refuses_what_torch_refuses_and_warns_of_volatile():
    with pytest.raises(ArgumentError, match="Variable wraps a tensor, got list"):
        nb.autograd.Variable([1.0, 2.0])
    with pytest.raises(DTypeError, match="only floating point tensors can require gradients"):
        nb.autograd.Variable(nb.tensor([1, 2]), requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = nb.autograd.Variable(nb.ones(2), volatile=True)
    assert [str(w.message) for w in caught][0].startswith("volatile was removed")
    assert not v.requires_grad
