"""Arithmetic written as functions, as ported code often has it: ``torch.add(x, y,
alpha=...)``, ``torch.sub``, ``torch.mul``, ``torch.div`` with ``rounding_mode``, the
method forms (``x.add(y, alpha=2)``), ``torch.pow``, ``torch.matmul`` and ``torch.mm``, and
a parameter update written ``p.add_(p.grad, alpha=-lr)``.

Compared: every result with its dtype, and the gradients through them.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-12, atol=1e-12)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(36)
    x = torch.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    y = torch.tensor(rng.standard_normal(5), requires_grad=True)
    ints = torch.tensor(rng.integers(-9, 10, (3, 4)))

    out = torch.add(x, y, alpha=-0.5) + torch.sub(x, y, alpha=2) * torch.mul(x, 3) \
        + torch.div(x, torch.add(y.abs(), 1)) + x.add(y, alpha=2) - x.sub(1.5, alpha=2)
    out.sum().backward()

    weight = torch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    (torch.mm(x.detach(), weight) ** 2).sum().backward()
    with torch.no_grad():
        weight.add_(weight.grad, alpha=-0.01)

    return {"out": out, "x_grad": x.grad, "y_grad": y.grad, "weight": weight,
            "int_results": [torch.add(ints, 2, alpha=3), torch.sub(ints, ints, alpha=2),
                            torch.mul(ints, ints), torch.div(ints, 4),
                            torch.div(ints, 4, rounding_mode="floor"),
                            torch.div(ints, 4, rounding_mode="trunc"),
                            ints.div(-3, rounding_mode="trunc"),
                            torch.div(x.detach(), 0.7, rounding_mode="floor"),
                            torch.pow(ints.abs(), 2), torch.matmul(ints, ints.T)]}
