"""The same kind of binary classifier written the older way: ``nn.Sigmoid`` as the last
layer and ``nn.BCELoss`` on probabilities, a ``weight`` per example in a functional call
``F.binary_cross_entropy``, plain ``optim.SGD`` with momentum, and a decision threshold.

The weights are set from numpy with ``nn.init.constant_`` for the biases and
``weight.data = ...`` for the matrices. Compared: the losses, the weighted loss, the
probabilities, the predicted classes and the first layer's gradient.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(55)
    X = torch.tensor(rng.uniform(-2, 2, (41, 3)), dtype=torch.float32)
    y = ((X[:, 0] * X[:, 1] + 0.5 * X[:, 2]) > 0).float().view(-1, 1)

    net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
    for layer in (net[0], net[2]):
        layer.weight.data = torch.tensor(rng.normal(0, 0.6, tuple(layer.weight.shape)),
                                         dtype=torch.float32)
        nn.init.constant_(layer.bias, 0.05)
    criterion = nn.BCELoss()
    optimizer = optim.SGD(net.parameters(), lr=0.3, momentum=0.9)
    losses = []
    for _ in range(25):
        optimizer.zero_grad()
        loss = criterion(net(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grad = net[0].weight.grad

    with torch.no_grad():
        probs = net(X)
        weights = torch.linspace(0.5, 1.5, 41).view(-1, 1)
        weighted = F.binary_cross_entropy(probs, y, weight=weights)
        summed = F.binary_cross_entropy(probs, y, reduction="sum")
    predicted = (probs >= 0.5).long().view(-1)
    return {"losses": losses[::4], "weighted": weighted.item(), "summed": summed.item(),
            "probs": probs[:8], "predicted": predicted, "grad": grad}
