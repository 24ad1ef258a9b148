"""Fit a cubic to sin(x) with autograd: requires_grad, backward(), and the update inside
``torch.no_grad()`` with the gradients set to None after each step.

Compared: the loss every 250 steps, the coefficients and their last gradients.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=1e-5)
# each gradient sums 800 terms up to about 30 in size, cancelling to a few units:
# float32 roundings of about 800 * 30 * 6e-8
TOLERANCE_FOR = {"last_grads": dict(rtol=0, atol=5e-3)}


def run(torch, nn, F, optim, data):
    x = torch.linspace(-np.pi, np.pi, 800)
    y = torch.sin(x)

    start = np.random.default_rng(11).standard_normal(4).astype(np.float32)
    a = torch.tensor(start[0], requires_grad=True)
    b = torch.tensor(start[1], requires_grad=True)
    c = torch.tensor(start[2], requires_grad=True)
    d = torch.tensor(start[3], requires_grad=True)

    learning_rate = 2e-6
    losses, last_grads = [], None
    for t in range(1500):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 250 == 0:
            losses.append(loss.item())
        loss.backward()
        last_grads = [p.grad.clone() for p in (a, b, c, d)]

        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None

    return {"losses": losses, "coefficients": [a, b, c, d], "last_grads": last_grads,
            "grad_is_none": a.grad is None}
