"""``autocast``: mixed precision by op, as ``torch.autocast``.

Inside ``with tl.autocast("cuda"):`` (or ``"cpu"``) each op on a floating tensor of that device type
runs in the dtype its kind calls for, following PyTorch's lists for that device type:

- **lower precision**: float32 inputs are cast to the autocast dtype (float16 on cuda, bfloat16 on
  cpu by default), so they run on the tensor cores with fp32 accumulation. cuda: the matmuls
  (mm, bmm, matmul, addmm, baddbmm, addbmm, mv, addmv, addr, einsum, chain_matmul, linalg.multi_dot,
  linalg.vecdot), linear, attention, prelu, the recurrent cells and cuDNN's RNN (every ``nn.RNN``/
  ``LSTM``/``GRU`` on cuda); cpu: the same but mv/addmv, addr, einsum, chain_matmul, multi_dot and
  the cells, and oneDNN's RNN layer (``nn.LSTM`` on cpu, unpacked and without projections);
- **float32**: float16/bfloat16 inputs are cast to float32, where range and precision matter. cuda:
  exp/log/pow and friends, sums, products, cumulative sums, logsumexp, softmax, log_softmax,
  layer_norm, rms_norm, group_norm, norms, renorm, normalize, cosine_similarity, cdist, pdist, dist
  and every loss but gaussian_nll_loss, multilabel_soft_margin_loss and
  triplet_margin_with_distance_loss; cpu (a shorter list): products, trace, quantile, nanquantile,
  cdist, pdist, the reflect (1-d, 2-d) and replicate pads and those losses;
- **promote**: inputs are cast to the widest floating dtype among them. cuda: addcmul, addcdiv,
  atan2, dot, vdot, cross, tensordot, bilinear, index_put, scatter_add; cpu: cat, stack, index_copy;
- everything else runs in its inputs' dtypes. float64 tensors are never cast.

The state is per thread, as PyTorch's. How: registered ops are cast in the dispatcher (one module
flag, ``_dispatch.AUTOCAST``, whether any thread has autocast on, is tested per dispatch, so an
autocast-free program pays one comparison); composite functions built from several ops (the
losses, ``normalize``, ``cdist``, ``tensordot``...), and ops whose Python wrapper checks dtypes
before it dispatches, cast at their entry (:func:`autocast_op`, :func:`autocast_float32`) and run
their body without autocast, as PyTorch runs the op it cast. Casts are ordinary differentiable
``to()`` ops, so gradients flow back in each tensor's own dtype. Backward passes run without
autocast (as PyTorch's: a backward op runs in its forward op's dtype). With ``cache_enabled`` a
leaf parameter's cast is made once per outermost autocast region and reused.
"""

from __future__ import annotations

import functools
import threading

from .. import _dispatch
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled

# PyTorch's autocast lists (autocast_mode.cpp / autocast_mode.h), by PyTorch's op name: the registered ops
# are cast in the dispatcher; the composites, and the ops whose Python wrapper checks dtypes before the
# dispatcher runs, at their entry (autocast_op, autocast_float32 for the losses)
LOWER_PRECISION = {
    "cuda": frozenset({"addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "chain_matmul", "einsum",
                       "linalg_multi_dot", "linalg_vecdot", "linear", "matmul", "mm", "mv", "prelu",
                       "scaled_dot_product_attention", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
                       "_cudnn_rnn"}),
    "cpu": frozenset({"addbmm", "addmm", "baddbmm", "bmm", "linalg_vecdot", "linear", "matmul", "mm", "prelu",
                      "scaled_dot_product_attention", "mkldnn_rnn_layer"}),
}
FLOAT32 = {
    "cuda": frozenset({"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log1p", "log2", "pow",
                       "reciprocal", "rsqrt", "sinh", "tan", "softplus", "sum", "prod", "cumsum", "cumprod",
                       "layer_norm", "rms_norm", "log_softmax", "softmax", "norm", "logsumexp", "renorm",
                       "cross_entropy_loss"}),
    "cpu": frozenset({"prod", "trace", "quantile", "nanquantile", "cross_entropy_loss", "reflection_pad1d",
                      "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d"}),
}
PROMOTE = {
    "cuda": frozenset({"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "index_put", "scatter_add",
                       "tensordot"}),
    "cpu": frozenset({"cat", "stack", "index_copy"}),
}
_POLICY = {dev: {**{n: "lower" for n in LOWER_PRECISION[dev]}, **{n: "float32" for n in FLOAT32[dev]},
                 **{n: "promote" for n in PROMOTE[dev]}} for dev in ("cuda", "cpu")}

_DEFAULT_DTYPES = {"cuda": D.float16, "cpu": D.bfloat16}
_SUPPORTED = {"cuda": (D.float16, D.bfloat16), "cpu": (D.float16, D.bfloat16)}


class _State(threading.local):
    """One thread's autocast state, as PyTorch's (thread-local): a region opened in one thread does
    not cast another thread's ops, and each thread starts with autocast off."""

    def __init__(self):
        self.enabled = {"cuda": False, "cpu": False}  # per device type
        self.dtype = dict(_DEFAULT_DTYPES)
        self.cache: dict = {}  # casts of leaf tensors, for the outermost region
        self.cache_enabled = True
        self.depth = 0  # open regions
        self.suspended = 0  # > 0 inside a backward pass (or a custom_fwd forward with cast_inputs)
        self.active = False  # this thread counts in _active_threads


_state = _State()
# How many threads have autocast on (enabled for a device type and not suspended). The dispatcher's
# flag, _dispatch.AUTOCAST, is whether any has: a program that never autocasts pays one comparison
# per op, and while one thread autocasts the others' ops ask cast_inputs, which finds them off.
_active_threads = [0]
_active_lock = threading.Lock()


def _sync_flag() -> None:
    state = _state
    active = (state.enabled["cuda"] or state.enabled["cpu"]) and not state.suspended
    if active is not state.active:
        with _active_lock:
            state.active = active
            _active_threads[0] += 1 if active else -1
            _dispatch.AUTOCAST = _active_threads[0] > 0


def is_autocast_available(device_type: str) -> bool:
    return device_type in _SUPPORTED


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (``"cuda"`` when not given, as PyTorch)."""
    return _state.enabled["cuda" if device_type is None else _check_device_type(device_type)]


def get_autocast_dtype(device_type: str):
    return _state.dtype[_check_device_type(device_type)]


def get_autocast_gpu_dtype():
    return _state.dtype["cuda"]


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def clear_autocast_cache() -> None:
    _state.cache.clear()


def _check_device_type(device_type: str) -> str:
    if device_type not in _SUPPORTED:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}' "
                           "(tensorlab's autocast supports 'cuda' and 'cpu')")
    return device_type


class autocast:
    """``with tl.autocast("cuda"):`` / ``@tl.autocast("cuda")``: run the ops inside in mixed
    precision (module docstring). ``dtype``: float16 or bfloat16 (default float16 on cuda,
    bfloat16 on cpu); ``enabled=False`` turns autocast off inside the block; ``cache_enabled``:
    reuse a leaf parameter's cast within the region."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _check_device_type(device_type)
        self.fast_dtype = _DEFAULT_DTYPES[self.device] if dtype is None else D.as_dtype(dtype, "autocast")
        self._enabled = enabled  # (a bool: checked on entry, as PyTorch's set_autocast_enabled)
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else bool(cache_enabled)
        if self._enabled and self.device == "cpu" and self.fast_dtype not in _SUPPORTED["cpu"]:
            import warnings  # (PyTorch's: a warning, and autocast off)

            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast "
                          "only supports dtypes of tensorlab.bfloat16, tensorlab.float16 currently.", stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED[self.device]:
            raise RuntimeError(f"In autocast, but the target dtype {self.fast_dtype} is not supported: "
                               f"autocast on {self.device} supports float16 and bfloat16")
        if self._enabled and self.device == "cuda":
            from .. import cuda

            if not cuda.is_available():  # (PyTorch: a warning, and autocast off)
                import warnings

                warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling",
                              stacklevel=2)
                self._enabled = False

    def __enter__(self):
        if not isinstance(self._enabled, bool):  # (PyTorch's: TypeError on entry, not at construction)
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
                            f"{type(self._enabled).__name__}")
        # (an explicit region applies even inside a backward pass: custom_bwd relies on it)
        state = _state
        self._prev = (state.enabled[self.device], state.dtype[self.device], state.cache_enabled, state.suspended)
        state.enabled[self.device], state.dtype[self.device] = self._enabled, self.fast_dtype
        state.cache_enabled, state.suspended = self._cache_enabled, 0
        state.depth += 1
        _sync_flag()
        return self

    def __exit__(self, *exc) -> bool:
        state = _state
        state.depth -= 1
        if state.depth == 0:
            state.cache.clear()  # (PyTorch: the cache lives as long as the outermost region)
        state.enabled[self.device], state.dtype[self.device], state.cache_enabled, state.suspended = self._prev
        _sync_flag()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)

        return wrapper


class suspended:
    """Autocast off inside, whatever regions are open (the backward pass runs in it)."""

    def __enter__(self):
        _state.suspended += 1
        _sync_flag()

    def __exit__(self, *exc) -> bool:
        _state.suspended -= 1
        _sync_flag()
        return False


# ----------------------------------------------------------------------------------------------
# casting
# ----------------------------------------------------------------------------------------------


def _eligible(t) -> bool:
    """A floating tensor (not float64) of a device type with autocast on (and not suspended: another
    thread's region keeps the dispatcher's flag up during this thread's backward pass)."""
    return (isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype is not D.float64
            and _state.enabled.get(t.device.type, False) and not _state.suspended)


def _cast(t: Tensor, dtype) -> Tensor:
    if t.dtype is dtype:
        return t
    # a parameter: cast once per region (not under no_grad: that cast records no gradient edge)
    cache = _state.cache
    if _state.cache_enabled and t.is_leaf and t.requires_grad and _grad_enabled():
        hit = cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == t._version and hit[2].dtype is dtype:
            return hit[2]
        result = t.to(dtype)
        cache[id(t)] = (t, t._version, result)
        return result
    return t.to(dtype)


def _tensors(inputs):
    for a in inputs:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, list | tuple):
            yield from (t for t in a if isinstance(t, Tensor))


def _policy(name: str, inputs) -> str | None:
    """The list ``name`` is on for the device type of the first tensor autocast applies to."""
    first = next((t for t in _tensors(inputs) if _eligible(t)), None)
    return None if first is None else _POLICY[first.device.type].get(name)


def _caster(policy: str, inputs):
    """The cast of one eligible tensor under ``policy``."""
    if policy == "lower":
        dtypes = _state.dtype
        return lambda t: _cast(t, dtypes[t.device.type])
    if policy == "float32":
        return lambda t: _cast(t, D.float32)
    widest = None
    for t in _tensors(inputs):  # (cat/stack, einsum, multi_dot: the tensors come as one list)
        if _eligible(t):
            widest = t.dtype if widest is None else D.promote_types(widest, t.dtype)
    return lambda t: _cast(t, widest)


def _cast_value(a, cast):
    if isinstance(a, Tensor):
        return cast(a) if _eligible(a) else a
    if isinstance(a, list | tuple) and any(isinstance(x, Tensor) for x in a):
        return type(a)(cast(x) if _eligible(x) else x for x in a)
    return a


def cast_inputs(op, inputs) -> tuple:
    """The dispatcher's hook (called only while autocast is on): ``inputs`` cast for ``op``."""
    policy = _policy(op.name, inputs)
    if policy is None:
        return inputs
    cast = _caster(policy, inputs)
    return tuple(_cast_value(a, cast) for a in inputs)


def autocast_op(name: str, *, opaque: bool = False):
    """For the Python function of PyTorch's op ``name``: while autocast is on, its tensor arguments
    (in lists too) are cast at its entry by the list ``name`` is on for their device type, and its
    body runs without autocast, as PyTorch's autocast runs the op it cast (so the ops inside, a
    composite's mm say, are not cast again: ``tensordot`` promotes and stays in the widest dtype).
    For an op on a list whose wrapper checks dtypes before it dispatches (``index_copy``,
    ``scaled_dot_product_attention``), so that mixed dtypes are cast before the check, as
    PyTorch's. ``opaque``: the body runs without autocast also where the op is on no list (PyTorch's
    op is one kernel there: ``bilinear``'s matmul inside is no lower-precision matmul on cpu).
    Calls with ``out=`` are not cast, as PyTorch's (its out variants are on no list)."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not _dispatch.AUTOCAST or kwargs.get("out") is not None:
                return fn(*args, **kwargs)
            values = (*args, *kwargs.values())
            policy = _policy(name, values)
            if policy is None:
                if not opaque or not any(_eligible(t) for t in _tensors(values)):
                    return fn(*args, **kwargs)
            else:
                cast = _caster(policy, values)
                args = tuple(_cast_value(a, cast) for a in args)
                kwargs = {k: _cast_value(v, cast) for k, v in kwargs.items()}
            with suspended():
                return fn(*args, **kwargs)

        return wrapper

    return decorate


def autocast_policy(name: str, inputs) -> str | None:
    """The list PyTorch's op ``name`` is on for ``inputs`` while autocast is on for them ("lower",
    "float32", "promote"), else None."""
    return _policy(name, inputs) if _dispatch.AUTOCAST else None


def cast_for(name: str, *tensors) -> tuple:
    """``tensors`` cast for PyTorch's op ``name`` where a function reaches it on some arguments only
    (``pad``: ``reflection_pad1d`` for mode="reflect" on a 3-d input)."""
    if not _dispatch.AUTOCAST:
        return tensors
    policy = _policy(name, tensors)
    if policy is None:
        return tensors
    cast = _caster(policy, tensors)
    return tuple(_cast_value(t, cast) for t in tensors)


def _float32_value(v, devices):
    if _eligible(v) and v.device.type in devices:
        return _cast(v, D.float32)
    if isinstance(v, list | tuple) and any(isinstance(x, Tensor) for x in v):
        return type(v)(_float32_value(x, devices) for x in v)
    return v


def _any_eligible(values, devices) -> bool:
    return any(_eligible(t) and t.device.type in devices for t in _tensors(values))


def autocast_float32(fn=None, *, devices=("cuda", "cpu")):
    """A composite function that PyTorch's autocast runs in float32 on ``devices`` (the losses and
    ``cdist`` on both; ``normalize``, ``cosine_similarity``, ``group_norm``, ``dist`` on cuda): its
    float16/bfloat16 tensor arguments on those device types are cast to float32 while autocast is on,
    and its body runs without autocast (as :func:`autocast_op`'s)."""
    if fn is None:
        return functools.partial(autocast_float32, devices=devices)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _dispatch.AUTOCAST or not _any_eligible((*args, *kwargs.values()), devices):
            return fn(*args, **kwargs)
        args = tuple(_float32_value(a, devices) for a in args)
        kwargs = {k: _float32_value(v, devices) for k, v in kwargs.items()}
        with suspended():
            return fn(*args, **kwargs)

    return wrapper


def unsafe_under_cuda_autocast(name: str, inputs) -> None:
    """``binary_cross_entropy`` refuses cuda autocast, as PyTorch's: a float16 sigmoid before it loses
    what the loss needs."""
    if _dispatch.AUTOCAST and _state.enabled["cuda"] and any(isinstance(t, Tensor) and t.is_cuda for t in inputs):
        raise RuntimeError(
            f"tensorlab.nn.functional.{name} and tensorlab.nn.BCELoss are unsafe to autocast.\n"
            "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
            "In this case, combine the two layers using tensorlab.nn.functional.binary_cross_entropy_with_logits\n"
            "or tensorlab.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
            "safe to autocast.")


# ----------------------------------------------------------------------------------------------
# custom Functions
# ----------------------------------------------------------------------------------------------


def custom_fwd(fwd=None, *, device_type: str = "cuda", cast_inputs=None):
    """For a custom ``Function``'s ``forward``: with ``cast_inputs`` (a dtype), its floating tensor
    arguments are cast to it and the forward runs with autocast off; without, the forward runs in
    the autocast state of the caller, and :func:`custom_bwd` runs the backward in that same state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device_type(device_type)

    @functools.wraps(fwd)
    def wrapper(*args, **kwargs):
        ctx = args[0] if args else None
        if ctx is not None:
            # (PyTorch's: with cast_inputs the forward runs without autocast, and so does the backward)
            ctx._fwd_used_autocast = cast_inputs is None and is_autocast_enabled(device_type)
            ctx._autocast_dtype = get_autocast_dtype(device_type)
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        dtype = D.as_dtype(cast_inputs, "custom_fwd")

        def cast(v):  # (float64 tensors are left as they are, as PyTorch's _cast)
            if (isinstance(v, Tensor) and v.dtype.is_floating_point and v.dtype is not D.float64
                    and v.device.type == device_type):
                return v.to(dtype)
            return v

        with autocast(device_type, enabled=False):
            return fwd(*(cast(a) for a in args), **{k: cast(v) for k, v in kwargs.items()})

    return wrapper


def custom_bwd(bwd=None, *, device_type: str = "cuda"):
    """For a custom ``Function``'s ``backward``: runs it in the autocast state its forward ran in."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device_type(device_type)

    @functools.wraps(bwd)
    def wrapper(ctx, *grads):
        with autocast(device_type, dtype=getattr(ctx, "_autocast_dtype", None),
                      enabled=getattr(ctx, "_fwd_used_autocast", False)):
            return bwd(ctx, *grads)

    return wrapper
