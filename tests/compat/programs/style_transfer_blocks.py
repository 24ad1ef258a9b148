"""The blocks of a fast style-transfer network: reflection padding before each convolution
(``nn.ReflectionPad2d``), ``nn.InstanceNorm2d(affine=True)`` after it, a residual block, and
sub-pixel upsampling (``nn.PixelShuffle(2)`` after a convolution to 4x the channels); trained
a few steps with ``optim.Adam`` to map random images to targets.

PyTorch's initial weights are copied into nnbook's model. Compared: the output shape, the
losses, each image's per-channel means after the first instance norm (zero), the outputs and
the gradient of the first convolution's weight.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    class Residual(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.block = nn.Sequential(
                nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3),
                nn.InstanceNorm2d(channels, affine=True), nn.ReLU(),
                nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3),
                nn.InstanceNorm2d(channels, affine=True))

        def forward(self, x):
            return x + self.block(x)

    class StyleNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(
                nn.ReflectionPad2d(2), nn.Conv2d(3, 8, 5),
                nn.InstanceNorm2d(8, affine=True), nn.ReLU(),
                nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(8, 8, 3, stride=2),
                nn.InstanceNorm2d(8, affine=True), nn.ReLU())
            self.residual = Residual(8)
            self.up = nn.Sequential(nn.Conv2d(8, 3 * 4, 3, padding=1), nn.PixelShuffle(2))

        def forward(self, x):
            return self.up(self.residual(self.down(x)))
    return StyleNet()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(71)
    images = torch.tensor(rng.normal(0, 1, (2, 3, 10, 8)), dtype=torch.float32)
    targets = torch.tensor(rng.normal(0, 0.5, (2, 3, 10, 8)), dtype=torch.float32)
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = F.mse_loss(model(images), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grad = model.down[1].weight.grad
    with torch.no_grad():
        first = model.down[2](model.down[1](model.down[0](images)))
        out = model(images)
    return {"shape": list(out.shape), "losses": losses,
            "channel_means": first.mean(dim=(2, 3)).abs().max().item() < 1e-5,
            "out": out, "grad": grad}
