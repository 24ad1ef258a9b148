"""A LeNet in the book style built from ``nn.LazyConv2d`` and ``nn.LazyLinear``: only the
output sizes are written, and the input sizes are filled in by the first call on a dummy
batch. The weights are then set from numpy under ``torch.no_grad()`` (the lazy layers'
draws differ between the libraries), and the net trains a few steps of ``optim.SGD``.

Compared: the parameter shapes after the first call, each layer's output shape, the loss at
every step and the first convolution's gradient.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(51)
    net = nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.LazyLinear(30), nn.Sigmoid(),
        nn.LazyLinear(17), nn.Sigmoid(),
        nn.LazyLinear(10))
    X = torch.zeros((1, 1, 24, 20))
    shapes = []
    for layer in net:
        X = layer(X)
        shapes.append(f"{layer.__class__.__name__} output shape: {tuple(X.shape)}")
    param_shapes = [list(p.shape) for p in net.parameters()]

    with torch.no_grad():
        for p in net.parameters():
            fan_in = int(np.prod(p.shape[1:])) if p.dim() > 1 else p.shape[0]
            p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)) / np.sqrt(fan_in),
                                 dtype=torch.float32))

    images = torch.tensor(rng.uniform(0, 1, (9, 1, 24, 20)), dtype=torch.float32)
    labels = torch.tensor(rng.integers(0, 10, 9))
    optimizer = optim.SGD(net.parameters(), lr=0.5)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = loss_fn(net(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"shapes": shapes, "param_shapes": param_shapes, "losses": losses,
            "conv1_grad": net[0].weight.grad, "fc3_bias": net[11].bias}
