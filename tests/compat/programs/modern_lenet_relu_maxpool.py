"""A LeNet with ReLU and max pooling, written as an ``nn.Module`` subclass whose forward uses
``F.relu``, ``F.max_pool2d`` and ``torch.flatten(x, 1)``, trained with ``optim.Adam`` on
random 16x16 images, then evaluated under ``torch.no_grad()``.

PyTorch's initial weights are copied into nnbook's model. Compared: the loss at each step,
the predictions and the second convolution's weights.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 5, 3)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(5, 8, 3, padding=1)
            self.fc1 = nn.Linear(8 * 3 * 3, 19)
            self.fc2 = nn.Linear(19, 4)

        def forward(self, x):
            x = self.pool(torch.relu(self.conv1(x)))  # (N, 5, 7, 7)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 8, 3, 3)
            x = torch.flatten(x, 1)
            return self.fc2(F.relu(self.fc1(x)))

    F = nn.functional
    return Net()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(29)
    images = torch.tensor(rng.standard_normal((10, 3, 16, 16)), dtype=torch.float32)
    labels = torch.tensor(rng.integers(0, 4, 10))
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(8):
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    with torch.no_grad():
        logits = model(images)
        _, predicted = torch.max(logits, 1)
    return {"losses": losses, "logits": logits, "predicted": predicted,
            "conv2_weight": model.conv2.weight}
