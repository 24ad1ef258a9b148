"""A LeNet-style convolutional net: ``nn.Conv2d(1, 6, kernel_size=5, padding=2)``,
``nn.Sigmoid``, ``nn.AvgPool2d(kernel_size=2, stride=2)``, a second convolution,
``nn.Flatten`` and three ``nn.Linear`` layers, printing each layer's output shape, then a
few steps of ``optim.SGD`` on random 28x28 images.

PyTorch's initial weights are copied into nnbook's model. Compared: the output shape after
each layer, the loss at every step, and the first convolution's weights and gradients.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-6)


def model(torch, nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(28)
    X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
    shapes = []
    for layer in model:
        X = layer(X)
        shapes.append(f"{layer.__class__.__name__} output shape: \t{list(X.shape)}")

    images = torch.tensor(rng.uniform(0, 1, (12, 1, 28, 28)), dtype=torch.float32)
    labels = torch.tensor(rng.integers(0, 10, 12))
    optimizer = optim.SGD(model.parameters(), lr=0.9)
    loss = nn.CrossEntropyLoss()
    losses = []
    for _ in range(6):
        optimizer.zero_grad()
        batch_loss = loss(model(images), labels)
        batch_loss.backward()
        optimizer.step()
        losses.append(batch_loss.item())

    return {"shapes": shapes, "losses": losses, "conv1_weight": model[0].weight,
            "conv1_grad": model[0].weight.grad, "conv2_bias": model[3].bias}
