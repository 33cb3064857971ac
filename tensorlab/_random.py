"""Random numbers: ``Generator``, ``manual_seed`` and the sampling functions.

A generator is (seed, offset) and nothing else: every sampling call takes the counters it
needs from ``offset`` and advances it, and the Philox kernels (or their bit-identical numpy
twins) turn (seed, counter) into values. So a seed reproduces a sequence per device, GPU
kernels need no state, and cpu and cuda draw the same uniform bits for the same seed.
"""

from __future__ import annotations

import math
import operator
import os
import threading
import warnings

import numpy as np

from tensorlab_kernels import random as krand

from . import _dtype as D
from ._device import CPU, as_device, device
from ._dispatch import dispatch, empty_tensor
from ._factories import refuse_uninitialized
from ._layout import format_strides, preserve_format
from ._registry import Plan, defop
from ._tensor import Tensor, need_tensor, tensor_method
from ._views import int_arg, shape_args
from .autograd.grad_mode import is_grad_enabled

DEFAULT_SEED = 67280421310721  # PyTorch's default seed
_SEED_MOD = 2**64  # seeds are uint64, as PyTorch's: a negative seed is taken modulo 2**64


class Generator:
    """A counter-based (Philox) random generator for one device."""

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._seed = DEFAULT_SEED
        self._offset = 0
        self._lock = threading.Lock()

    # pickle and copy.deepcopy (a sampler holding a generator, a checkpointed object): the device and
    # the state, a new lock (PyTorch's Generator pickles through its state too)
    def __getstate__(self) -> dict:
        return {"device": self.device, "seed": self._seed, "offset": self._offset}

    def __setstate__(self, state: dict) -> None:
        self.device, self._seed, self._offset = state["device"], state["seed"], state["offset"]
        self._lock = threading.Lock()

    def manual_seed(self, seed) -> Generator:
        # (top-level manual_seed int()s first; a Generator's takes an int only: PyTorch refuses a bool and a
        # Tensor, which has __index__, here)
        if isinstance(seed, float | np.floating | bool | np.bool_ | Tensor) or not hasattr(seed, "__index__"):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = operator.index(seed)
        if not -(2**63) <= seed < 2**64:  # (PyTorch's message from its argument parser)
            raise ValueError(f"Overflow when unpacking long long: seed {seed} is not in [-2**63, 2**64)")
        with self._lock:
            self._seed = seed % _SEED_MOD
            self._offset = 0
        return self

    def seed(self) -> int:
        s = int.from_bytes(os.urandom(8), "little") % _SEED_MOD
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        from ._factories import wrap_numpy

        return wrap_numpy(np.array([self._seed, self._offset], dtype=np.uint64).view(np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        if not isinstance(new_state, Tensor):
            raise TypeError(f"set_state: expected a uint8 Tensor from get_state(), got {type(new_state).__name__}")
        if new_state.dtype is not D.uint8:  # (PyTorch: a TypeError for a tensor of another dtype)
            raise TypeError(f"set_state: expected a uint8 Tensor from get_state(), got a {new_state.dtype.name} "
                            "Tensor")
        arr = np.ascontiguousarray(np.asarray(new_state.detach().cpu()._np_view()))
        if arr.dtype != np.uint8 or arr.size != 16:
            raise RuntimeError("set_state: expected a uint8 tensor of 16 bytes from get_state()")
        seed, offset = arr.view(np.uint64)
        with self._lock:
            self._seed, self._offset = int(seed), int(offset)
        return self

    def _take(self, counters: int) -> tuple[int, int]:
        """Reserve ``counters`` Philox counters: returns (seed, first counter)."""
        with self._lock:
            offset = self._offset
            self._offset += counters
        return self._seed, offset

    def __repr__(self):
        return f"<tensorlab.Generator device={self.device} seed={self._seed} offset={self._offset}>"


_default_generators: dict[device, Generator] = {}


def default_generator(dev: device) -> Generator:
    g = _default_generators.get(dev)
    if g is None:
        g = _default_generators.setdefault(dev, Generator(dev))
    return g


def manual_seed(seed) -> Generator:
    """Seed the default generators of every device; returns the cpu generator. ``seed`` is taken as
    ``int(seed)`` (so 1.5 is 1, as PyTorch's) modulo 2**64."""
    seed = int(seed)
    default_generator(CPU).manual_seed(seed)
    for dev, g in list(_default_generators.items()):
        if dev != CPU:
            g.manual_seed(seed)
    _pending_seed["seed"] = int(seed)
    return default_generator(CPU)


_pending_seed: dict = {}


def _generator_for(dev: device, generator: Generator | None, op: str) -> Generator:
    if generator is None:
        g = _default_generators.get(dev)
        if g is None:
            g = default_generator(dev)
            if "seed" in _pending_seed:  # a device first used after manual_seed gets that seed too
                g.manual_seed(_pending_seed["seed"])
        return g
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}: argument 'generator' must be tensorlab.Generator, not {type(generator).__name__}")
    if generator.device.type != dev.type:
        raise RuntimeError(
            f"{op}: Expected a '{dev.type}' device type for generator but found '{generator.device.type}'"
        )
    return generator


def seed() -> int:
    s = default_generator(CPU).seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator(CPU).initial_seed()


def get_rng_state() -> Tensor:
    return default_generator(CPU).get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator(CPU).set_state(new_state)


# ----------------------------------------------------------------------------------------------
# ops: in-place samplers (the outputs are the tensors being filled)
# ----------------------------------------------------------------------------------------------


def _sampler_meta(x: Tensor, **params) -> Plan:
    return Plan(args=[], outputs=[(x._shape, x.dtype)], params=params)


def _zero_grad_backward(ctx, g):
    from ._factories import zeros_like

    return (zeros_like(g),)


_NO_SAVE = {"save": lambda ctx, inputs, outputs, params: None}
UNIFORM_ = defop("uniform_", twin=krand.uniform_twin, kernel=krand.uniform, meta=_sampler_meta,
                 backward=_zero_grad_backward, tags={"random"}, **_NO_SAVE)
NORMAL_ = defop("normal_", twin=krand.normal_twin, kernel=krand.normal, meta=_sampler_meta,
                backward=_zero_grad_backward, tags={"random"}, **_NO_SAVE)
RANDOM_ = defop("random_", twin=krand.randint_twin, kernel=krand.randint, meta=_sampler_meta,
                backward=_zero_grad_backward, tags={"random"}, **_NO_SAVE)


def _bernoulli_meta(p: Tensor, seed: int, offset: int, dtype: D.dtype) -> Plan:
    return Plan(args=[p], outputs=[(p._shape, dtype)], params={"seed": seed, "offset": offset})


# (differentiable as PyTorch's: the samples require grad with their probabilities, whose gradient is zero)
BERNOULLI = defop("bernoulli", twin=krand.bernoulli_twin, kernel=krand.bernoulli, meta=_bernoulli_meta,
                  backward=_zero_grad_backward, tags={"random"}, **_NO_SAVE)


def _sample_into(t: Tensor, op, kind: str, generator, name: str, **params) -> Tensor:
    """Run sampler ``op`` into ``t`` (through a contiguous temporary when ``t`` is strided)."""
    g = _generator_for(t.device, generator, name)
    if not t.is_contiguous():
        tmp = empty_tensor(t._shape, t.dtype, t.device)
        _sample_into(tmp, op, kind, g, name, **params)
        return t.copy_(tmp)
    counters = krand.counters_needed(kind, t.numel())
    seed, offset = g._take(counters)
    return dispatch(op, t, inplace=True, seed=seed, offset=offset, **params)


_NOT_GIVEN = object()


def _from_keyword(op: str, from_, unset, kwargs: dict):
    """PyTorch names the lower bound ``from``, a Python keyword, so it is passed as
    ``x.uniform_(**{"from": 0, "to": 1})``: ``from_`` or that keyword (``unset`` when neither)."""
    for name in kwargs:
        if name != "from":
            raise TypeError(f"{op}() got an unexpected keyword argument '{name}'")
    if "from" not in kwargs:
        return from_
    if from_ is not unset:
        raise TypeError(f"{op}() got multiple values for argument 'from'")
    return kwargs["from"]


@tensor_method
def uniform_(self: Tensor, from_: float = _NOT_GIVEN, to: float = 1.0, *, generator=None, **kwargs) -> Tensor:
    """Uniform samples in [from, to); ``from`` may be a keyword as PyTorch's (``**{"from": 0}``)."""
    a = _from_keyword("uniform_", from_, _NOT_GIVEN, kwargs)
    a, b = 0.0 if a is _NOT_GIVEN else a, to
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"uniform_: \"check_uniform_bounds\" not implemented for "
                                  f"'{D.torch_name(self.dtype)}' (a floating point tensor is needed)")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    # PyTorch's bounds checks: both ends finite in the dtype, and their distance too
    finite_max = float(D.float_info(self.dtype).max)
    for name, v in (("from", a), ("to", b)):
        if not -finite_max <= v <= finite_max:  # (NaN fails too)
            raise RuntimeError(f"{name} is out of bounds for {D.cpp_name(self.dtype)}")
    if b - a > finite_max:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{D.cpp_name(self.dtype)}>::max(), but "
                           f"found to={b} and from={a} which result in to-from to exceed the limit")
    kind = "uniform64" if self.dtype is D.float64 else "uniform"
    return _sample_into(self, UNIFORM_, kind, generator, "uniform_", low=float(a), high=float(b))


@tensor_method
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"normal_: \"normal_kernel_cpu\" not implemented for "
                                  f"'{D.torch_name(self.dtype)}' (a floating point tensor is needed)")
    _check_std(std)
    return _sample_into(self, NORMAL_, "normal", generator, "normal_", mean=float(mean), std=float(std))


def _check_std(std) -> None:
    if not std >= 0:  # (NaN fails too, as PyTorch's check: its samples would all be NaN)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")  # (C++'s printing)


# a floating dtype holds every integer up to 2**bits exactly (its significand's bits)
_EXACT_INT_BITS = {D.float16: 11, D.bfloat16: 8, D.float32: 24, D.float64: 53}


@tensor_method
def random_(self: Tensor, from_: int | None = None, to=_NOT_GIVEN, *, generator=None, **kwargs) -> Tensor:
    """Integers uniform in [from_, to) (``to=None``: up to the dtype's largest value, included). One
    argument is ``to`` (``x.random_(10)`` draws from [0, 10)), as PyTorch's random_(to) overload;
    ``x.random_(-128, None)`` is its random_(from, to=None) one. ``from`` may be a keyword as
    PyTorch's (``x.random_(**{"from": 2, "to": 5})``)."""
    if kwargs:
        from_ = _from_keyword("random_", from_, None, kwargs)
        if to is _NOT_GIVEN:  # (PyTorch has no random_(from) overload: alone, a bound is 'to')
            raise TypeError("random_() got 'from' without 'to': random_(from, to), random_(to) or random_()")
    if to is _NOT_GIVEN:
        from_, to = (0, from_) if from_ is not None else (0, None)
    elif from_ is None:
        from_ = 0
    from_ = _int64_arg("random_", "from", from_)
    if to is not None:
        to = _int64_arg("random_", "to", to)
        if from_ >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    elif from_ == _INT64_MIN:
        return _random_full_range(self, generator)
    floating = self.dtype.is_floating_point
    if floating:  # (PyTorch's update_from/update_to: keep the drawn integers inside [from, to) once
        from_ = _update_from(self.dtype, from_)  # they are rounded to the dtype)
    if to is None:
        if floating:
            to_inc = 2 ** _EXACT_INT_BITS[self.dtype]
            if from_ >= to_inc:  # (PyTorch's check is from < to_inc, whatever its message says)
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                                   f"to dtype, but got from={from_} > to_inc={to_inc}")
            to = to_inc + 1
        elif self.dtype is D.bool:
            to = 2
        else:
            to = int(np.iinfo(self.dtype.np).max) + 1
    elif floating:
        to = _update_to(self.dtype, int(to))
        if from_ >= to:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                               f"but got from={from_} >= to={to}")
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    _check_random_bounds(self.dtype, from_, to)
    if floating:
        _warn_random_precision(self.dtype, from_, to)
    return _sample_into(self, RANDOM_, "randint", generator, "random_", low=int(from_), high=int(to))


_INT64_MIN = -(2**63)


def _int64_arg(op: str, name: str, value) -> int:
    """A bound of random_/randint as PyTorch's parser reads it: an int64 (2**63 is its ValueError; it
    was drawn from, or refused later as out of the dtype's bounds), not a float or a bool (TypeError:
    int() truncated randint(1.5, 10.5) to [1, 10))."""
    v = int_arg(op, name, value)
    if not _INT64_MIN <= v < 2**63:
        raise ValueError(f"Overflow when unpacking long long: {op}() argument '{name}' {v} is not in [-2**63, 2**63)")
    return v


# PyTorch's kernel for random_(from=-2**63, to=None) (every int64) fills only these dtypes
_FULL_RANGE_DTYPES = (D.int64, D.float64, D.float32, D.bfloat16)


def _random_full_range(self: Tensor, generator) -> Tensor:
    """random_(-2**63, None): a uniform 64-bit integer cast to the dtype (span 2**64, which the
    [from, to) path cannot hold), as PyTorch's random_full_64_bits_range kernel."""
    if self.dtype not in _FULL_RANGE_DTYPES and self.numel():  # (an empty tensor is returned before the kernel)
        if self.dtype in (D.bool, D.float16):  # (outside the kernel's dispatch: PyTorch's missing-kernel error)
            raise NotImplementedError(f"\"random_full_64_bits_range_kernel_cpu\" not implemented for "
                                      f"'{D.torch_name(self.dtype)}'")
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
    return _sample_into(self, RANDOM_, "randint", generator, "random_", low=_INT64_MIN, high=2**63)


def _round_int(v: int, digits: int) -> int:
    """``v`` rounded to ``digits`` significant bits, half to even (a C++ cast of an int64)."""
    shift = abs(v).bit_length() - digits
    if shift <= 0:
        return v
    q, r = divmod(abs(v), 1 << shift)
    half = 1 << (shift - 1)
    q += r > half or (r == half and q & 1)
    return (q << shift) if v >= 0 else -(q << shift)


def _as_float_dtype(dtype: D.dtype, v: int) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(v))``; a half type's cast goes by way of float."""
    digits = _EXACT_INT_BITS[dtype]
    return _round_int(_round_int(v, 24), digits) if digits < 24 else _round_int(v, digits)


def _fits(dtype: D.dtype, v: int) -> bool:
    """Whether ``v`` is finite in the dtype (an overflowing bound is left to _check_random_bounds)."""
    return abs(v) <= float(D.float_info(dtype).max)


def _update_from(dtype: D.dtype, from_: int) -> int:
    """PyTorch's update_from: if ``from + 1`` rounds below ``from`` in the dtype, the smallest value
    drawn would round below ``from``; move ``from`` up one step of the dtype."""
    from_plus_1 = _as_float_dtype(dtype, from_ + 1)
    if from_plus_1 < from_ and _fits(dtype, from_plus_1):
        n = abs(from_ + 1).bit_length() - 1
        return from_plus_1 + (1 << (n - _EXACT_INT_BITS[dtype] + 1))
    return from_


def _update_to(dtype: D.dtype, to: int) -> int:
    """PyTorch's update_to: if ``to - 1`` rounds up to ``to`` or beyond, the largest value drawn
    would reach the excluded bound; move ``to`` down one step of the dtype."""
    to_minus_1 = _as_float_dtype(dtype, to - 1)
    if to_minus_1 >= to and _fits(dtype, to_minus_1):
        n = abs(to - 1).bit_length() - 1
        return to_minus_1 - (1 << (n - _EXACT_INT_BITS[dtype] + 1))
    return to


def _warn_random_precision(dtype: D.dtype, from_: int, to: int) -> None:
    """PyTorch's warning when a bound lies where the float dtype no longer holds every integer."""
    digits = _EXACT_INT_BITS[dtype]
    for name, v in (("from", from_), ("to - 1", to - 1)):
        if not -(1 << digits) <= v <= 1 << digits:
            warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                          f"{D.cpp_name(dtype)} can support discrete uniform distribution only within this range. "
                          "This warning will become an error in version 1.7 release, please fix the code in advance",
                          UserWarning, stacklevel=3)


def _check_random_bounds(dtype: D.dtype, from_: int, to: int) -> None:
    """PyTorch's check that [from_, to) fits the dtype (randint(300, (2,), dtype=uint8) would wrap)."""
    if dtype.is_floating_point:
        high = float(D.float_info(dtype).max)
        low = -high
    elif dtype is D.bool:
        low, high = 0, 1
    else:
        low, high = int(np.iinfo(dtype.np).min), int(np.iinfo(dtype.np).max)
    if not low <= from_ <= high:
        raise RuntimeError(f"from is out of bounds for {D.cpp_name(dtype)}")
    if not low <= to - 1 <= high:
        raise RuntimeError(f"to - 1 is out of bounds for {D.cpp_name(dtype)}")


@tensor_method
def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    if not isinstance(p, Tensor):  # (bernoulli's number p: checked on the host, no probabilities tensor)
        return self.copy_(bernoulli(self.detach(), p=p, generator=generator))
    return self.copy_(bernoulli(p.expand(self._shape) if p._shape != self._shape else p, generator=generator))


# ----------------------------------------------------------------------------------------------
# functions that create tensors
# ----------------------------------------------------------------------------------------------


def _new(size, dtype, device, op: str, default=None, out=None, check=None) -> Tensor:
    """The tensor a sampling factory fills: a new one, or ``out=`` checked as PyTorch's factories
    check it (``_factories.factory_out``; ``check(dtype)`` raises for a dtype the sampler cannot
    fill) and resized to ``size`` before anything is drawn."""
    from ._factories import _check_size, factory_out, resize_out

    size = _check_size(op, shape_args(size, op))
    if out is not None:
        dt = factory_out(op, out, dtype, device)
        if check is not None:
            check(dt)
        return resize_out(out, size)
    dt = (default or D.get_default_dtype()) if dtype is None else D.as_dtype(dtype, op)
    if check is not None:
        check(dt)
    return empty_tensor(size, dt, as_device(device))


def _floating(op: str):
    def check(dt: D.dtype) -> None:
        if not dt.is_floating_point:
            # (PyTorch's missing-kernel error, a NotImplementedError: a RuntimeError subclass)
            raise NotImplementedError(f"{op}: expected a floating point dtype, got {dt}")

    return check


def _done(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def _need_size(op: str, sizes: tuple, size) -> None:
    """PyTorch's rand/randn take a size (``rand(())`` is a 0-d tensor; ``rand()`` drew one)."""
    if not sizes and size is None:
        raise TypeError(f"{op}() missing 1 required positional arguments: \"size\"")


def rand(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    """Uniform samples in [0, 1) (``out=``: resized and filled, in its dtype)."""
    _need_size("rand", sizes, size)
    t = _new(shape_args(sizes, "rand", size), dtype, device, "rand", out=out, check=_floating("rand"))
    return _done(uniform_(t, generator=generator), requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    """Standard normal samples (``out=``: resized and filled, in its dtype)."""
    _need_size("randn", sizes, size)
    t = _new(shape_args(sizes, "randn", size), dtype, device, "randn", out=out, check=_floating("randn"))
    return _done(normal_(t, generator=generator), requires_grad)


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad: bool = False, out=None) -> Tensor:
    """Integers uniform in [low, high); ``randint(high, size)`` and ``randint(high=, size=)`` start at 0."""
    if low is None:
        if high is None:
            raise TypeError("randint(): missing the high argument (randint(low=0, high, size))")
        low = 0
    if size is None:
        if high is None or not isinstance(high, list | tuple):
            raise TypeError("randint(): missing the size argument (randint(low=0, high, size))")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    low, high = _int64_arg("randint", "low", low), _int64_arg("randint", "high", high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = _new(size, dtype, device, "randint", default=D.int64, out=out,
             check=lambda dt: _check_random_bounds(dt, int(low), int(high)))  # before out= is resized
    return _done(random_(t, int(low), int(high), generator=generator), requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    """A random permutation of 0..n-1.

    Keys come from the device's generator through the Philox twin (bit-identical on every
    device) and are argsorted on the host; the permutation is then copied to the device. A
    permutation is a setup-time object (shuffles, splits), so this costs one small transfer.
    """
    from ._factories import wrap_numpy

    n = int_arg("randperm", "n", n)  # (a numpy int or a one-element integer tensor reads as its int)
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    if out is not None:
        from ._factories import factory_out

        dt = factory_out("randperm", out, dtype, device)
        dev = out.device
    else:
        dt = D.int64 if dtype is None else D.as_dtype(dtype, "randperm")
        dev = as_device(device)
    _check_randperm_fits(n, dt)
    g = _generator_for(dev, generator, "randperm")
    keys = np.empty(n, dtype=np.float64)
    seed, offset = g._take(krand.counters_needed("uniform64", n))
    krand.uniform_twin(keys, seed, offset)
    perm = np.argsort(keys, kind="stable")
    if out is not None:
        from ._factories import _host_into

        return _host_into(out, perm.astype(dt.np), requires_grad)
    t = wrap_numpy(perm.astype(dt.np))
    return _done(t if dev == CPU else t.to(dev), requires_grad)


# the largest n whose 0..n-1 a floating dtype holds exactly, 2**bits + 1, as PyTorch's messages spell
# it (bfloat16's limit, which PyTorch does not check, by the same rule)
_RANDPERM_LIMIT_TEXT = {D.float16: "2049", D.bfloat16: "257", D.float32: "2^24+1", D.float64: "2^53+1"}


def _check_randperm_fits(n: int, dtype: D.dtype) -> None:
    """PyTorch's checks that 0..n-1 fit ``dtype``: an integer type holds n - 1 (randperm(300,
    dtype=int8) wrapped), a floating type represents every integer up to n (float16 rounded 2051
    to 2052, so values repeated); bool has no kernel."""
    if dtype is D.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dtype.is_floating_point:
        if n > 2 ** _EXACT_INT_BITS[dtype] + 1:
            raise RuntimeError(f"n cannot be greater than {_RANDPERM_LIMIT_TEXT[dtype]} for {D.torch_name(dtype)} "
                               "type.")
    elif n > 0:
        from ._factories import check_scalar_fits

        check_scalar_fits("randperm", n - 1, dtype)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples with probabilities ``input`` (or the scalar ``p``), in ``input``'s dtype
    (``out=``: of any dtype, resized to ``input``'s shape, as PyTorch's)."""
    need_tensor("bernoulli", input)
    if out is not None:
        from .ops.elementwise_common import check_outs

        if p is not None:
            raise TypeError("bernoulli(): p= and out= cannot be given together")
        (out,) = check_outs("bernoulli", out, (None,), input.device if isinstance(input, Tensor) else None, input)
    probs = input
    if p is None and not input.dtype.is_floating_point and input.numel():  # (an empty one is returned before)
        # (PyTorch's kernel reads probabilities of a floating dtype only: its missing-kernel error)
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{D.torch_name(input.dtype)}'")
    if p is not None:
        from ._factories import full_like

        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        probs = full_like(input, float(p), dtype=D.float32)
    elif probs.numel() and not bool(((probs >= 0) & (probs <= 1)).all()):  # (NaN fails both)
        # (one small read back on a GPU, as PyTorch's check; a probability outside [0, 1] has no sample)
        raise RuntimeError("bernoulli: expected every probability p to satisfy 0 <= p <= 1 (got a value outside "
                           "[0, 1] or NaN)")
    g = _generator_for(probs.device, generator, "bernoulli")
    probs_c = probs.contiguous()
    seed, offset = g._take(krand.counters_needed("bernoulli", probs_c.numel()))
    if out is not None:  # drawn in out's dtype (0/1 are exact in every dtype), into a resized out
        from ._factories import resize_out

        resize_out(out, input._shape)
        return dispatch(BERNOULLI, probs_c.detach(), seed=seed, offset=offset, dtype=out.dtype, out=out)
    result = dispatch(BERNOULLI, probs_c, seed=seed, offset=offset, dtype=input.dtype)
    if p is not None and input.requires_grad and is_grad_enabled():
        # (PyTorch's bernoulli(input, p) requires grad with input, a zero gradient: the samples written
        # over a copy of input, whose overwritten values get no gradient)
        result = input.clone().copy_(result)
    return result


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False, out=None) -> Tensor:
    """Normal samples: ``normal(mean, std, size)`` with numbers, or tensors ``mean``/``std`` (broadcast)."""
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal(): with float mean and std, the size argument is required")
        _check_std(std)
        t = _new(size, dtype, device, "normal", out=out, check=_floating("normal"))
        return _done(normal_(t, float(mean), float(std), generator=generator), requires_grad)
    if size is not None:  # (PyTorch has no such overload: the shape is mean's and std's, broadcast)
        which = "mean" if mean_t else "std"
        raise TypeError(f"normal(): size is only taken with float mean and std, got a Tensor {which} and size {size}")
    if out is not None:  # tensor mean/std: no autograd through out=, checked before drawing
        from .ops.elementwise_common import check_outs

        check_outs("normal", out, (None,), (mean if mean_t else std).device, *(t for t in (mean, std)
                                                                             if isinstance(t, Tensor)))
    ref = mean if mean_t else std
    if std_t and std.numel() and not bool((std >= 0).all()):  # (PyTorch's std.min() >= 0: NaN fails too)
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not std_t:
        _check_std(std)
    from ._broadcast import broadcast_shapes

    shape = broadcast_shapes(mean.shape if mean_t else (), std.shape if std_t else ())
    dt = ref.dtype  # (PyTorch's: the samples take mean's dtype, or std's without a tensor mean)
    if not dt.is_floating_point:  # (PyTorch fills a tensor of that dtype: only an empty one has no kernel to miss)
        if math.prod(shape):
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{D.torch_name(dt)}'")
        result = empty_tensor(shape, dt, ref.device)
    else:
        z = normal_(empty_tensor(shape, dt, ref.device), generator=generator)
        result = z * std + mean
        if result.dtype is not dt:
            result = result.to(dt)
    if out is not None:
        from .ops.elementwise_common import composite_out

        return composite_out("normal", result, out)
    return result


def _laid_out_like(t: Tensor, input: Tensor, op: str, memory_format, requires_grad: bool) -> Tensor:
    """The samples ``t`` (new, contiguous) in the layout ``memory_format`` asks, by default
    ``input``'s (PyTorch's ``preserve_format``): copied into it when that is not contiguous (as
    ``_sample_into`` would sample a strided tensor through a contiguous one)."""
    strides = format_strides(op, input._shape, memory_format, input)
    if strides is not None:
        t = empty_tensor(t._shape, t.dtype, t.device, strides).copy_(t)
    return _done(t, requires_grad)


def rand_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, generator=None,
              memory_format=preserve_format) -> Tensor:
    refuse_uninitialized(input)
    t = rand(input._shape, dtype=dtype or input.dtype, device=device or input.device, generator=generator)
    return _laid_out_like(t, input, "rand_like", memory_format, requires_grad)


def randn_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, generator=None,
               memory_format=preserve_format) -> Tensor:
    refuse_uninitialized(input)
    t = randn(input._shape, dtype=dtype or input.dtype, device=device or input.device, generator=generator)
    return _laid_out_like(t, input, "randn_like", memory_format, requires_grad)


def randint_like(input: Tensor, low=None, high=None, *, dtype=None, device=None, requires_grad: bool = False,
                 generator=None, memory_format=preserve_format) -> Tensor:
    """``randint_like(x, high)``, ``randint_like(x, low, high)`` or ``randint_like(x, high=h)`` (low 0)."""
    if high is None:
        if low is None:
            raise TypeError("randint_like(): missing the high argument (randint_like(input, low=0, high))")
        low, high = 0, low
    elif low is None:
        low = 0
    low, high = _int64_arg("randint_like", "low", low), _int64_arg("randint_like", "high", high)
    refuse_uninitialized(input)
    t = randint(low, high, input._shape, dtype=dtype or input.dtype, device=device or input.device,
                generator=generator)
    return _laid_out_like(t, input, "randint_like", memory_format, requires_grad)


__all__ = ["Generator", "bernoulli", "default_generator", "get_rng_state", "initial_seed", "manual_seed", "normal",
           "rand", "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "seed",
           "set_rng_state"]
