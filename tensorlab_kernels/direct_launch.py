"""Direct launches: call a compiled kernel's launcher without Triton's Python launch path.

``kernel[grid](*args, **meta)`` runs ``JITFunction.run`` on every call: it binds the arguments,
asks the driver for the device and stream, specialises every argument, builds a cache key, looks
the compiled kernel up, and only then calls that kernel's C launcher. For an eager framework that
Python is a large part of a small op's time. Here each kernel gets a table from a cheap key of
the launch to the compiled kernel Triton chose for it the first time, and later launches with
the same key call the launcher directly, as ``JITFunction.run`` does (Triton 3.6-3.9)::

    run(grid0, grid1, grid2, stream, function, packed_metadata, launch_metadata,
        enter_hook, exit_hook, *every_argument_in_signature_order)

or, for a kernel without scratch memory, the C launch function inside that launcher object,
with the arguments its ``__call__`` would add (:func:`_launch_function`): one Python frame less
on every launch.

Why this cannot pick a wrong kernel:

- The key is at least as fine as Triton's specialisation. Per positional argument: a pointer by
  its dtype and 16-byte alignment; an int by value class (== 1, which Triton turns into a
  constant; 32-bit, 64-bit or unsigned 64-bit; divisible by 16); a float by type; a bool or None
  by value. Plus the device, every keyword (constexprs, ``num_warps``, ``num_stages``) with its
  value's type, and Triton's debug knob. A miss launches through Triton's own path (compiling if
  needed) and fills the entry from the kernel Triton returned.
- When an entry is filled, the argument tuple the direct call will pass is compared with the
  arguments Triton's own binder produced for that launch; if they differ (a Triton whose launch
  protocol changed), the kernel stays on Triton's path for good.
- The differences from Triton's call: with no launch hook registered, the launch metadata
  and the two hooks are passed as None (Triton passes a metadata object and its empty hook
  chains, which the launcher then calls for nothing). With a hook registered (profilers such as
  proton), every launch takes Triton's path. And the leading pointer arguments are passed as
  their addresses: Triton's C launcher takes an int as the address, where for an object it calls
  ``data_ptr()`` and then asks the driver (``cuPointerGetAttribute``) whether the address is
  device memory, per pointer per launch; a DeviceArray always is.
- Anything else takes Triton's path: argument types outside the list above, the Triton
  interpreter, a Triton version outside the checked range, or ``TENSORLAB_DIRECT_LAUNCH=0``.
- Not in the key: Triton's compilation settings read from the environment (instrumentation,
  fp-fusion default); they are taken as fixed for the life of the process.

Keyed launches (:func:`launch_keyed`). A launcher whose launches differ only in a few values
(the elementwise fast path: pointers, scalar bits, the element count) can name the key itself,
from those values, instead of having every argument and keyword classified; the keyword
arguments are then only built on a miss. The caller's key must determine :func:`_key`: two
launches of a kernel with equal caller keys have equal keys. ``TENSORLAB_DIRECT_LAUNCH=check``
verifies that on every keyed launch (the tests run the launchers with it).

Recorded launches (:func:`replay`). While :data:`recording` is ``(thread id, list)``, every direct
launch of that thread (only: another thread's launches are not its) appends to the list what it
ran: ``((device, Triton's debug flag), entry, grid of three dims, arrays, rest)``, the arrays being
its leading DeviceArray arguments. A launch that does not go direct this time (its first,
compiling launch; a hook; debugging) appends nothing: a later one may. A caller that knows the
launch depends only on what it keys itself (the dispatcher's replays of elementwise ops,
``tensorlab._replay``) can then run it again with other arrays of the same geometry:
:func:`replay` repeats the launcher call with the new arrays' addresses (the caller passes them) and the
current stream, and nothing else.

``tests/test_direct_launch.py`` compiles real kernels for sm_90 (no GPU needed) and checks, over
pointer alignments and int value classes, that the direct path picks the compiled kernel Triton
picks and passes its launcher the arguments Triton passes.
"""

from __future__ import annotations

import copy
import operator
import os
from threading import get_ident

from ._triton import TRITON_AVAILABLE, triton
from .compile_options import add_compile_options
from .runtime.array import DeviceArray
from .torch_free import triton_launch

# The launch protocol above was read in, and is tested against, these Triton versions.
CHECKED_VERSIONS = ((3, 6), (3, 9))


def _version_checked() -> bool:
    if not TRITON_AVAILABLE:
        return False
    try:
        major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    except ValueError:
        return False
    return CHECKED_VERSIONS[0] <= (major, minor) <= CHECKED_VERSIONS[1]


ENABLED = (os.environ.get("TENSORLAB_DIRECT_LAUNCH", "1") not in ("", "0")
           and os.environ.get("TRITON_INTERPRET", "0") in ("", "0") and _version_checked())
# Check every keyed launch's caller key against the full key (tests; costs what keying saves).
CHECK_KEYS = os.environ.get("TENSORLAB_DIRECT_LAUNCH", "1") == "check"
_runtime_knobs = triton.knobs.runtime if TRITON_AVAILABLE else None  # Triton's launch hooks and debug flag
_drivers = triton.runtime.driver if TRITON_AVAILABLE else None  # (``.active``: the driver launches go to)

_OFF = False  # a table value: this kernel always takes Triton's path
# id(kernel) -> (kernel, table or _OFF); the kernel is held so that its id is never reused.
# A table maps a launch key to (run, function, packed_metadata, constexpr tail, compiled kernel, how many
# leading pointer arguments); holding the compiled kernel keeps its module loaded (Triton unloads it
# when the object dies).
_tables: dict = {}
# id(kernel) -> {(device, debug knob, caller key): (table entry, full key)} for keyed launches;
# filled only from entries of _tables (the kernel itself is held there).
_keyed: dict = {}
KEYED_MAX = 4096  # caller keys per kernel

_I32_MIN, _I32_MAX, _I64_MAX = -(2**31), 2**31 - 1, 2**63 - 1


def _key(device, args: tuple, meta: dict) -> tuple:
    """The launch's key: what Triton specialises each positional argument on, and the keywords.

    Kernels take their pointers first (the Triton tutorials' order): those are keyed one by one;
    the value classes of the rest (sizes, strides, scalars) are remembered per tuple of values and
    types (:data:`_REST_CLASSES`): a launcher repeats its sizes and strides from call to call, and
    looking a tuple up is far cheaper than classifying thirty ints in Python. TypeError for an
    argument type outside the keyed ones (the launch then takes Triton's path)."""
    # keywords with their types: True == 1 and 1.0 == 1 as dict keys, but not as Triton constexprs
    key = [device, triton.knobs.runtime.debug, *meta.items(), *map(type, meta.values())]
    i = 0
    for a in args:
        if a.__class__ is not DeviceArray:
            break
        key.append(a.launch_key or array_key(a))
        i += 1
    rest = args[i:]
    types = tuple(map(type, rest))
    hit = _REST_CLASSES.get(rest)  # equal values of equal types have equal classes
    if hit is not None and hit[0] == types:
        key += hit[1]
        return tuple(key)
    classes = _classes(rest)
    if DeviceArray not in types:  # values only: the memo never holds device memory alive
        if len(_REST_CLASSES) >= REST_CLASSES_MAX:
            _REST_CLASSES.clear()
        _REST_CLASSES[rest] = (types, classes)
    key += classes
    return tuple(key)


# argument values after the pointers -> (their types, their classes); see _key
_REST_CLASSES: dict = {}
REST_CLASSES_MAX = 8192


def _classes(args: tuple) -> tuple:
    """What Triton specialises each argument on (one loop, no call per argument)."""
    key = []
    append = key.append
    for a in args:
        cls = a.__class__
        if cls is int:
            if a == 1:
                append(1)  # Triton compiles an int argument equal to 1 as the constant 1
            elif _I32_MIN <= a <= _I32_MAX:
                append(32 if a & 15 else 132)  # i32; divisible by 16 or not
            else:
                append((64 if a <= _I64_MAX else 65) + (0 if a & 15 else 100))  # i64 / u64
        elif cls is DeviceArray:
            append(a.launch_key or array_key(a))
        elif cls is float:
            append(0.5)
        elif a is None or cls is bool:
            append((a, cls))
        else:
            raise TypeError(cls.__name__)
    return tuple(key)


def launch(kernel, grid: tuple, args: tuple, meta: dict):
    """``kernel[grid](*args, **meta)``, directly when this launch's key was seen before."""
    held = _tables.get(id(kernel))  # by id: hashing a JITFunction hashes its source
    if held is None:
        held = _tables[id(kernel)] = (kernel, {} if isinstance(kernel, triton.runtime.JITFunction) else _OFF)
    table = held[1]
    knobs = triton.knobs.runtime
    if table is _OFF or _hooked(knobs):
        return triton_launch(kernel, grid, args, meta)
    drv = _drivers.active
    device = drv.get_current_device()
    try:
        key = _key(device, args, meta)
        entry = table.get(key)
    except TypeError:  # an argument type we do not key, or an unhashable keyword value
        return triton_launch(kernel, grid, args, meta)
    if entry is None:  # first launch with this key: Triton's path, then remember what it ran
        compiled = triton_launch(kernel, grid, args, meta)
        entry = table[key] = _entry(kernel, device, args, meta, compiled)
        if entry is _OFF:
            _tables[id(kernel)] = (kernel, _OFF)
            _keyed.pop(id(kernel), None)
        return compiled
    run, head, tail, packs, _, n_ptr = entry
    n = len(grid)
    grid = (grid[0], grid[1] if n > 1 else 1, grid[2] if n > 2 else 1)
    if packs:
        run(*grid, drv.get_current_stream(device), *head, (*map(_address, args[:n_ptr]), *args[n_ptr:], *tail))
    else:
        run(*grid, drv.get_current_stream(device), *head, *map(_address, args[:n_ptr]), *args[n_ptr:], *tail)
    rec = recording
    if rec is not None and rec[0] == get_ident():
        rec[1].append(((device, knobs.debug), entry[:4], grid, args[:n_ptr], args[n_ptr:]))
    return None


def int_class(a: int) -> int:
    """What Triton specialises an int argument on, as :func:`_key` writes it (for caller keys)."""
    if a == 1:
        return 1
    if _I32_MIN <= a <= _I32_MAX:
        return 32 if a & 15 else 132
    return (64 if a <= _I64_MAX else 65) + (0 if a & 15 else 100)


def array_key(a: DeviceArray) -> int:
    """What Triton specialises a pointer argument on: its element type and whether it is 16-byte
    aligned, as one negative int (cheap to hash, and never equal to an int's value class, all of
    which are positive; cached on the array, fixed for its life)."""
    k = a.launch_key
    if k is None:
        code = _DTYPE_CODES.get(a.dtype)
        if code is None:
            code = _DTYPE_CODES[a.dtype] = len(_DTYPE_CODES)
        k = a.launch_key = -1 - 2 * code - (not (a._ptr & 15))
    return k


_DTYPE_CODES: dict = {}  # numpy dtype -> a small int, in the order first seen
_address = operator.attrgetter("_ptr")  # DeviceArray.data_ptr() without a Python call


def launch_keyed(kernel, grid: tuple, arrays: list, rest: tuple, key, meta_of):
    """:func:`launch` of ``kernel`` with the arguments ``arrays`` (DeviceArrays) then ``rest``, with the
    caller's ``key`` for this launch's specialisation (see the module docstring), ``grid`` of three
    dims, and ``meta_of()`` building its keyword arguments, called only when needed."""
    knobs = _runtime_knobs
    try:  # _hooked(knobs), written out (every keyed launch asks)
        hooked = knobs.launch_enter_hook.calls or knobs.launch_exit_hook.calls
    except AttributeError:
        hooked = True
    if hooked:
        return triton_launch(kernel, grid, (*arrays, *rest), add_compile_options(meta_of()))
    drv = _drivers.active
    device = drv.get_current_device()
    keyed = _keyed.get(id(kernel))
    k = (device, knobs.debug, key)
    hit = keyed.get(k) if keyed is not None else None
    if hit is None or CHECK_KEYS:
        args = (*arrays, *rest)
        meta = add_compile_options(meta_of())
        if hit is not None:
            full = _key(device, args, meta)
            if full != hit[1]:
                raise AssertionError(f"direct_launch: caller key {key!r} stands for two launch keys:\n"
                                     f"  {hit[1]!r}\n  {full!r}")
        compiled = launch(kernel, grid, args, meta)
        table = _tables[id(kernel)][1]
        if table is not _OFF and hit is None:
            try:
                full = _key(device, args, meta)
            except TypeError:
                return compiled
            entry = table.get(full)
            if entry is not None and entry is not _OFF and entry[5] == len(arrays):
                keyed = _keyed.setdefault(id(kernel), {})
                if len(keyed) >= KEYED_MAX:  # a caller key finer than needed must not grow without end
                    keyed.clear()
                keyed[k] = (entry[:4], full)  # (run, head, constexpr tail, packs)
        return compiled
    run, head, tail, packs = hit[0]
    if packs:
        run(*grid, drv.get_current_stream(device), *head, (*map(_address, arrays), *rest, *tail))
    else:
        run(*grid, drv.get_current_stream(device), *head, *map(_address, arrays), *rest, *tail)
    rec = recording
    if rec is not None and rec[0] == get_ident():
        rec[1].append(((device, knobs.debug), hit[0], grid, tuple(arrays), rest))
    return None


recording: tuple | None = None  # (thread id, list of launches): see "Recorded launches" above


def replay(where: tuple, entry, grid: tuple, addresses, rest: tuple) -> bool:
    """Run a recorded launch (``where``, ``entry``, ``grid`` and ``rest`` as recorded) on the arrays
    at ``addresses`` (in the recorded arrays' order); False, launching nothing, when it must take
    the full path now: a launch hook registered since, Triton's debug flag changed, or another
    current device."""
    knobs = _runtime_knobs
    try:  # _hooked(knobs), written out (every replayed op asks)
        if knobs.launch_enter_hook.calls or knobs.launch_exit_hook.calls:
            return False
    except AttributeError:
        return False
    drv = _drivers.active
    device = drv.get_current_device()
    if (device, knobs.debug) != where:
        return False
    run, head, tail, packs = entry
    if packs:
        run(*grid, drv.get_current_stream(device), *head, (*addresses, *rest, *tail))
    else:
        run(*grid, drv.get_current_stream(device), *head, *addresses, *rest, *tail)
    return True


def _hooked(knobs) -> bool:
    """A launch hook is registered: a HookChain (Triton 3.6+) with calls, or anything else set
    there. Without one, the direct path passes the launcher None for the launch metadata and
    both hooks, and it calls nothing around the launch (Triton's path passes a metadata object
    and the empty chains, which the launcher calls for nothing). Written out in launch_keyed and
    replay, the per-op paths: attribute reads and an AttributeError for a hook that is not a
    HookChain, rather than getattr calls with a default."""
    try:
        return bool(knobs.launch_enter_hook.calls or knobs.launch_exit_hook.calls)
    except AttributeError:
        return True


def _entry(kernel, device, args: tuple, meta: dict, compiled):
    """The table entry for ``compiled``, or _OFF when the direct call would not pass the launcher
    the arguments Triton's path passes."""
    try:
        bound, _, _ = kernel.device_caches[device][-1](*args, **meta)  # Triton's binder
        values = tuple(bound.values())
        if len(values) < len(args) or any(x is not y for x, y in zip(values, args)):
            return _OFF
        if any(not kp.is_constexpr for kp in kernel.params[len(args):]):
            return _OFF  # a runtime argument passed by keyword or left at its default
        n_ptr = 0  # the leading DeviceArrays, passed to the launcher as addresses
        while n_ptr < len(args) and args[n_ptr].__class__ is DeviceArray:
            n_ptr += 1
        run, function, tail = compiled.run, compiled.function, values[len(args):]
        if function is None or not callable(run):
            return _OFF
        kernel_args = (*map(_address, args[:n_ptr]), *args[n_ptr:], *tail)
        call, head, packs = _launch_function(run, function, compiled.packed_metadata, kernel_args)
        return call, head, tail, packs, compiled, n_ptr
    except Exception:  # any surprise in Triton's internals: this kernel keeps Triton's path
        return _OFF


# Grid and stream values of the two probe launches (_launch_function)
_PROBES = (((40961, 40963, 40967), 0x5EED5EED), ((7, 11, 13), 0x7EED))


def _launch_function(run, function, packed, kernel_args: tuple):
    """How a direct launch calls the compiled kernel: ``(call, head, packs)`` for
    ``call(grid0, grid1, grid2, stream, *head, *kernel_args)``, or with the kernel arguments as one
    tuple, ``call(grid0, grid1, grid2, stream, *head, kernel_args)``, when ``packs``.

    Triton's launcher object (``CudaLauncher``) is a Python ``__call__`` around the C launch
    function: it asks for global and profiling scratch memory (none for a kernel that needs none),
    then calls the C function with the grid, the stream, the function, its own per-kernel
    constants (cooperative grid, PDL; in Triton 3.9 the argument annotations and signature) and
    the arguments, laid out as that Triton version lays them out. For a kernel without scratch
    memory, the direct path calls the C function itself, with the head that ``__call__`` passes.
    That head is learned, not assumed: a copy of the launcher whose C function is a recorder is
    called with these ``kernel_args`` and two different grids and streams; each recorded call must
    be the grid, the stream, one and the same head (nothing in it depends on the launch), then the
    kernel arguments themselves (or one tuple of them). Anything else, a launcher of another
    class, or one that needs scratch memory, keeps the launcher object's ``__call__``: ``(run,
    (function, packed, None, None, None), False)``."""
    whole = run, (function, packed, None, None, None), False
    cls = run.__class__
    if cls.__name__ != "CudaLauncher" or cls.__module__ != "triton.backends.nvidia.driver":
        return whole
    if (getattr(run, "global_scratch_size", 1) != 0 or getattr(run, "profile_scratch_size", 1) != 0
            or getattr(run, "gsan_enabled", False)):
        return whole
    recorded = []
    try:
        probe = copy.copy(run)  # (the launcher itself is shared with Triton's path: left as it is)
        probe.launch = lambda *a: recorded.append(a)
        for grid, stream in _PROBES:
            probe(*grid, stream, function, packed, None, None, None, *kernel_args)
    except Exception:  # a launcher unlike the ones read: its own __call__ it is
        return whole
    if len(recorded) != len(_PROBES):
        return whole
    n = len(kernel_args)
    heads = []
    for (grid, stream), call in zip(_PROBES, recorded):
        if call[:4] != (*grid, stream) or len(call) < 5 or call[4] is not function:
            return whole
        last = call[-1]
        if last.__class__ is tuple and len(last) == n and all(x is y for x, y in zip(last, kernel_args)):
            heads.append((call[4:-1], True))
        elif len(call) >= 5 + n and all(x is y for x, y in zip(call[len(call) - n:], kernel_args)):
            heads.append((call[4:len(call) - n], False))
        else:
            return whole
    (head, packs), (other, other_packs) = heads
    if packs != other_packs or len(head) != len(other) or not all(x is y for x, y in zip(head, other)):
        return whole  # the head holds something made for the launch
    return run.launch, head, packs


__all__ = ["CHECKED_VERSIONS", "ENABLED", "array_key", "int_class", "launch", "launch_keyed", "replay"]
