"""``AdamW``: Adam with decoupled weight decay (default 1e-2), as ``torch.optim.AdamW``."""

from __future__ import annotations

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """PyTorch's ``torch.optim.AdamW``: :class:`Adam` with ``decoupled_weight_decay=True`` — the
    parameter is scaled by ``1 - lr * weight_decay`` before the Adam update instead of adding
    ``weight_decay * p`` to the gradient. Default ``weight_decay=1e-2``."""

    _name = "AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def _setstate_groups(self):
        super()._setstate_groups()
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
