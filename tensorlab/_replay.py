"""Replayed launches: the dispatcher's fast path for elementwise and other replayable ops on a GPU.

An eager op's host time is mostly Python that decides the same things every call: the plan
(``meta``: promotion, shapes), the launcher's layout checks, the launch key. For an elementwise op
those decisions depend only on what :func:`find` collects — the op, each tensor input's dtype,
shape, strides, offset and pointer class (dtype and 16-byte alignment, ``array_key``), each number
input's type and value, the parameters and the default dtype — and the kernel reads only the
arrays. The same holds for the ops tagged ``replayable``: the matmul family (its launcher plans
from the operands' geometry, dtype and the ``precision`` parameter), the reductions over the reduce
kernel (geometry, dims, dtype), softmax and log-softmax with their backward, and cross-entropy's
two kernels (their test-only tuning knobs, ``TILE_BUDGET`` and the like, are read when a key is
recorded: ``tests/conftest.py`` starts every test with no plans). So the first call with a key runs
the full path while ``direct_launch`` records its launches; when that was exactly one direct launch
whose arrays are the outputs' and the inputs' arrays (a broadcast operand's view, or the transposed
weight of ``linear``, starts where its tensor does), the dispatcher keeps (the outputs' layouts,
the launch, which array goes where), and a later call with the same key allocates the outputs and
repeats the launch with the new arrays' addresses (``direct_launch.replay``), skipping the rest.
Every launch argument but the addresses follows from the key. An op whose launches depend on
anything else — tensor values read on the host, random numbers, a setting that is not a parameter
— must not be tagged.

Not replayed: anything but a cuda op tagged ``elementwise`` or ``replayable`` with new outputs (no
``out=``, not in place), launches that did not go direct (interpreter, hooks, debug logging), a
call that launched more than once or over a temporary array, keys with a value that compares equal
to a different one (NaN, containers; a float zero is keyed with its sign). ``TENSORLAB_REPLAY=0``
(or ``ENABLED = False``) turns replays off; ``plans.clear()`` forgets the recorded launches.
"""

from __future__ import annotations

import contextlib
import operator
import os
import threading
from math import copysign
from threading import get_ident

from tensorlab_kernels import direct_launch
from tensorlab_kernels import launch as _launch
from tensorlab_kernels.direct_launch import array_key

from . import _dtype as D
from ._storage import contiguous_strides
from ._tensor import Tensor
from .autograd import graph as _graph

ENABLED = os.environ.get("TENSORLAB_REPLAY", "1") not in ("", "0")
# key -> (the output's (shape, strides, element count, dtype), or a tuple of them for a call that
# returns a tuple; whether it does; whether every output is contiguous; where, entry, grid, array
# indices or None for the usual order, rest), or False for a key whose call cannot be replayed
# (several launches, a temporary array)
plans: dict = {}
_lock = threading.Lock()  # start and stop of a recording (one thread records at a time)
PLANS_MAX = 4096  # numbers and parameters are in the key: a program's distinct keys stay few


def find(op, inputs: tuple, params: dict, impl_arg):
    """Where a call of a replayable ``op`` with new outputs stands: None when it takes the full
    path unrecorded (not on a GPU, tensors of more than one device, a value the key cannot hold:
    see the module docstring); else ``(key, plans.get(key), whether an input requires grad)``.
    ``inputs[0]`` is a Tensor (the dispatcher checked). ``impl_arg(tensor, dev)``: the tensor's
    array (made and cached on first use, as the full path does: a new view or another op's
    output is keyed like any tensor).

    One pass over the inputs also does the dispatcher's device and requires-grad scan, so a
    replayed call scans its inputs once."""
    if not ENABLED or not direct_launch.ENABLED:  # (no direct launches: nothing to replay)
        return None
    dev = inputs[0]._storage.device
    if dev.type != "cuda":
        return None
    requires_grad = False
    k = [op, dev.index, D._default_dtype]
    for x in inputs:
        cls = x.__class__
        if cls is Tensor or (cls is not float and cls is not int and cls is not bool and isinstance(x, Tensor)):
            if x._storage.device is not dev:  # (a 0-d cpu tensor among cuda ones, or an error: the full path)
                return None
            if x._requires_grad or (x._view_version is not None and x._view_version != x._storage.version
                                    and _graph.promote_view(x)):
                requires_grad = True
            v = x._impl_view
            if v is None:
                v = impl_arg(x, dev)
            # (the launch key holds the dtype)
            k += (x._shape, x._stride, x._offset, v.launch_key or array_key(v))
        elif cls is float:
            if x == 0.0:  # 0.0 == -0.0 as keys: the sign tells them apart
                k += (cls, x, copysign(1.0, x))
            elif x != x:  # NaN never equals itself
                return None
            else:
                k += (cls, x)
        elif cls is int or cls is bool:
            k += (cls, x)
        elif x is None:  # (an optional tensor left out: linear's bias)
            k.append(None)
        else:  # a container, ...: the full path
            return None
    for name, value in params.items():
        cls = value.__class__
        if cls is float:
            if value == 0.0:
                k += (name, cls, value, copysign(1.0, value))
                continue
            if value != value:
                return None
        elif cls is tuple:  # (a reduction's dims, normalised by its function)
            for item in value:
                if item.__class__ is not int:
                    return None
        elif not (cls is int or cls is bool or cls is str or value is None or cls is D.dtype):
            return None
        k += (name, cls, value)
    k = tuple(k)
    return k, plans.get(k), requires_grad


def replay(plan: tuple, dev, inputs: tuple, new_contiguous, new_strided):
    """The result of a call (its output, or the tuple of its outputs), by replaying its ``plan``
    (``plans[key]``); None when it cannot be replayed now (the caller runs the full path).
    ``new_contiguous(shape, strides, numel, dtype, dev)``: a new contiguous tensor with its array;
    ``new_strided``: the same for any dense layout (an output laid out as permuted inputs)."""
    if not _launch.replay_ready():
        return None
    layout, as_tuple, contiguous, where, entry, grid, indices, rest = plan
    if not contiguous:
        new_contiguous = new_strided
    if not as_tuple:  # one output (the usual case): ``layout`` is its (shape, strides, numel, dtype)
        out = new_contiguous(*layout, dev)
        if indices is None:  # the usual order: the output, then every input (all tensors)
            addresses = [out._impl_view._ptr, *map(_address_of, inputs)]
        else:
            addresses = _addresses(indices, (out,), inputs)
        return out if direct_launch.replay(where, entry, grid, addresses, rest) else None
    outs = tuple([new_contiguous(*spec, dev) for spec in layout])  # (one layout per output)
    if indices is None:
        addresses = [*map(_address_of, outs), *map(_address_of, inputs)]
    else:
        addresses = _addresses(indices, outs, inputs)
    return outs if direct_launch.replay(where, entry, grid, addresses, rest) else None


def _addresses(indices: tuple, outs: tuple, inputs: tuple) -> list:
    """The launch's array addresses in a recorded order (index i: output i, then input i - outputs)."""
    n_out = len(outs)
    addresses = []  # (a loop, not a comprehension)
    for i in indices:
        addresses.append(outs[i]._impl_view._ptr if i < n_out else inputs[i - n_out]._impl_view._ptr)
    return addresses


_address_of = operator.attrgetter("_impl_view._ptr")  # a tensor input's address, without a Python call


@contextlib.contextmanager
def recording(k: tuple, inputs: tuple, outputs: tuple, as_tuple: bool):
    """Around the full path of a call keyed ``k`` (``outputs``: its new outputs, filled in by the
    time the block ends; ``as_tuple``: the call returns them as a tuple): record its launches, then
    keep what they tell about ``k`` (see :func:`_plan_of`). Nothing is kept when the block raises,
    or when another thread records at the time."""
    started = _start()
    try:
        yield
    finally:
        recorded = _stop() if started else None
    if recorded:
        plan = _plan_of(recorded, outputs, inputs, as_tuple)
        if plan is not None:
            if len(plans) >= PLANS_MAX:
                plans.clear()
            plans[k] = plan


def _start() -> bool:
    """Start this thread's recording; False when another thread records."""
    with _lock:
        if direct_launch.recording is not None:
            return False
        direct_launch.recording = (get_ident(), [])
        return True


def _stop():
    """This thread's recorded launches, ending its recording (None if it is not recording)."""
    with _lock:
        rec = direct_launch.recording
        if rec is None or rec[0] != get_ident():
            return None
        direct_launch.recording = None
        return rec[1]


def _plan_of(recorded: list, outputs: tuple, inputs: tuple, as_tuple: bool):
    """What the launches of a call (some were recorded) tell about its key: the plan, when it made
    exactly one direct launch over its outputs' and inputs' arrays; False (no plan: stop
    recording this key) otherwise; None (record again) when an address names two inputs.

    Each launched array is named by its address: an output's or one input's (a broadcast view of
    an input starts where the input does). An address none of them has (a temporary, a view made by
    meta) means no plan; one that two inputs share (``a + a``) names neither, and a later call with
    distinct inputs can record the key again."""
    if len(recorded) != 1:
        return False
    where, entry, grid, arrays, rest = recorded[0]
    known = [*[o._impl_view._ptr for o in outputs],
             *[x._impl_view._ptr if isinstance(x, Tensor) else None for x in inputs]]
    indices = []
    for a in arrays:
        matches = [i for i, ptr in enumerate(known) if ptr == a._ptr]
        if len(matches) != 1:
            return None if matches else False
        indices.append(matches[0])
    natural = tuple(range(len(known)))  # (the outputs, then each input: all tensors)
    layouts = tuple((o._shape, o._stride, o.numel(), o.dtype) for o in outputs)
    contiguous = all(o._stride == contiguous_strides(o._shape) for o in outputs)
    return (layouts if as_tuple else layouts[0], as_tuple, contiguous, where, entry, grid,
            None if tuple(indices) == natural else tuple(indices), rest)
