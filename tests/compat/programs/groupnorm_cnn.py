"""A small CNN normalised with ``nn.GroupNorm`` (which, unlike batch norm, works the same on
a batch of one and in both modes), with a GroupNorm of one group written out by hand
beside it (mean and biased variance over channels, height and width), and
``nn.AdaptiveAvgPool2d(1)`` before the head; trained with ``optim.Adam``.

PyTorch's initial weights are copied into nnbook's model. Compared: the hand-written
normalisation against ``nn.GroupNorm(1, C)``, the losses, train- and eval-mode outputs
(equal), a batch of one against the same example inside a batch, and the norm's gradients.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def model(torch, nn):
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1), nn.GroupNorm(3, 6), nn.ReLU(),
        nn.Conv2d(6, 8, 3, stride=2), nn.GroupNorm(num_groups=2, num_channels=8), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(63)
    X = torch.tensor(rng.normal(0, 1, (7, 3, 9, 7)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 4, 7))

    mean = X.mean(dim=(1, 2, 3), keepdim=True)
    var = X.var(dim=(1, 2, 3), unbiased=False, keepdim=True)
    by_hand = (X - mean) / torch.sqrt(var + 1e-5)
    layer = nn.GroupNorm(1, 3)

    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(7):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grads = [model[1].weight.grad, model[4].bias.grad]

    with torch.no_grad():
        train_out = model(X)
        model.eval()
        eval_out = model(X)
        one = model(X[2:3])
    return {"by_hand": by_hand[0, 1], "matches_layer": bool(torch.allclose(by_hand, layer(X),
                                                                            atol=1e-5)),
            "losses": losses, "out": eval_out, "modes_equal": bool(torch.allclose(
                train_out, eval_out)), "batch_of_one": bool(torch.allclose(one, eval_out[2:3],
                                                                           atol=1e-6)),
            "grads": grads}
