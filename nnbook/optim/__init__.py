"""nnbook.optim: SGD and Adam with PyTorch's names and update rules.

    opt = nb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad(); loss.backward(); opt.step()
"""
from .adam import Adam
from .optimizer import Optimizer, UnusedParameterWarning
from .sgd import SGD

__all__ = ["Adam", "Optimizer", "SGD", "UnusedParameterWarning"]
