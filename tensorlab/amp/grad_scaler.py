"""``GradScaler``: loss scaling for float16 training, as ``torch.amp.GradScaler``.

float16 gradients underflow: values below 6e-8 become 0. ``scale(loss)`` multiplies the loss by
a large factor before ``backward()`` so the gradients land in float16's range; ``step(optimizer)``
divides the gradients by it again (``unscale_``), and steps only when they are all finite;
``update()`` halves the factor after a step with inf/NaN gradients and doubles it after
``growth_interval`` clean steps. The factor and the growth tracker live on the device as tensors;
``step`` reads one flag back from the device, as PyTorch's does.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._device = str(device)
        self._enabled = bool(enabled)
        if self._enabled and self._device.startswith("cuda"):
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("tensorlab.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            if not isinstance(growth_interval, int) or growth_interval <= 0:
                raise ValueError("growth_interval must be a positive integer.")
        self._init_scale = float(init_scale)
        self._scale: Tensor | None = None  # made on the device of the first scaled output
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker: Tensor | None = None
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    # -- scaling -----------------------------------------------------------------------------

    def _lazy_init_scale_growth_tracker(self, dev) -> None:
        from .._factories import full

        self._scale = full((), self._init_scale, dtype=D.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=D.int32, device=dev)

    def scale(self, outputs):
        """``outputs`` (a tensor, or lists/tuples of them) times the current scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        if isinstance(outputs, list | tuple):
            scaled = [self.scale(v) for v in outputs]
            return type(outputs)(scaled)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(self, optimizer, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool) -> dict:
        from ..nn.utils.clip_grad import get_total_norm

        by_device: dict = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                g = param.grad
                if g is None:
                    continue
                if not allow_fp16 and g.dtype is D.float16:  # (checked before any gradient changes)
                    raise ValueError("Attempting to unscale FP16 gradients.")
                by_device.setdefault(g.device, []).append(g)
        per_device = {}
        for dev, grads in by_device.items():
            # inf/NaN anywhere <=> the inf-norm of all of them is not finite: clip_grad's fused
            # multi-tensor norm (one launch per dtype), before the gradients are scaled (PyTorch's order)
            nonempty = [g for g in grads if g.numel()]
            total = get_total_norm(nonempty, float("inf")) if nonempty else found_inf.to(dev)
            per_device[dev] = total.isfinite().logical_not().to(D.float32).reshape(1)
            scale = inv_scale.to(dev)
            for g in grads:
                g.mul_(scale)  # (a non-finite value stays non-finite)
        return per_device

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale factor, in place, and note whether any is
        inf/NaN (once per step; ``step`` calls it when the user has not)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        from .._factories import zeros

        inv_scale = (self._scale.double().reciprocal()).float()
        found_inf = zeros(1, dtype=D.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` with unscaled gradients, skipped (returning None) when
        one of them is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Adjust the scale factor after a step: ``new_scale`` if given, else backed off after inf/NaN
        gradients and grown after ``growth_interval`` clean steps in a row."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        from .. import no_grad

        with no_grad():
            if new_scale is not None:
                if isinstance(new_scale, Tensor):
                    if new_scale.numel() != 1 or new_scale.dtype is not D.float32 or new_scale.requires_grad:
                        raise ValueError("new_scale should be a float or a 1-element tensor of dtype float32 "
                                         "with requires_grad=False.")
                    self._scale.copy_(new_scale.reshape(()))
                else:
                    self._scale.fill_(float(new_scale))
            else:
                found_infs = [f.to(self._scale.device) for state in self._per_optimizer_states.values()
                              for f in state["found_inf_per_device"].values()]
                if not found_infs:
                    raise AssertionError("No inf checks were recorded prior to update.")
                found = sum(f.item() for f in found_infs) > 0
                if found:
                    self._scale.mul_(self._backoff_factor)
                    self._growth_tracker.fill_(0)
                else:
                    grown = self._growth_tracker.item() + 1
                    if grown == self._growth_interval:
                        # (grown only while it stays finite in float32, as PyTorch's _amp_update_scale_: an
                        # inf scale would skip every later step, and backing off from inf stays inf)
                        with np.errstate(over="ignore"):
                            new = np.float32(self._scale.item()) * np.float32(self._growth_factor)
                        if np.isfinite(new):
                            self._scale.fill_(float(new))
                        grown = 0
                    self._growth_tracker.fill_(grown)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> None:
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")

    # -- accessors and state -----------------------------------------------------------------

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
