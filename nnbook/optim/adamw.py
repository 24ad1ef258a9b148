"""AdamW (Loshchilov & Hutter, 2019): Adam whose weight decay shrinks the parameters
directly instead of entering the moments."""
from __future__ import annotations

from .adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay; per parameter, at step t:

        p <- p * (1 - lr * weight_decay)         (shrink the weights, outside the moments)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad**2
        p <- p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    With Adam's weight decay, a large v also shrinks the decay of that weight; here every
    weight decays by the same factor.  The default weight_decay is 1e-2, as in PyTorch.
    State: as Adam's.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach=None, capturable: bool = False,
                 differentiable: bool = False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        for group in self.param_groups:  # always decoupled, whatever the dict said
            group["decoupled_weight_decay"] = True
