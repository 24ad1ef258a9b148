"""Regression with losses that forgive outliers: one line fitted four times from the same
start under ``nn.MSELoss``, ``nn.L1Loss``, ``nn.SmoothL1Loss(beta=0.5)`` and
``nn.HuberLoss(delta=1.5)`` on data with a few wild points, with ``optim.SGD``; plus the
functional forms with ``reduction="none"`` and ``"sum"``.

Compared: each fit's losses, slopes and intercepts (the robust ones stay near the true
line), the unreduced losses of a few residuals, and the gradients of each loss.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(66)
    x = rng.uniform(-2, 2, (31, 1))
    y = 1.7 * x - 0.4 + rng.normal(0, 0.1, (31, 1))
    y[[3, 11, 20]] += [[9.0], [-7.0], [12.0]]  # the outliers
    X, Y = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)

    fits = {}
    for name, criterion in [("mse", nn.MSELoss()), ("l1", nn.L1Loss()),
                            ("smooth_l1", nn.SmoothL1Loss(beta=0.5)),
                            ("huber", nn.HuberLoss(delta=1.5))]:
        line = nn.Linear(1, 1)
        with torch.no_grad():
            line.weight.fill_(0.2)
            line.bias.zero_()
        optimizer = optim.SGD(line.parameters(), lr=0.1)
        losses = []
        for _ in range(60):
            optimizer.zero_grad()
            loss = criterion(line(X), Y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        fits[name] = [losses[::10], line.weight.item(), line.bias.item()]

    pred = torch.tensor([0.0, 0.3, -0.8, 2.5, -4.0], requires_grad=True)
    target = torch.zeros(5)
    unreduced = {"l1": F.l1_loss(pred, target, reduction="none"),
                 "smooth_l1": F.smooth_l1_loss(pred, target, reduction="none", beta=0.5),
                 "huber": F.huber_loss(pred, target, reduction="none", delta=1.5),
                 "huber_sum": F.huber_loss(pred, target, reduction="sum")}
    grads = {}
    for name, fn in [("l1", F.l1_loss), ("smooth_l1", F.smooth_l1_loss),
                     ("huber", F.huber_loss)]:
        pred.grad = None
        fn(pred, target).backward()
        grads[name] = pred.grad.clone()
    return {"fits": fits, "unreduced": unreduced, "grads": grads,
            "robust_closer": abs(fits["huber"][1] - 1.7) < abs(fits["mse"][1] - 1.7)}
