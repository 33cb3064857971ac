"""``ASGD``: averaged stochastic gradient descent (Polyak-Ruppert averaging after ``t0`` steps)."""

from __future__ import annotations

import numpy as np

from tensorlab_kernels.optim import asgd as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import _host_cell, check_lr, lr_value, nonnegative, read_host_scalar

__all__ = ["ASGD"]


def _set_host_scalar(t, value: float) -> None:
    """``t.copy_(torch.as_tensor(value))``: the value rounded to float32 (the default dtype)."""
    buf, i = _host_cell(t)
    if buf is None:
        raise RuntimeError(f"ASGD: eta and mu are float32 cpu scalars, got {t.dtype.name} on {t.device}")
    buf[i] = np.float32(value)
    t._bump_version()


class ASGD(FusedOptimizer):
    """PyTorch's ``torch.optim.ASGD`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  g += weight_decay * p
        p *= 1 - lambd * eta;  p -= eta * g
        ax += (p - ax) * mu  (mu != 1)  |  ax = p  (mu == 1)
        eta = lr / (1 + lambd * lr * t)^alpha;  mu = 1 / max(1, t - t0)      (float32, for the next step)

    State per parameter, in PyTorch's order: ``step``, ``eta``, ``mu`` (0-d float32 tensors) and
    ``ax``. PyTorch keeps ``step``/``eta``/``mu`` on the parameter's device; here they stay on the cpu
    (the host reads them every step, without a device synchronisation, as for every other
    optimizer's ``step``), and ``load_state_dict`` keeps them float32 (PyTorch casts them to the
    parameter's dtype, which changes nothing for float32/float64 parameters since the values it
    writes are float32). On cuda one fused launch per group (per distinct ``eta``/``mu``).
    """

    _name = "ASGD"
    _checks = {"lr": check_lr, "lambd": nonnegative("lambd value"), "alpha": nonnegative("alpha value"),
               "weight_decay": nonnegative("weight_decay value")}
    _HOST_SCALARS = (*FusedOptimizer._HOST_SCALARS, "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update_group(self, group, params, grads):
        lr, lambd, alpha, t0 = lr_value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        states, steps = self._advance_states(params, ("ax",), host=(("eta", lr), ("mu", 1.0)))
        keys = []
        for state, step in zip(states, steps):
            # this step uses the eta and mu the previous step left; then the next step's are stored
            # (one parameter after the other, so a parameter listed twice sees its own update, as in PyTorch)
            keys.append((step, read_host_scalar(state["eta"]), read_host_scalar(state["mu"])))
            _set_host_scalar(state["eta"], lr / ((1 + lambd * lr * step) ** alpha))
            _set_host_scalar(state["mu"], 1 / max(1, step - t0))
        fused_update(self._name, K.asgd, K.asgd_twin, [params, grads, [s["ax"] for s in states]], written=(0, 2),
                     keys=keys, scalars_for=lambda k: {**K.asgd_scalars(lambd=lambd, eta=k[1]), "mu": k[2]},
                     weight_decay=group["weight_decay"], maximize=group["maximize"])
