"""The device boilerplate: ``torch.device('cuda' if torch.cuda.is_available() else 'cpu')``,
``model.to(device)``, ``x.to(device)``, ``tensor(..., device=device)``, ``x.device``,
``.cpu()``, and ``next(model.parameters()).device``.

On a machine without a GPU both libraries pick the CPU. Compared: the device's name and
type, where the model and the tensors live, and the model's output.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-6, atol=1e-7)


def model(torch, nn):
    return nn.Sequential(nn.Linear(5, 3), nn.Tanh())


def run(torch, nn, F, optim, data, model):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = model.to(device)
    x = torch.tensor(np.random.default_rng(1).standard_normal((7, 5)), dtype=torch.float32)
    x = x.to(device)
    y = torch.ones(7, 3, device=device)
    out = net(x) + y
    return {"device": str(device), "type": device.type,
            "param_device": str(next(net.parameters()).device), "x_device": str(x.device),
            "out": out.cpu(), "same": out.device == device}
