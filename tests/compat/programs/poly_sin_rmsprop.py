"""Fit a cubic to sin(x) with ``optim.RMSprop``: ``optimizer.zero_grad()``,
``loss.backward()``, ``optimizer.step()``.

Compared: the loss every 100 steps, the final weights and RMSprop's ``square_avg`` state.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-5)


def model(torch, nn):
    return nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))


def run(torch, nn, F, optim, data, model):
    x = torch.linspace(-np.pi, np.pi, 400)
    y = torch.sin(x)
    xx = torch.stack([x, x ** 2, x ** 3], dim=1)

    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = optim.RMSprop(model.parameters(), lr=1e-3)
    losses = []
    for t in range(600):
        loss = loss_fn(model(xx), y)
        if t % 100 == 99:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    weight = model[0].weight
    return {"losses": losses, "weight": weight, "bias": model[0].bias,
            "square_avg": optimizer.state[weight]["square_avg"]}
