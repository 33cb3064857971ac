"""``Optimizer``: the base class of every optimizer, shaped like ``torch.optim.Optimizer``.

An optimizer holds ``param_groups`` (a list of dicts: ``"params"`` plus that group's options,
defaults filled in from ``defaults``) and ``state`` (a ``defaultdict(dict)`` keyed by parameter).
``state_dict()`` has PyTorch's layout — parameters replaced by integer ids, numbered in group
order — so a checkpoint is portable between optimizers built over the same parameters:

    {"state": {0: {"step": tensor(3.), "exp_avg": ...}, 1: {...}},
     "param_groups": [{"lr": 0.001, ..., "params": [0, 1]}]}

``load_state_dict`` validates the group count and sizes before changing anything, then casts each
state tensor to its parameter's dtype and device (``step`` counters stay float32 on the cpu, where
the host reads them to compute bias corrections without a device synchronisation).

Subclasses implement ``step(closure=None)``; the elementwise ones hand each parameter group to
:func:`tensorlab.optim._functional.fused_update`, which runs ONE fused Triton launch per group on
cuda (the numpy twin on cpu).
"""

from __future__ import annotations

import copy
import functools
import math
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from itertools import chain

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd import enable_grad, no_grad
from ..autograd.graph import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "required"]


class _RequiredParameter:
    """Singleton for an option a parameter group must give (PyTorch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks: OrderedDict = OrderedDict()
_global_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` before every optimizer's step."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _type_name(x) -> str:
    if isinstance(x, Tensor):
        return "tensorlab.Tensor"
    return type(x).__module__ + "." + type(x).__qualname__ if type(x).__module__ != "builtins" else type(x).__name__


def check_nonnegative(value, what: str) -> None:
    """``ValueError("Invalid <what>: <value>")`` unless ``0 <= value`` (PyTorch's constructor checks)."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def nonnegative(what: str) -> Callable:
    """:func:`check_nonnegative` for ``what``, as an entry of :attr:`Optimizer._checks`."""
    return functools.partial(check_nonnegative, what=what)


def check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def check_unsupported(name: str, *, capturable=False, differentiable=False, fused=None, foreach=None) -> None:
    """PyTorch's implementation switches. ``fused``/``foreach`` are accepted (on cuda the update is
    always one fused launch per group); graph capture and differentiating through the step are not
    implemented and say so."""
    if capturable:
        raise NotImplementedError(f"{name}: capturable=True (CUDA-graph capture of the step) is not implemented")
    if differentiable:
        raise NotImplementedError(f"{name}: differentiable=True (autograd through the step) is not implemented")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _hooked_step(step):
    """Wrap a subclass's ``step``: global and per-instance pre/post hooks, and the flag that lets an
    lr scheduler warn when it is stepped before the optimizer."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if not hasattr(self, "_optimizer_step_pre_hooks"):
            # A wrapper that never ran Optimizer.__init__ (timm's Lookahead sets param_groups, defaults and
            # state itself) has no hooks: PyTorch only patches step in Optimizer.__init__, so it runs plainly
            return step(self, *args, **kwargs)
        # The hooks see step's arguments with the optimizer first, as PyTorch's (and new ones they
        # return include it)
        args = (self, *args)
        for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
        out = step(*args, **kwargs)
        self._opt_called = True
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper._hooked = True
    return wrapper


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts (parameter groups
            with per-group options). Use an ordered collection: the order numbers the parameters
            in ``state_dict``.
        defaults: the options a group gets when it does not set them.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._opt_called = False

        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_type_name(params)}")
        if isinstance(params, dict):
            # list(dict) would silently iterate the keys (PyTorch then fails on the first key).
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got a dict (pass [dict] for one parameter group, or a list of Tensors)")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ------------------------------------------------------------------------------------
    # groups
    # ------------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Add a group (a dict with ``"params"`` and optional options), e.g. to fine-tune layers
        that were frozen. Options it does not set take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        elif isinstance(params, dict):
            raise TypeError("optimizer parameters need to be an ordered collection of Tensors, but got a dict "
                            "(use list(d.values()))")
        else:
            params = list(params)

        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
                names.append(p[0])
                p = p[1]
            tensors.append(p)
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_type_name(p)}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        group = dict(param_group)
        group["params"] = tensors
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        self._check_group(group)

        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
            if ("param_names" in group) != ("param_names" in g):
                which = "with names" if "param_names" in group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group "
                                 f"{which} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # option -> check(value) raising what PyTorch's constructor raises, in PyTorch's order
    _checks: dict[str, Callable] = {}

    def _check_group(self, group: dict) -> None:
        """Validate a group's options with :attr:`_checks` (PyTorch validates only the constructor's;
        we also refuse a bad value in a later group before it is added)."""
        for key, check in self._checks.items():
            check(group[key])

    # ------------------------------------------------------------------------------------
    # gradients and steps
    # ------------------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients: ``None`` (the default) or zeros in place."""
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if set_to_none:
                        p.grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure: Callable | None = None):
        """Perform one optimization step; ``closure`` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    @staticmethod
    def _run_closure(closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------------------------------
    # hooks
    # ------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` before each ``step``."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each ``step``."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _add_hook(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    # ------------------------------------------------------------------------------------
    # state dicts
    # ------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {id: {...}}, "param_groups": [{..., "params": [ids]}]}`` (PyTorch's layout).

        The state tensors are the optimizer's own (not copies), as in PyTorch; save or clone them
        before training on.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict) -> dict:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, out)
            if result is not None:
                out = result
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a ``state_dict()``: checks the group count and every group's size first (nothing
        changes when it raises), then casts floating state tensors to their parameter's dtype and
        device. A ``step`` tensor is kept as it is and other non-tensor values are kept, as PyTorch's base
        class does; tensorlab's own optimizers (``_HOST_SCALARS``) make their counters float32 cpu tensors."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            keys = f" with keys {sorted(map(str, state_dict))}" if isinstance(state_dict, dict) else ""
            raise ValueError("loaded state dict must be a dict with 'state' and 'param_groups' "
                             f"(got {type(state_dict).__name__}{keys})")
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, sg in zip(groups, saved_groups):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state(param, v)
            else:
                state[k] = v

        new_groups = []
        for g, sg in zip(groups, saved_groups):
            sg["params"] = g["params"]
            if "param_names" in g and "param_names" not in sg:
                sg["param_names"] = g["param_names"]
            new_groups.append(sg)
        self.state = state
        self.param_groups = new_groups
        self._setstate_groups()
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # per-parameter scalars the host reads every step: tensorlab's own optimizers name theirs
    # (FusedOptimizer); a user's subclass keeps its counters as it wrote them (an int ``step`` stays
    # an int, as in PyTorch: a float32 tensor would round ``beta ** step`` to float32)
    _HOST_SCALARS: tuple = ()

    def _cast_state(self, param: Tensor, value, key=None):
        if isinstance(value, Tensor):
            if key in self._HOST_SCALARS:
                return host_scalar(value)
            if key == "step":  # PyTorch never casts a step tensor (its dtype and device are the optimizer's)
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: self._cast_state(param, v, key=k) for k, v in value.items()}
        if key in self._HOST_SCALARS and isinstance(value, int | float):
            return host_scalar(value)
        if isinstance(value, list | tuple):
            return type(value)(self._cast_state(param, v) for v in value)
        return value

    # what PyTorch's __setstate__ gives an option an older state dict lacks: these fixed values, not
    # the constructor's (an Adam(amsgrad=True) loading a dict without 'amsgrad' runs without it)
    _SETSTATE_DEFAULTS = {"maximize": False, "foreach": None, "differentiable": False, "capturable": False,
                          "fused": None, "amsgrad": False, "nesterov": False, "centered": False,
                          "decoupled_weight_decay": False}

    def _setstate_groups(self) -> None:
        """Fill options an older state dict may lack (subclasses add theirs, as PyTorch's __setstate__):
        PyTorch's fixed value where it has one, else the constructor's."""
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, self._SETSTATE_DEFAULTS.get(name, default))

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_opt_called", False)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")  # PyTorch separates the groups with a blank line
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def host_scalar(value) -> Tensor:
    """A float32 0-d cpu tensor holding ``value`` (PyTorch's ``state["step"]`` for non-capturable
    optimizers): the host reads it every step without a device synchronisation."""
    from .._factories import tensor

    if isinstance(value, Tensor):
        value = value.detach()
        if value.numel() != 1:
            raise ValueError(f"a step counter must have one element, got shape {list(value.shape)}")
        value = value.item()
    return tensor(float(value), dtype=D.float32, device="cpu")  # (cpu whatever the default device)


def _host_cell(t: Tensor):
    """(numpy storage, index) of a float32 0-d cpu tensor: read and written without building a view."""
    if t.is_cpu and t.dtype is D.float32 and t.ndim == 0:
        if t._storage.data.dtype == D.float32.np:
            return t._storage.data, t._offset
        return t._np_view().reshape(1), 0  # (a view(dtype) of other memory: data's elements are not t's)
    return None, None


def read_host_scalar(t: Tensor) -> float:
    """The value of a :func:`host_scalar` (float32), as PyTorch's ``_get_value(step_t)``."""
    buf, i = _host_cell(t)
    return float(buf[i]) if buf is not None else float(t.item())


def add_host_scalar_(t: Tensor, value: float) -> None:
    """``t += value`` in float32 on the host (PyTorch's ``step_t += 1`` on a float32 cpu tensor)."""
    import numpy as np

    buf, i = _host_cell(t)
    if buf is None:
        raise RuntimeError(f"optimizer step counters are float32 cpu scalars, got {t.dtype.name} on {t.device}")
    buf[i] = buf[i] + np.float32(value)
    t._bump_version()


def mul_host_scalar_(t: Tensor, value: float) -> None:
    """``t *= value`` in float32 on the host (NAdam's ``mu_product *= mu``)."""
    import numpy as np

    buf, i = _host_cell(t)
    if buf is None:
        raise RuntimeError(f"optimizer state scalars are float32 cpu scalars, got {t.dtype.name} on {t.device}")
    buf[i] = buf[i] * np.float32(np.float32(value))
    t._bump_version()


def lr_value(lr) -> float:
    """A group's learning rate as a float (a 1-element Tensor lr is read each step)."""
    if isinstance(lr, Tensor):
        return float(lr.item())
    if isinstance(lr, float | int) and not isinstance(lr, bool):
        return float(lr)
    value = float(lr)
    if math.isnan(value):
        raise ValueError(f"Invalid learning rate: {lr}")
    return value
