"""``Rprop``: resilient backpropagation (per-element step sizes driven by the gradient's sign)."""

from __future__ import annotations

from tensorlab_kernels.optim import rprop as K

from ._functional import FusedOptimizer, fused_update, zeros_state
from .optimizer import check_lr, lr_value

__all__ = ["Rprop"]


def _check_etas(etas) -> None:
    if not 0.0 < etas[0] < 1.0 < etas[1]:
        raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")


class Rprop(FusedOptimizer):
    """PyTorch's ``torch.optim.Rprop`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  s = sign(g * prev)
        step_size = clamp(step_size * (etaplus | etaminus | 1 for s > 0 | < 0 | == 0), *step_sizes)
        g = 0 where s < 0;  p -= sign(g) * step_size;  prev = g

    State per parameter: ``step`` (float32 cpu tensor), ``prev`` and ``step_size`` (starts at ``lr``;
    ``lr`` is read only then, as in PyTorch). PyTorch checks ``lr`` and ``etas`` but not
    ``step_sizes``; so do we. On cuda one fused launch per group.
    """

    _name = "Rprop"
    _checks = {"lr": check_lr, "etas": _check_etas}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "capturable": capturable})

    def _update_group(self, group, params, grads):
        states, steps = self._advance_states(params, ("prev",))
        for p, state in zip(params, states):
            if "step_size" not in state:  # a new state: PyTorch's full_like(grad, lr) after prev
                state["step_size"] = zeros_state(p, lr_value(group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        # keyed by step: a parameter listed twice gets two launches, one after the other, as in PyTorch
        fused_update(self._name, K.rprop, K.rprop_twin,
                     [params, grads, [s["prev"] for s in states], [s["step_size"] for s in states]],
                     written=(0, 2, 3), keys=steps, scalars_for=lambda step: {},
                     etaminus=float(etaminus), etaplus=float(etaplus), step_size_min=float(step_size_min),
                     step_size_max=float(step_size_max), maximize=group["maximize"])
