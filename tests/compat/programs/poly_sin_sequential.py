"""Fit a cubic to sin(x) with ``nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))``,
``nn.MSELoss(reduction='sum')``, ``model.zero_grad()`` and updates written by hand over
``model.parameters()``.

Compared: the loss every 200 steps and the layer's weight and bias (PyTorch's initial
weights are copied into nnbook's model first).
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)


def model(torch, nn):
    return nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))


def run(torch, nn, F, optim, data, model):
    x = torch.linspace(-np.pi, np.pi, 500)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)  # (500, 3): x, x^2, x^3

    loss_fn = nn.MSELoss(reduction="sum")
    learning_rate = 2e-6
    losses = []
    for t in range(1000):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 200 == 199:
            losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad

    linear_layer = model[0]
    return {"xx_shape": list(xx.shape), "xx_dtype": str(xx.dtype).split(".")[-1],
            "losses": losses, "weight": linear_layer.weight, "bias": linear_layer.bias}
