"""What happens to ``.grad``: two ``backward()`` calls add up, ``x.grad.zero_()`` and
``optimizer.zero_grad()`` (which sets gradients to None), gradients accumulated over four
micro-batches against one full batch, ``torch.autograd.grad`` for a gradient without
touching ``.grad``, and a ``register_hook`` that scales a gradient on its way back.

PyTorch's initial weights are copied into nnbook's model. Compared: the accumulated and
zeroed gradients, the None after ``zero_grad()``, the micro-batch sum against the full
batch, the hooked gradient and the weights after one step.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(53)
    x = torch.tensor(rng.standard_normal(6), requires_grad=True)
    (x ** 2).sum().backward()
    once = x.grad.clone()
    (3 * x).sum().backward()  # adds 3 to every entry of 2x
    twice = x.grad.clone()
    x.grad.zero_()
    zeroed = x.grad.clone()

    X = torch.tensor(rng.standard_normal((16, 5)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, 16))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)

    optimizer.zero_grad()
    loss_fn(model(X), y).backward()
    full = model[0].weight.grad.clone()
    optimizer.zero_grad()
    grad_after_zero_grad = model[0].weight.grad
    for i in range(4):  # micro-batches of 4, each loss scaled so their sum is the mean
        loss = loss_fn(model(X[4 * i:4 * i + 4]), y[4 * i:4 * i + 4]) / 4
        loss.backward()
    accumulated = model[0].weight.grad.clone()
    optimizer.step()

    w = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32, requires_grad=True)
    out = (X[:3] @ w).tanh().sum()
    (grad_w,) = torch.autograd.grad(out, w)
    untouched = w.grad is None

    h = X[:2] @ w
    h.register_hook(lambda grad: grad * 10)  # every gradient through h is ten times larger
    h.sum().backward()

    return {"once": once, "twice": twice, "zeroed": zeroed,
            "none_after_zero_grad": grad_after_zero_grad is None,
            "full": full, "accumulated": accumulated,
            "weights_after_step": model[0].weight, "grad_w": grad_w,
            "untouched": untouched, "hooked": w.grad}
