"""A small GAN on 2-D points with a spectrally normalised discriminator, as SN-GAN course
code writes it: ``nn.utils.parametrizations.spectral_norm`` on the discriminator's hidden
layers and the older ``nn.utils.spectral_norm`` (a forward pre-hook) on its last one, a
generator with ``nn.utils.parametrizations.weight_norm``, ``nn.BCEWithLogitsLoss``, and
alternating ``optim.Adam`` steps on points of a ring, with the noise drawn by numpy.

PyTorch's initial weights, the spectral norms' vectors u and v included, are copied into
nnbook's model. Compared: the state dict's keys, the discriminator's and the generator's
losses, the largest singular value of each normalised weight after training (close to 1),
the vectors u at the end, and the generator's points in eval mode.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)


def model(torch, nn):
    sn = nn.utils.parametrizations.spectral_norm
    wn = nn.utils.parametrizations.weight_norm
    discriminator = nn.Sequential(sn(nn.Linear(2, 16)), nn.LeakyReLU(0.2),
                                  sn(nn.Linear(16, 16)), nn.LeakyReLU(0.2),
                                  nn.utils.spectral_norm(nn.Linear(16, 1)))
    generator = nn.Sequential(wn(nn.Linear(3, 16)), nn.ReLU(), nn.Linear(16, 2))
    return nn.ModuleDict({"D": discriminator, "G": generator})


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(71)
    D, G = model["D"], model["G"]
    opt_d = optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_g = optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    loss_fn = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
    losses_d, losses_g = [], []
    for _ in range(12):
        angle = rng.uniform(0, 2 * np.pi, 16)
        real = torch.tensor(np.stack([np.cos(angle), np.sin(angle)], 1) * 2,
                            dtype=torch.float32)
        fake = G(torch.tensor(rng.normal(0, 1, (16, 3)), dtype=torch.float32))
        opt_d.zero_grad()
        loss_d = loss_fn(D(real), ones) + loss_fn(D(fake.detach()), zeros)
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = loss_fn(D(fake), ones)
        loss_g.backward()
        opt_g.step()
        losses_d.append(loss_d.item())
        losses_g.append(loss_g.item())
    model.eval()
    with torch.no_grad():
        sigmas = [torch.linalg.svdvals(D[i].weight)[0].item() for i in (0, 2)]
        D(real)  # the old hook computes weight before a call
        sigmas.append(torch.linalg.svdvals(D[4].weight)[0].item())
        points = G(torch.tensor(rng.normal(0, 1, (5, 3)), dtype=torch.float32))
    return {"keys": list(model.state_dict()), "losses_d": losses_d, "losses_g": losses_g,
            "sigmas": sigmas, "sigmas_near_one": all(abs(s - 1) < 0.1 for s in sigmas),
            "u": D[2].parametrizations.weight[0]._u, "u_old": D[4].weight_u,
            "points": points}
