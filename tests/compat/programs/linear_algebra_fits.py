"""Linear algebra as a course uses it: a line fitted by least squares three ways
(``torch.linalg.lstsq``, the normal equations with ``torch.linalg.solve``, and
``torch.linalg.pinv``), the principal components of a cloud of points with
``torch.linalg.svd`` and with ``torch.linalg.eigh`` of its covariance (``torch.cov``),
a Gaussian's log-density through ``torch.linalg.cholesky`` and ``torch.logdet``, and the
gradient of a loss through ``det``, ``inv``, ``eigvalsh`` and the nuclear norm.

Compared: the fitted coefficients, the singular values and eigenvalues, the explained
variance, the components up to their signs (which either library may flip), the
log-densities, and the gradient.
"""
import math

import numpy as np

TOLERANCE = dict(rtol=1e-8, atol=1e-10)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.uniform(-2, 2, 40))
    y = 1.5 * x - 0.5 + torch.tensor(rng.normal(0, 0.1, 40))
    X = torch.stack([torch.ones_like(x), x], dim=1)                 # (40, 2)
    by_lstsq = torch.linalg.lstsq(X, y.unsqueeze(1)).solution.squeeze(1)
    by_normal_equations = torch.linalg.solve(X.T @ X, X.T @ y)
    by_pinv = torch.linalg.pinv(X) @ y

    mixing = np.array([[3.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.3]])
    cloud = torch.tensor(rng.normal(size=(50, 3)) @ mixing)
    centred = cloud - cloud.mean(0)
    U, S, Vh = torch.linalg.svd(centred, full_matrices=False)
    values, vectors = torch.linalg.eigh(torch.cov(centred.T))
    explained = S ** 2 / (S ** 2).sum()

    cov = torch.cov(cloud.T)
    L = torch.linalg.cholesky(cov)
    z = torch.linalg.solve(L, centred.T)                            # whitened points
    log_density = (-0.5 * (z ** 2).sum(0) - 0.5 * torch.logdet(cov)
                   - 1.5 * math.log(2 * math.pi))

    A = torch.tensor(rng.normal(size=(4, 4)) + 3 * np.eye(4), requires_grad=True)
    loss = (torch.linalg.det(A) + torch.linalg.inv(A).sum()
            + torch.linalg.eigvalsh(A @ A.T).max() + torch.linalg.matrix_norm(A, "nuc"))
    loss.backward()

    return {"by_lstsq": by_lstsq, "by_normal_equations": by_normal_equations,
            "by_pinv": by_pinv, "singular_values": S, "eigenvalues": values,
            "explained": explained, "components": Vh.abs(), "eigenvectors": vectors.abs(),
            "rebuilt": (U * S) @ Vh, "log_density": log_density,
            "logdet_twice_log_diag": 2 * torch.log(torch.diagonal(L)).sum(),
            "loss": loss.detach(), "grad": A.grad}
