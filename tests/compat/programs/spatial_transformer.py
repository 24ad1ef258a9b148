"""The spatial transformer network of the PyTorch tutorials on random 28x28 images: a
localisation net (``nn.Conv2d``, ``nn.MaxPool2d``, ``nn.ReLU(True)``, then ``nn.Linear``
to the six numbers of theta, its last layer started at the identity with
``weight.data.zero_()`` and ``bias.data.copy_(...)``), ``theta.view(-1, 2, 3)``,
``F.affine_grid(theta, x.size())`` and ``F.grid_sample(x, grid)`` (both with
``align_corners=False`` given, so neither library warns), then a small convolutional
classifier with ``F.nll_loss``, trained a few steps with ``optim.SGD``.  The tutorial's
``nn.Dropout2d`` and ``F.dropout`` are left out: their masks come from each library's own
generator.

PyTorch's initial weights are copied into nnbook's model. Compared: the losses, theta
before and after training (it moves away from the identity), the transformed images, the
gradient of theta's last layer and the log-probabilities after training.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)
# The transformed images are read at points that four steps of float32 training have moved
# by rounding-sized amounts, which BLAS kernels round differently; where the image is steep
# (pixel values of order 1 changing by about 1 per pixel) that is a difference of order
# 1e-5 in a value that may itself be near 0, so those values get an absolute tolerance.
TOLERANCE_FOR = {"transformed": dict(rtol=5e-4, atol=1e-4)}


def model(torch, nn):
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)
            self.localization = nn.Sequential(
                nn.Conv2d(1, 8, kernel_size=7), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
                nn.Conv2d(8, 10, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True),
                                        nn.Linear(32, 3 * 2))
            # start at the identity transformation
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

        def theta(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 10 * 3 * 3)
            return self.fc_loc(xs).view(-1, 2, 3)

        def stn(self, x):
            grid = F.affine_grid(self.theta(x), x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

        def forward(self, x):
            x = self.stn(x)
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2(x), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    return Net()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(83)
    images = torch.tensor(rng.uniform(0, 1, (6, 1, 28, 28)), dtype=torch.float32)
    images = (images - 0.1307) / 0.3081
    targets = torch.tensor(rng.integers(0, 10, 6))
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    with torch.no_grad():
        theta_before = model.theta(images)
    losses = []
    for _ in range(4):
        optimizer.zero_grad()
        loss = F.nll_loss(model(images), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grad = model.fc_loc[2].weight.grad
    with torch.no_grad():
        theta_after = model.theta(images)
        transformed = model.stn(images)
        out = model(images)
    return {"losses": losses, "theta_before": theta_before, "theta_after": theta_after,
            "moved": (theta_after - theta_before).abs().max().item() > 1e-4,
            "transformed": transformed, "grad": grad, "out": out}
