"""Fit a cubic to sin(x) with plain tensors and gradients worked out by hand (no autograd).

Compared: the loss every 250 steps and the four coefficients at the end.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=1e-6)


def run(torch, nn, F, optim, data):
    dtype = torch.float
    x = torch.linspace(-np.pi, np.pi, 1000, dtype=dtype)
    y = torch.sin(x)

    start = np.random.default_rng(7).standard_normal(4)
    a, b, c, d = (torch.tensor(v, dtype=dtype) for v in start)

    learning_rate = 1e-6
    losses = []
    for t in range(1500):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum().item()
        if t % 250 == 249:
            losses.append(loss)

        # d(loss)/d(y_pred) = 2 (y_pred - y); the chain rule through each term
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x ** 2).sum()
        grad_d = (grad_y_pred * x ** 3).sum()

        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d

    return {"losses": losses, "coefficients": torch.stack([a, b, c, d])}
