"""A custom ``torch.autograd.Function``: the Legendre polynomial P3 with its own backward,
fitted to sin(x) as y = a + b P3(c + d x).

Compared: P3's forward and backward on a few points against the same expression through
autograd, the loss every 200 steps, and the four parameters.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=1e-5)


def run(torch, nn, F, optim, data):

    class LegendreP3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            # d/dx (5x^3 - 3x) / 2 = 1.5 (5x^2 - 1)
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    points = torch.tensor([-0.9, -0.2, 0.35, 0.8], dtype=torch.float64, requires_grad=True)
    LegendreP3.apply(points).sum().backward()
    custom_grad = points.grad.clone()
    points.grad = None
    (0.5 * (5 * points ** 3 - 3 * points)).sum().backward()

    dtype = torch.float
    x = torch.linspace(-np.pi, np.pi, 600, dtype=dtype)
    y = torch.sin(x)
    # start near a fit, as P3 of a wide argument grows fast
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

    P3 = LegendreP3.apply
    learning_rate = 5e-6
    losses = []
    for t in range(1000):
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 200 == 199:
            losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None

    return {"custom_grad": custom_grad, "autograd_grad": points.grad, "losses": losses,
            "parameters": torch.stack([a, b, c, d]).detach()}
