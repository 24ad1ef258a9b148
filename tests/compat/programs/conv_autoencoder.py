"""A convolutional autoencoder: ``nn.Conv2d`` with ``stride=2`` and ``nn.ReLU`` down to a
small map, then back up twice: once with ``nn.ConvTranspose2d`` (``stride=2``,
``padding=1``, ``output_padding=1``) and once with ``nn.Upsample(scale_factor=2,
mode="nearest")`` followed by ``nn.Conv2d``; both decoders trained on the same code with
``optim.Adam``.

PyTorch's initial weights are copied into nnbook's model. Compared: the shape after each
layer, the losses of both decoders, the reconstructions and the transposed convolution's
weight gradient.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    return nn.ModuleDict({
        "encoder": nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.ReLU()),
        "transposed": nn.Sequential(
            nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
            nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid()),
        "upsampled": nn.Sequential(
            nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(6, 4, 3, padding=1),
            nn.ReLU(), nn.Upsample(scale_factor=2), nn.Conv2d(4, 1, 3, padding=1),
            nn.Sigmoid()),
    })


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(61)
    rows, cols = np.meshgrid(np.arange(12), np.arange(8), indexing="ij")
    widths = rng.uniform(1, 3, (10, 1, 1))
    images = (np.abs(rows - rng.uniform(2, 10, (10, 1, 1))) < widths) * \
        (np.abs(cols - rng.uniform(2, 6, (10, 1, 1))) < widths)
    X = torch.tensor(images[:, None], dtype=torch.float32)

    shapes, x = [], X
    for layer in list(model["encoder"]) + list(model["transposed"]):
        x = layer(x)
        shapes.append(f"{type(layer).__name__}: {list(x.shape)}")

    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(8):
        code = model["encoder"](X)
        loss_t = F.binary_cross_entropy(model["transposed"](code), X)
        loss_u = F.binary_cross_entropy(model["upsampled"](code), X)
        optimizer.zero_grad()
        (loss_t + loss_u).backward()
        optimizer.step()
        losses.append([loss_t.item(), loss_u.item()])
    grad = model["transposed"][0].weight.grad
    with torch.no_grad():
        code = model["encoder"](X[:2])
        recon_t, recon_u = model["transposed"](code), model["upsampled"](code)
    return {"shapes": shapes, "losses": losses, "recon_t": recon_t, "recon_u": recon_u,
            "transposed_grad": grad, "weight_shape": list(model["transposed"][0].weight.shape)}
