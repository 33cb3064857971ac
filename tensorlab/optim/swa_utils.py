"""Stochastic Weight Averaging and exponential moving averages of a model's weights, as
``torch.optim.swa_utils``: ``AveragedModel``, the averaging functions, ``SWALR`` (anneals each
group's learning rate to a fixed ``swa_lr``) and ``update_bn`` (recomputes BatchNorm statistics
for the averaged weights).

Without ``avg_fn``/``multi_avg_fn`` the equal-weight average is ``avg + (p - avg) / (n + 1)``
per tensor, on every device: PyTorch computes it so on cpu and with a fused lerp on cuda (whose
integer path fails there); tensorlab has no fused multi-tensor lerp, and one formula keeps cpu
and cuda results equal.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _format_param, _warn_get_lr

__all__ = [
    "SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn", "get_swa_multi_avg_fn",
    "update_bn",
]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """``fn(ema_params, current_params, num_averaged)``: in place, ``ema = decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if ema_param_list[0].dtype.is_floating_point:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:  # (lerp is for floating tensors)
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """``fn(averaged_params, current_params, num_averaged)``: in place, the running equal-weight average."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if averaged_param_list[0].dtype.is_floating_point:
            # PyTorch's weight: 1 / (n + 1), a float32 tensor when n is a tensor
            weight = 1 / (num_averaged + 1)
            weight = weight.item() if isinstance(weight, Tensor) else weight
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
        else:  # integers: the same average, truncated (PyTorch's integer path raises)
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``fn(ema_param, current_param, num_averaged)``: returns ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``fn(averaged_param, current_param, num_averaged)``: returns the running equal-weight average."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` (on ``device`` if given) whose parameters (and buffers, with
    ``use_buffers``) are running averages of ``model``'s, updated by :meth:`update_parameters`.

    ``avg_fn(averaged, current, num_averaged) -> new`` works per tensor; ``multi_avg_fn(averaged_list,
    current_list, num_averaged)`` updates lists (grouped by device and dtype) in place; neither: the
    equal-weight average (SWA). The first update copies the model's values. Without ``use_buffers``
    the buffers are copied from ``model`` at every update.
    """

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers: bool = False) -> None:
        from .. import _dtype as D
        from .._factories import tensor

        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=D.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current values into the averages."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_avg, p_model in zip(self_params, model_params):
                p_model_ = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(p_model_)
                if copy_param:
                    p_avg.detach().copy_(p_model_)
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    avg_fn = get_swa_avg_fn()
                    for (dev, _), (avg_list, cur_list) in _group_by_device_and_dtype(averaged, current).items():
                        n_averaged = self.n_averaged.to(dev)
                        if self.multi_avg_fn is not None:
                            self.multi_avg_fn(avg_list, cur_list, n_averaged)
                        else:
                            for p_avg, p_model in zip(avg_list, cur_list, strict=True):
                                p_avg.copy_(avg_fn(p_avg, p_model, n_averaged))
                else:
                    for p_avg, p_model in zip(averaged, current, strict=True):
                        p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
            if not self.use_buffers:
                # the buffers are not averaged: they follow the source model
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def _group_by_device_and_dtype(averaged: list, current: list) -> dict:
    """{(device, dtype): ([averaged...], [current...])}, in first-seen order."""
    groups: dict = {}
    for a, c in zip(averaged, current):
        avg_list, cur_list = groups.setdefault((a.device, a.dtype), ([], []))
        avg_list.append(a)
        cur_list.append(c)
    return groups


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """Recompute the running statistics of ``model``'s BatchNorm layers with one pass over
    ``loader`` (a batch is a tensor, or a list/tuple whose first item is the input): the
    statistics are reset and accumulated as a cumulative average (momentum None), then each
    layer's momentum and the model's training mode are restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, list | tuple):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate from its current value to ``swa_lr`` (one value, or one per
    group) over ``anneal_epochs`` steps, by cosine (``"cos"``) or linear interpolation, then keep it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        # Chainable: the rate this scheduler would have started from is recovered from the group's
        # current one (another scheduler may have changed it), then moved one step further.
        _warn_get_lr(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and the annealing function (its name is kept)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
