"""Custom initialisation with ``model.apply(init_weights)``: a function that checks
``isinstance(m, nn.Linear)`` / ``nn.Conv2d`` and calls ``nn.init.kaiming_normal_`` (with
``mode="fan_out"`` and ``nonlinearity="relu"``), ``nn.init.xavier_uniform_`` with
``nn.init.calculate_gain("tanh")``, ``nn.init.orthogonal_`` and ``nn.init.zeros_`` (which need
no ``torch.no_grad()`` around them), and ``bias.data.fill_``.

The draws differ between the libraries. Compared: what each scheme promises (the biases
are zero, the standard deviation of the kaiming weights is within 10% of
``sqrt(2 / fan_out)``, the xavier weights stay inside their bound and fill it (near
uniform variance), the orthogonal matrices have orthonormal rows), the gains, the order
``apply`` visits modules in, and that the initialised net trains (the loss falls).
"""
import math

import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def run(torch, nn, F, optim, data):
    net = nn.Sequential(nn.Conv2d(3, 40, 5), nn.ReLU(), nn.Flatten(), nn.Linear(40 * 3 * 3, 90),
                        nn.Tanh(), nn.Linear(90, 30), nn.Linear(30, 5))
    visited = []

    def init_weights(m):
        visited.append(type(m).__name__)
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear) and m.out_features == 90:
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight)
            m.bias.data.fill_(0.0)
    returned = net.apply(init_weights)

    conv, fc1, fc2 = net[0].weight, net[3].weight, net[5].weight
    fan_out = conv.shape[0] * conv.shape[2] * conv.shape[3]
    bound = nn.init.calculate_gain("tanh") * math.sqrt(6.0 / (360 + 90))
    gram = fc2 @ fc2.T  # (30, 90): 30 orthonormal rows
    rows = net[6].weight @ net[6].weight.T  # (5, 30): 5 orthonormal rows
    checks = {
        "biases_zero": all(bool((m.bias == 0).all()) for m in net if hasattr(m, "bias")),
        "kaiming_std": abs(conv.std().item() / math.sqrt(2.0 / fan_out) - 1) < 0.1,
        "xavier_inside": bool((fc1.abs() <= bound).all()),
        "xavier_fills": abs(fc1.var().item() / (bound ** 2 / 3) - 1) < 0.1,
        "orthogonal_rows": bool(torch.allclose(gram, torch.eye(30), atol=1e-5)),
        "orthogonal_small": bool(torch.allclose(rows, torch.eye(5), atol=1e-5)),
        "gain_relu": nn.init.calculate_gain("relu"),
        "gain_leaky": nn.init.calculate_gain("leaky_relu", 0.2),
    }
    rng = np.random.default_rng(64)
    X = torch.tensor(rng.normal(0, 1, (16, 3, 7, 7)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 5, 16))
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    losses = []
    for _ in range(12):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"checks": checks, "visited": visited, "returns_model": returned is net,
            "loss_falls": losses[-1] < losses[0], "grads_flow": fc1.grad is not None}
