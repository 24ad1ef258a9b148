"""Logistic regression from scratch on two clouds of points: ``sigmoid`` written as
``1 / (1 + torch.exp(-z))`` and checked against ``torch.sigmoid``, the binary cross-entropy
written out with ``torch.log`` and a small ``eps``, weights and bias as leaf tensors with
``requires_grad=True``, the update under ``torch.no_grad()`` with ``w.grad.zero_()``, and
accuracy from ``(p > 0.5).float()``.

Compared: the hand-written sigmoid against the library's, the loss every 50 steps, the
gradients at the start, w and b at the end, and the accuracy.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(59)
    ones = rng.normal((1.0, 1.5), 0.8, (40, 2))
    zeros = rng.normal((-1.0, -0.5), 0.8, (40, 2))
    X = torch.tensor(np.concatenate([ones, zeros]), dtype=torch.float32)
    y = torch.cat([torch.ones(40), torch.zeros(40)]).reshape(-1, 1)

    def sigmoid(z):
        return 1 / (1 + torch.exp(-z))

    def bce(p, target, eps=1e-7):
        return -(target * torch.log(p + eps) + (1 - target) * torch.log(1 - p + eps)).mean()

    z = torch.linspace(-6, 6, 13)
    sigmoid_gap = (sigmoid(z) - torch.sigmoid(z)).abs().max()

    w = torch.tensor([[0.1], [-0.2]], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr, losses, first_grads = 0.5, [], None
    for step in range(300):
        p = sigmoid(X @ w + b)
        loss = bce(p, y)
        loss.backward()
        if first_grads is None:
            first_grads = [w.grad.clone(), b.grad.clone()]
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        if step % 50 == 49:
            losses.append(loss.item())

    with torch.no_grad():
        predictions = (sigmoid(X @ w + b) > 0.5).float()
        accuracy = (predictions == y).float().mean().item()
    return {"sigmoid_gap": sigmoid_gap, "losses": losses, "first_grads": first_grads,
            "w": w, "b": b, "accuracy": accuracy}
