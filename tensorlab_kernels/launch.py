"""What every launcher shares: the launch call itself, debug logging, stride collapsing, int64 choice.

``launch(kernel, grid, *args, **meta)`` is the one place a Triton kernel is started from, so
``TENSORLAB_DEBUG=1`` can log the kernel name and its launch configuration, a launch hook can
record every configuration launched (``tools/compile_check.py``), and on a GPU a launch whose
specialisation was seen before calls the compiled kernel's launcher directly, skipping Triton's
Python launch path (``direct_launch``: the host cost of every eager op).

``INTERPRET`` tells launchers to pick interpreter-friendly configurations (few, big blocks).
``TENSORLAB_GPU_CONFIGS=1`` makes them pick the configurations they would pick on a GPU even in
the interpreter: ``tools/compile_check.py`` records those to compile them for the real target.
Results in that mode can differ where a kernel relies on an interpreter-only setting (``UPCAST``).
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import threading

import numpy as np

from . import direct_launch
from ._triton import TRITON_AVAILABLE, triton
from .compile_options import add_compile_options
from .runtime import INTERPRET as _RUNTIME_INTERPRET
from .torch_free import triton_launch

log = logging.getLogger("tensorlab")
DEBUG = os.environ.get("TENSORLAB_DEBUG", "0") not in ("", "0")
INTERPRET = _RUNTIME_INTERPRET and os.environ.get("TENSORLAB_GPU_CONFIGS", "0") in ("", "0")
if _RUNTIME_INTERPRET and TRITON_AVAILABLE:  # interpreted kernels compute as the GPU's do
    from . import interpreter_fixes

    interpreter_fixes.install()

_INTERPRETER_LOCK = threading.RLock()

# Called as hook(kernel, grid, args, meta) before every launch when set (set_launch_hook); the
# only cost when unset is this one global check in launch().
_launch_hook = None

INT32_MAX = 2**31 - 1
# CUDA's limit on a grid's second and third dims (the first takes up to 2**31 - 1): a launcher
# whose grid could pass it splits its launch; the interpreter enforces it, as the GPU does.
GRID_YZ_MAX = 65535
MAX_DIMS = 6  # generic strided kernels take this many (size, stride) pairs after collapsing


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def next_power_of_2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def launch(kernel, grid, *args, **meta):
    """Start ``kernel`` on ``grid`` (a tuple) on the current stream with tensorlab's compile options
    (``compile_options``); log it when debugging."""
    if not TRITON_AVAILABLE:
        raise RuntimeError("cannot launch Triton kernels: Triton is not installed")
    if DEBUG:
        name = getattr(kernel, "__name__", None) or getattr(getattr(kernel, "fn", None), "__name__", "kernel")
        log.debug("launch %s grid=%s %s", name, tuple(grid), {k: v for k, v in meta.items()})
    grid = tuple(grid)
    if 0 in grid:
        return None
    if _RUNTIME_INTERPRET and max(grid[1:], default=0) > GRID_YZ_MAX:  # (a GPU refuses the launch: so does
        # the interpreter, before the launch hook records it as a configuration to compile)
        raise RuntimeError(f"launch: grid {grid} passes CUDA's limit of {GRID_YZ_MAX} on its second and third dims")
    add_compile_options(meta)
    if _launch_hook is not None:
        _launch_hook(kernel, grid, args, meta)
    if direct_launch.ENABLED:
        return direct_launch.launch(kernel, grid, args, meta)
    if _RUNTIME_INTERPRET:
        # Triton's interpreter computes with numpy, which warns where the GPU silently gives inf or
        # nan (x / 0, log(0), overflowing casts, and masked lanes computing 0/0): no warning a GPU
        # user would not see. One launch at a time: the interpreter patches triton.language for the
        # duration of a launch, so two threads' launches would undo each other's patches.
        with _INTERPRETER_LOCK, np.errstate(all="ignore"):
            return kernel[grid](*args, **meta)
    return triton_launch(kernel, grid, args, meta)


def launch_keyed(kernel, grid: tuple, arrays: list, rest: tuple, key, meta_of):
    """:func:`launch` for a launcher that names its launch's specialisation itself: ``key``
    determines what Triton specialises the arguments (the DeviceArrays ``arrays``, then ``rest``)
    and the keywords on (``direct_launch.launch_keyed``); ``grid`` has three dims; ``meta_of()``
    builds the keywords, which a repeated direct launch does not need."""
    if direct_launch.ENABLED and _launch_hook is None and not DEBUG and 0 not in grid:
        return direct_launch.launch_keyed(kernel, grid, arrays, rest, key, meta_of)
    return launch(kernel, grid, *arrays, *rest, **meta_of())


def replay_ready() -> bool:
    """Whether a recorded launch may be replayed now (``direct_launch.replay``): direct launches
    on, no launch hook, no debug logging, which are what a keyed launch checks before going direct."""
    return direct_launch.ENABLED and _launch_hook is None and not DEBUG and not direct_launch.CHECK_KEYS


def set_launch_hook(hook):
    """Install ``hook(kernel, grid, args, meta)``, called before every launch (None removes it).

    Returns the previous hook. ``tools/compile_check.py`` records launch configurations with it.
    """
    global _launch_hook
    previous, _launch_hook = _launch_hook, hook
    return previous


def needs_int64(*arrays) -> bool:
    """True when an element offset of any array (or its element count) can pass 2**31 - 1.

    Every launch asks, so the usual answer comes without a pass over the dims: a view lies inside
    its allocation (tensor views and as_strided are bounds-checked), so an allocation of at most
    2**31 - 1 elements bounds its offsets; the element count (broadcast views can exceed their
    memory) and the strides are still checked."""
    for a in arrays:
        if a is None:
            continue
        strides = a.strides
        nbytes = getattr(a.storage, "nbytes", None)
        if (nbytes is not None and nbytes // a.dtype.itemsize <= INT32_MAX and math.prod(a.shape) <= INT32_MAX
                and max(strides, default=0) <= INT32_MAX and min(strides, default=0) >= -INT32_MAX):
            continue
        if a.numel > INT32_MAX or a.offset + a.max_offset() > INT32_MAX:
            return True
        if any(abs(s) > INT32_MAX for s in strides):
            return True
    return False


def loop_needs_int64(end: int, step: int) -> bool:
    """True when a kernel loop ``for start in range(lo, end, step)`` (or a segment bound
    ``lo + seg_len`` reaching ``end``) can pass 2**31 - 1 in int32: its last step ends at
    ``end - 1 + step``. ``needs_int64`` bounds the offsets of the elements, not these counters:
    a row of 2**31 - 100 elements is within it, yet its last tile's ``start + BLOCK`` wraps."""
    return end - 1 + step > INT32_MAX


def collapse_dims(shape: tuple, *strides: tuple) -> tuple[tuple, list[tuple]]:
    """Merge adjacent dims that are contiguous with each other in *every* stride list.

    Size-1 dims are dropped; the result has at least one dim. Example: a contiguous (4, 5, 6)
    array collapses to (120,), a transposed one stays 2-D. This is what lets one generic
    kernel read any strided view with few index divisions.
    """
    dims = [(s, [st[i] for st in strides]) for i, s in enumerate(shape) if s != 1]
    if not dims:
        return (1,), [(1,) for _ in strides]
    out_shape = [dims[0][0]]
    out_strides = [[d] for d in dims[0][1]]
    for size, sts in dims[1:]:
        if all(prev[-1] == st * size for prev, st in zip(out_strides, sts)):
            out_shape[-1] *= size
            for prev, st in zip(out_strides, sts):
                prev[-1] = st
        else:
            out_shape.append(size)
            for prev, st in zip(out_strides, sts):
                prev.append(st)
    return tuple(out_shape), [tuple(s) for s in out_strides]


def pad_dims(shape: tuple, strides: list[tuple], ndim: int = MAX_DIMS) -> tuple[tuple, list[tuple]]:
    """Left-pad shape and strides to ``ndim`` entries (size 1, stride 0) for the generic kernels."""
    if len(shape) > ndim:
        raise NotImplementedError(
            f"a strided view with {len(shape)} non-mergeable dims; the generic kernels take at most {ndim}"
        )
    pad = ndim - len(shape)
    return (1,) * pad + tuple(shape), [(0,) * pad + tuple(s) for s in strides]


def split_leading(shape: tuple, strides: list[tuple], ndim: int = MAX_DIMS):
    """Yield (shape, strides, element offsets) pieces of at most ``ndim`` dims.

    Views with more non-mergeable dims than a generic kernel takes are launched once per index
    of the extra leading dims: rare (it needs > 6 dims that no stride pattern merges), correct.
    """
    extra = len(shape) - ndim
    if extra <= 0:
        yield shape, strides, [0] * len(strides)
        return
    lead, rest = shape[:extra], shape[extra:]
    for index in itertools.product(*(range(n) for n in lead)):
        offsets = [sum(i * st for i, st in zip(index, s[:extra])) for s in strides]
        yield rest, [s[extra:] for s in strides], offsets


def grid_yz_pieces(b1: int, b2: int, strides: list[tuple]):
    """Yield ``((b1', b2'), element offsets)`` pieces of a ``b1 x b2`` batch that a kernel launches
    as one grid dim of ``b1 * b2`` programs (its second or third), each piece within CUDA's
    ``GRID_YZ_MAX`` (4096 sequences of 32 heads pass it); ``strides``: each array's (b1, b2) strides."""
    limit = GRID_YZ_MAX
    if b1 * b2 <= limit:
        yield (b1, b2), [0] * len(strides)
    elif b2 <= limit:
        step = limit // b2
        for i in range(0, b1, step):
            yield (min(step, b1 - i), b2), [i * s[0] for s in strides]
    else:
        for i in range(b1):
            for j in range(0, b2, limit):
                yield (1, min(limit, b2 - j)), [i * s[0] + j * s[1] for s in strides]


def numel(shape) -> int:
    return math.prod(shape)


__all__ = ["DEBUG", "GRID_YZ_MAX", "INTERPRET", "MAX_DIMS", "cdiv", "collapse_dims", "grid_yz_pieces", "launch",
           "loop_needs_int64", "needs_int64", "next_power_of_2", "pad_dims", "set_launch_hook", "triton"]
