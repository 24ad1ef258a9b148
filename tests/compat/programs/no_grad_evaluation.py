"""Evaluation without a graph: ``model.eval()`` and ``with torch.no_grad():``, then
``requires_grad`` of the outputs, ``torch.is_grad_enabled()``, ``detach()``, the
``@torch.no_grad()`` decorator, and ``torch.set_grad_enabled(False)``, around a model
with dropout (which eval mode turns off).

PyTorch's initial weights are copied into nnbook's model. Compared: the flags, the
evaluation outputs (identical between two eval passes) and the accuracy.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.4), nn.Linear(16, 3))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(34)
    X = torch.tensor(rng.standard_normal((13, 8)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, 13))

    flags = [torch.is_grad_enabled()]
    model.eval()
    with torch.no_grad():
        flags.append(torch.is_grad_enabled())
        out = model(X)
        out_again = model(X)
        flags.append(out.requires_grad)
    flags.append(torch.is_grad_enabled())

    @torch.no_grad()
    def evaluate(net, inputs, targets):
        preds = net(inputs).argmax(dim=1)
        return (preds == targets).float().mean().item(), torch.is_grad_enabled()

    accuracy, inside = evaluate(model, X, y)
    with torch.set_grad_enabled(False):
        flags.append(model(X).requires_grad)
    live = model(X)
    flags += [inside, live.requires_grad, live.detach().requires_grad, model.training]

    return {"flags": flags, "out": out, "repeatable": bool(torch.equal(out, out_again)),
            "accuracy": accuracy}
