"""From Tensors to the fused kernels: grouping, staging and bookkeeping shared by the optimizers.

:class:`FusedOptimizer` is the elementwise optimizers' base class (checks, the step loop over
the groups, per-parameter state).

:func:`fused_update` takes one parameter group's operand lists (parameter, gradient, state buffers:
``lists[k][i]`` is operand ``k`` of parameter ``i``) and runs the optimizer's launcher (cuda) or
numpy twin (cpu) once per (device, dtype, per-parameter scalars) bucket. In a training loop every
parameter of a group shares its device, dtype and step count, so the group is ONE launch; a group
that mixes dtypes, or whose parameters have different step counts (some had no gradient on some
steps), launches once per distinct combination.

The kernels walk each tensor linearly in memory, so every operand must be contiguous. Optimizer
state is created contiguous; a non-contiguous parameter or gradient (rare: a transposed leaf, a
gradient assigned by hand) is staged through a contiguous copy and written back afterwards. The
written operands' version counters are bumped, as PyTorch's in-place updates do, so autograd
notices a parameter updated after it was saved for backward.
"""

from __future__ import annotations

from collections.abc import Callable

from .._tensor import Tensor
from ..autograd import no_grad
from .optimizer import Optimizer, add_host_scalar_, check_unsupported, host_scalar, read_host_scalar


class FusedOptimizer(Optimizer):
    """The base of the elementwise optimizers: validation, the step over the groups and the
    per-parameter state they share. A subclass names itself in ``_name`` (error messages), lists
    its option checks in ``_checks`` and updates one group in ``_update_group(group, params,
    grads)`` (the parameters that have a gradient), usually with one :func:`fused_update`."""

    _name = "Optimizer"
    # loaded as float32 cpu scalars, the host reads them every step. PyTorch keeps a loaded ``step`` as saved but casts
    # ``mu_product`` (NAdam) to the parameter's dtype: after a round trip float64 NAdam runs differ from it by ~1e-8
    _HOST_SCALARS = ("step", "mu_product")

    def __init__(self, params, defaults: dict) -> None:
        # PyTorch's constructor order: the option values, then the implementation switches.
        self._check_group(defaults)
        check_unsupported(self._name, **{k: defaults[k] for k in ("capturable", "differentiable", "fused", "foreach")
                                         if k in defaults})
        if "betas" in defaults:  # floats: the host computes the bias corrections from them
            defaults = {**defaults, "betas": tuple(float(b) for b in defaults["betas"])}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], self._name)
                self._update_group(group, params, grads)
        return loss

    def _update_group(self, group: dict, params: list, grads: list) -> None:
        raise NotImplementedError

    def _advance_states(self, params, buffers=(), *, optional=(), fill: float = 0.0, host=(),
                        read_steps: bool = True) -> tuple[list[dict], list[float]]:
        """Each parameter's state, with its ``step`` advanced by one (PyTorch's ``step_t += 1``), and
        the new step values (``read_steps``).

        A parameter's first step creates its state in PyTorch's key order: ``step`` (a float32 cpu
        scalar), the ``host`` scalars (``(name, initial value)`` pairs), then the ``buffers`` and the
        ``optional`` buffers (zeros, or ``fill``). An optional buffer (one an option such as amsgrad
        needs) is also created on a later step, when the option was switched on since. A step is
        read right after its increment, so a parameter listed twice sees both steps, as in PyTorch.
        """
        states, steps = [], []
        for i, p in enumerate(params):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = host_scalar(0.0)
                for name, value in host:
                    state[name] = host_scalar(value)
                for name in buffers:
                    state[name] = zeros_state(p, fill)
            for name in optional:
                if name not in state:
                    state[name] = zeros_state(p, fill)
            try:
                add_host_scalar_(state["step"], 1.0)
            except KeyError:
                raise RuntimeError(f"{self._name}: the state of parameter {i} has no 'step' (it has "
                                   f"{sorted(state)}); was it loaded from another optimizer's state_dict?") from None
            if read_steps:
                steps.append(read_host_scalar(state["step"]))
            states.append(state)
        return states, steps


def _array(t: Tensor):
    return t._np_view() if t.is_cpu else t._device_array()


def fused_update(name: str, launcher: Callable, twin: Callable, lists: list, *, written: tuple, keys=None,
                 scalars_for: Callable | None = None, **options) -> int:
    """Run one optimizer update over ``lists`` (operand lists; an absent operand is ``None``).

    ``written``: indices of the operands the update writes (the parameter and the state buffers).
    ``keys[i]``: per-parameter host scalars (e.g. the step); parameters with equal keys share a
    launch, and ``scalars_for(key)`` gives the launcher's keyword arguments for them.
    Returns the number of kernel launches (cuda) or twin calls (cpu).
    """
    params = lists[0]
    if not params:
        return 0
    buckets: dict = {}
    for i, p in enumerate(params):
        key = (p.device, p.dtype, keys[i] if keys is not None else None)
        buckets.setdefault(key, []).append(i)

    launches = 0
    for (dev, _dtype, key), idx in buckets.items():
        staged = []
        arrays = []
        for k, lst in enumerate(lists):
            if lst is None:
                arrays.append(None)
                continue
            col = []
            for i in idx:
                t = lst[i]
                if t.device != dev:
                    raise RuntimeError(f"{name}: state {k} of parameter {i} is on {t.device}, the parameter on {dev}")
                if t._shape != params[i]._shape:
                    raise RuntimeError(f"{name}: operand {k} (optimizer state) of parameter {i} has shape "
                                       f"{list(t._shape)}, the parameter {list(params[i]._shape)}; was the state "
                                       "loaded from another model's optimizer?")
                if not t.is_contiguous():
                    c = t.contiguous()
                    if k in written:
                        staged.append((t, c))
                    t = c
                col.append(_array(t))
            arrays.append(col)
        kwargs = dict(options)
        if scalars_for is not None:
            kwargs.update(scalars_for(key))
        impl = twin if dev.type == "cpu" else launcher
        launches += impl(*arrays, **kwargs)
        if staged:
            with no_grad():
                for dst, src in staged:
                    dst.copy_(src)
        for k in written:
            if lists[k] is not None:
                for i in idx:
                    lists[k][i]._bump_version()
    return launches


def grads_of(params, name: str) -> tuple[list, list]:
    """The parameters that have a gradient, and their gradients, checked before any state changes:
    floating parameters, gradients of the same dtype, shape and device."""
    with_grad, grads = [], []
    for i, p in enumerate(params):
        g = p.grad
        if g is None:
            continue
        if not p.dtype.is_floating_point:
            raise RuntimeError(f"{name}: can only optimize floating point parameters, parameter {i} is {p.dtype.name}")
        if g.dtype != p.dtype:
            raise RuntimeError(f"{name}: the gradient of parameter {i} is {g.dtype.name} but the parameter is "
                               f"{p.dtype.name}; they must match")
        if g.device != p.device or g._shape != p._shape:
            raise RuntimeError(f"{name}: the gradient of parameter {i} ({list(g._shape)} on {g.device}) does not "
                               f"match the parameter ({list(p._shape)} on {p.device})")
        with_grad.append(p)
        grads.append(g)
    return with_grad, grads


def zeros_state(p: Tensor, value: float = 0.0) -> Tensor:
    """A contiguous state buffer shaped and typed like ``p`` (PyTorch's ``zeros_like``/``full_like``;
    like them, an uninitialized lazy parameter raises its ValueError)."""
    from .._factories import full, refuse_uninitialized, zeros

    refuse_uninitialized(p)

    if value == 0.0:
        return zeros(p._shape, dtype=p.dtype, device=p.device)
    return full(p._shape, value, dtype=p.dtype, device=p.device)


def empty_state(p: Tensor) -> Tensor:
    from .._factories import empty

    return empty(p._shape, dtype=p.dtype, device=p.device)
