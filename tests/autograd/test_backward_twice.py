"""A second backward() through the same graph: it runs again through nodes that saved
nothing (as PyTorch's AddBackward0), and is refused, with the way out, where a node
freed what it saved."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import BackwardError


def test_a_graph_of_additions_can_be_walked_twice(rng):
    a = nb.tensor(rng.standard_normal(5), requires_grad=True)
    b = nb.tensor(rng.standard_normal(5), requires_grad=True)
    y = a + b - a
    g = rng.standard_normal(5)
    y.backward(nb.tensor(g))
    y.backward(nb.tensor(g))  # nothing was saved, nothing was freed
    np.testing.assert_allclose(b.grad.numpy(), 2 * g, rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), np.zeros(5), atol=1e-12)


def test_a_node_that_saved_its_inputs_refuses_a_second_backward(rng):
    a = nb.tensor(rng.standard_normal(5), requires_grad=True)
    y, g = a * a, nb.ones(5)
    y.backward(g)
    with pytest.raises(BackwardError, match=r"(?s)mul, whose saved values were freed.*"
                       r"retain_graph=True"):
        y.backward(g)
    np.testing.assert_allclose(a.grad.numpy(), 2 * a.detach().numpy(), rtol=1e-12)  # unchanged
