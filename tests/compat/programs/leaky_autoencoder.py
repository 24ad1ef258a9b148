"""A fully connected autoencoder on small "images": ``nn.Flatten`` into an encoder of
``nn.Linear`` and ``nn.LeakyReLU(0.2)`` down to a code of 3 numbers, a decoder back up that
ends in ``nn.Sigmoid`` and ``nn.Unflatten(1, (1, 6, 5))``, trained with ``nn.MSELoss`` and
``optim.Adam``.

PyTorch's initial weights are copied into nnbook's model. Compared: the shape after each
part, the losses, the codes of the first images and the reconstructions.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(30, 12),
                                         nn.LeakyReLU(0.2), nn.Linear(12, 3))
            self.decoder = nn.Sequential(nn.Linear(3, 12), nn.LeakyReLU(negative_slope=0.2),
                                         nn.Linear(12, 30), nn.Sigmoid(),
                                         nn.Unflatten(1, (1, 6, 5)))

        def forward(self, x):
            return self.decoder(self.encoder(x))
    return AutoEncoder()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(60)
    rows, cols = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    centres = rng.uniform(0, 5, (24, 2))
    images = np.exp(-((rows - centres[:, :1, None]) ** 2 + (cols - centres[:, 1:, None]) ** 2)
                    / 3.0)[:, None]
    X = torch.tensor(images, dtype=torch.float32)
    loader = data.DataLoader(data.TensorDataset(X), batch_size=8)
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(6):
        for (xb,) in loader:
            recon = model(xb)
            loss = criterion(recon, xb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        codes = model.encoder(X[:4])
        recon = model(X[:4])
    return {"code_shape": list(codes.shape), "recon_shape": list(recon.shape),
            "losses": losses, "codes": codes, "recon": recon,
            "unflatten": repr(model.decoder[4])}
