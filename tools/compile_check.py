"""Compile every Triton kernel configuration tensorlab launches, for Hopper (sm_90), without a GPU.

Without a GPU the test suite runs the kernels in Triton's interpreter, which accepts code the
real compiler rejects (and the other way round). This tool closes that gap in two steps:

1. **record** — run a workload (pytest arguments, or scripts) in the interpreter with a launch
   hook (``tensorlab_kernels.launch.set_launch_hook``) that writes one JSON line per distinct
   specialisation launched: the kernel (module and qualified name), every positional argument's
   Triton-relevant description (pointer element dtype and 16-byte alignment; an int's value
   class: i32/i64/u64, == 1, divisible by 16; fp32 for floats; bools), the constexpr values and
   ``num_warps``/``num_stages``. By default the launchers pick the configurations they would pick
   on a GPU (``TENSORLAB_GPU_CONFIGS=1``), not the interpreter's big blocks: those are what the
   GPU compiles. (In that mode some results differ where a kernel relies on an interpreter-only
   setting such as ``UPCAST``; test failures during recording are expected and only counted.)
2. **compile** — in a process *without* ``TRITON_INTERPRET``, import each recorded kernel as a
   real ``triton.JITFunction`` and compile each record for ``GPUTarget("cuda", 90, 32)``
   through Triton's own launch path (``JITFunction.run(..., warmup=True)`` under a stand-in
   driver), so the installed Triton version's specialisation rules apply exactly as they would
   at a launch. ptxas ships in Triton's wheel. Each result is checked against Hopper's limits
   (227 KiB of shared memory per block, 64 Ki registers per block) and reports registers and
   spills (``cuobjdump --dump-resource-usage``) and, in ``--json``, how the PTX reads global
   memory (``vector_loads``/``scalar_loads``: whether loads vectorised). Exit status 1 when
   anything fails.

Usage (from the repository root)::

    python tools/compile_check.py record -o /tmp/launches.jsonl tests/test_opinfo.py -k cuda
    python tools/compile_check.py record -o /tmp/launches.jsonl --append --script tutorials/02_x.py
    python tools/compile_check.py compile /tmp/launches.jsonl [--json out.json] [--jobs 2]
    /other/venv/bin/python tools/compile_check.py compile /tmp/launches.jsonl    # another Triton
    python tools/compile_check.py run [--python /other/venv/bin/python] -- tests/ops -k cuda

``run`` records (with the default workload when no pytest arguments are given) and compiles
with this Python and every ``--python``. Compiles use a fresh Triton cache (``--cache-dir`` to
reuse one), so the reported seconds are real first-launch compile times.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_WORKLOAD = ["tests/test_opinfo.py", "tests/ops", "tests/nn", "tests/optim", "tests/test_random.py",
                    "tests/test_tensor.py", "-k", "cuda"]

LARGE = ":large"  # the built-in long-input workload (large_workload), as a "script" name

# Per-block limits of sm_90 (H100/H200): what a launch fails on, not what the compiler checks.
SMEM_LIMIT = {90: 232448}  # 227 KiB of dynamic shared memory per block (opt-in maximum)
REGS_PER_BLOCK = 65536


# ==============================================================================================
# Recording (runs inside the interpreted workload process)
# ==============================================================================================


def _python_function(kernel):
    """The Python function behind a JITFunction / InterpretedFunction / Autotuner / Heuristics."""
    fn = kernel
    for _ in range(8):
        if inspect.isfunction(fn):
            return fn
        fn = getattr(fn, "fn", None)
    raise TypeError(f"compile_check: cannot find the Python function of {kernel!r}")


_CONSTEXPR_POSITIONS: dict = {}


def _constexpr_positions(fn) -> frozenset:
    """Positional parameters annotated ``tl.constexpr`` (their values are part of the specialisation)."""
    got = _CONSTEXPR_POSITIONS.get(fn)
    if got is None:
        params = inspect.signature(fn).parameters.values()
        got = frozenset(i for i, p in enumerate(params) if "constexpr" in str(p.annotation))
        _CONSTEXPR_POSITIONS[fn] = got
    return got


def encode(value):
    """A JSON description of a kernel argument from which :func:`decode` rebuilds an equivalent one."""
    if value is None:
        return None
    if callable(getattr(value, "data_ptr", None)) and hasattr(value, "dtype"):
        return {"ptr": str(value.dtype), "mod16": int(value.data_ptr()) % 16}
    import numpy as np

    if isinstance(value, bool | np.bool_):
        return {"bool": bool(value)}
    if isinstance(value, int | np.integer):
        return {"int": int(value)}
    if isinstance(value, float | np.floating):
        return {"float": float(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, tuple | list):
        return {"tuple": [encode(v) for v in value]}
    cls = type(value).__name__
    if cls == "constexpr" and hasattr(value, "value"):
        return {"constexpr": encode(value.value)}
    if cls == "dtype" and type(value).__module__.startswith("triton"):
        return {"tl_dtype": value.name}
    if hasattr(value, "fn") and (cls.endswith("Function") or cls in ("Autotuner", "Heuristics")):
        fn = _python_function(value)
        return {"jit": f"{fn.__module__}:{fn.__qualname__}", "file": fn.__code__.co_filename}
    return {"unsupported": f"{cls}: {value!r}"[:200]}


def _int_class(v: int) -> str:
    kind = "i32" if -(2**31) <= v < 2**31 else "i64" if -(2**63) <= v < 2**63 else "u64"
    return kind + (":1" if v == 1 else ":16" if v % 16 == 0 else "")


def _arg_class(enc, constexpr: bool):
    """What Triton specialises on (at most as coarse as Triton's own cache key)."""
    if constexpr or not isinstance(enc, dict):
        return enc
    if "ptr" in enc:
        return f"*{enc['ptr']}" + (":16" if enc["mod16"] == 0 else "")
    if "int" in enc:
        return _int_class(enc["int"])
    if "float" in enc:
        return "float"
    if "bool" in enc:
        return "bool"
    if "tuple" in enc:
        return ["tuple", [_arg_class(e, False) for e in enc["tuple"]]]
    return enc


class Recorder:
    """A launch hook that appends each distinct specialisation to a JSON-lines file."""

    def __init__(self, path):
        self.path = Path(path)
        self.seen: set = set()
        self.count = 0

    def __call__(self, kernel, grid, args, meta):
        self.count += 1
        fn = _python_function(kernel)
        constexprs = _constexpr_positions(fn)
        enc_args = [encode(a) for a in args]
        enc_meta = {k: encode(v) for k, v in sorted(meta.items())}
        name = f"{fn.__module__}:{fn.__qualname__}"
        key = json.dumps([name, [_arg_class(e, i in constexprs) for i, e in enumerate(enc_args)], enc_meta])
        if key in self.seen:
            return
        self.seen.add(key)
        where = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0] or os.environ.get("_CC_SCRIPT", "")
        rec = {"kernel": name, "file": fn.__code__.co_filename, "args": enc_args, "meta": enc_meta,
               "grid": [int(g) for g in grid], "key": key, "where": where}
        with open(self.path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def _install_recorder():
    from tensorlab_kernels import launch

    recorder = Recorder(os.environ["TENSORLAB_RECORD_LAUNCHES"])
    launch.set_launch_hook(recorder)
    return recorder


# pytest plugin hook: ``python -m pytest -p compile_check`` with tools/ on sys.path (``record`` does this).
def pytest_configure(config):
    if os.environ.get("TENSORLAB_RECORD_LAUNCHES"):
        _install_recorder()


def _record_env(out: Path, gpu_configs: bool) -> dict:
    env = dict(os.environ)
    env["TRITON_INTERPRET"] = "1"
    env["TENSORLAB_RECORD_LAUNCHES"] = str(out)
    if gpu_configs:
        env["TENSORLAB_GPU_CONFIGS"] = "1"
    else:
        env.pop("TENSORLAB_GPU_CONFIGS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools"), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def record(out, pytest_args=(), scripts=(), gpu_configs=True, append=False, quiet=False) -> dict:
    """Run the workload in the interpreter, recording launches into ``out``; returns a summary."""
    out = Path(out).resolve()
    if not append and out.exists():
        out.unlink()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.touch()
    env = _record_env(out, gpu_configs)
    status = {}
    if pytest_args:
        cmd = [sys.executable, "-m", "pytest", "-p", "compile_check", "-q", "-p", "no:cacheprovider", *pytest_args]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=quiet, text=True)
        status["pytest"] = {"rc": proc.returncode, "seconds": round(time.perf_counter() - t0, 1),
                            "tail": (proc.stdout or "").strip().splitlines()[-1:] if quiet else []}
    for script in scripts:
        if script == LARGE:
            cmd = [sys.executable, str(Path(__file__).resolve()), "_exec-large"]
        else:
            cmd = [sys.executable, str(Path(__file__).resolve()), "_exec-script", str(Path(script).resolve())]
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=quiet, text=True)
        status[str(script)] = {"rc": proc.returncode}
    status["records"] = sum(1 for _ in open(out))
    return status


def large_workload() -> list[str]:
    """Inputs longer than one block: the long-row paths test-sized shapes never reach.

    Sort/select rows longer than a block go through chunk sorts and merge passes, ``unique`` of
    more than a block through a block scan, scatter reductions (and index_add's whole rows) with
    runs longer than a chunk through the long-run folds. Each call runs on its own: a failure is
    reported, not fatal.
    """
    import numpy as np

    import tensorlab as tl

    rng = np.random.default_rng(0)
    n = 3000  # > 1024: the GPU's one-block limit for sort/unique/scatter runs
    failures = []

    def attempt(what, fn):
        try:
            fn()
        except Exception as exc:
            failures.append(f"{what}: {type(exc).__name__}: {str(exc)[:200]}")

    for dtype in (tl.float32, tl.float16, tl.bfloat16, tl.float64, tl.int64, tl.int32, tl.int16):
        vals = rng.integers(-50, 50, n) if not dtype.is_floating_point else rng.standard_normal(n)
        x = tl.tensor(vals, device="cuda").to(dtype)
        x2 = x.reshape(2, n // 2)
        attempt(f"sort {dtype}", lambda x=x: x.sort())
        attempt(f"sort descending {dtype}", lambda x=x: x.sort(descending=True))
        attempt(f"sort rows {dtype}", lambda x2=x2: x2.sort(dim=1))
        attempt(f"argsort {dtype}", lambda x=x: x.argsort())
        attempt(f"topk {dtype}", lambda x=x: x.topk(7))
        attempt(f"kthvalue {dtype}", lambda x=x: x.kthvalue(11))
        attempt(f"median {dtype}", lambda x=x: x.median())
        attempt(f"median dim {dtype}", lambda x2=x2: x2.median(dim=1))
        attempt(f"msort {dtype}", lambda x2=x2: tl.msort(x2.t()))
        attempt(f"unique {dtype}", lambda x=x: tl.unique(x, return_inverse=True, return_counts=True))
        attempt(f"unique_consecutive {dtype}", lambda x=x: tl.unique_consecutive(x, return_counts=True))
    for dtype in (tl.float32, tl.float16, tl.float64, tl.int64):
        for reduce in ("sum", "prod", "mean", "amax", "amin"):
            for w in (1, 3):
                src = tl.tensor(rng.standard_normal((n, w)), device="cuda").to(dtype)
                index = tl.zeros((n, w), dtype=tl.int64, device="cuda")  # one run of n sources
                out = tl.zeros((4, w), dtype=dtype, device="cuda")
                attempt(f"scatter_reduce {reduce} w={w} {dtype}",
                        lambda out=out, index=index, src=src, reduce=reduce: out.scatter_reduce(0, index, src, reduce))
        # whole rows (index_add, index_put_ accumulating): one run of n rows, the rows' long-run fold
        rows = tl.tensor(rng.standard_normal((n, 5)), device="cuda").to(dtype)
        row_index = tl.zeros(n, dtype=tl.int64, device="cuda")
        base = tl.zeros((4, 5), dtype=dtype, device="cuda")
        attempt(f"index_add rows {dtype}", lambda b=base, i=row_index, r=rows: b.index_add(0, i, r))
        attempt(f"index_put_ accumulate rows {dtype}",
                lambda b=base, i=row_index, r=rows: b.clone().index_put_((i,), r, accumulate=True))
    return failures


def _exec_script(script: str, argv: list[str]):
    import runpy

    os.environ["_CC_SCRIPT"] = script
    sys.path.insert(0, str(ROOT))
    _install_recorder()
    sys.argv = [script, *argv]
    runpy.run_path(script, run_name="__main__")


# ==============================================================================================
# Compiling (runs without TRITON_INTERPRET)
# ==============================================================================================


def _load_records(paths) -> list[dict]:
    records, seen = [], set()
    for path in paths:
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            if rec["key"] not in seen:
                seen.add(rec["key"])
                records.append(rec)
    return records


_MODULES: dict = {}


def _import_module(module: str, file: str | None):
    if module in _MODULES:
        return _MODULES[module]
    mod = None
    if module != "__main__":
        with contextlib.suppress(ImportError):
            mod = importlib.import_module(module)
    if mod is None:  # a script or a test file that is not importable by name: load it from its path
        if not file or not os.path.exists(file):
            raise ImportError(f"cannot import {module} (file {file!r})")
        name = f"_compile_check_{abs(hash(file))}"
        spec = importlib.util.spec_from_file_location(name, file)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    _MODULES[module] = mod
    return mod


def resolve_kernel(name: str, file: str | None = None):
    """The ``triton.JITFunction`` named ``module:qualname`` (unwrapping autotuners)."""
    import triton

    module, qualname = name.split(":")
    obj = _import_module(module, file)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    for _ in range(8):
        if isinstance(obj, triton.runtime.JITFunction):
            return obj
        obj = getattr(obj, "fn", None)
    raise TypeError(f"{name} is not a triton.JITFunction (is TRITON_INTERPRET set in this process?)")


class _Pointer:
    """Stands in for a DeviceArray: what Triton reads from a pointer argument."""

    def __init__(self, dtype: str, mod16: int):
        self.dtype = _np_dtype(dtype)
        self._ptr = (1 << 20) + mod16

    def data_ptr(self) -> int:
        return self._ptr


def _np_dtype(name: str):
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def decode(enc):
    if enc is None:
        return None
    if "ptr" in enc:
        return _Pointer(enc["ptr"], enc["mod16"])
    for k in ("bool", "int", "float", "str"):
        if k in enc:
            return enc[k]
    if "tuple" in enc:
        return tuple(decode(e) for e in enc["tuple"])
    import triton.language as tl

    if "constexpr" in enc:
        return tl.constexpr(decode(enc["constexpr"]))
    if "tl_dtype" in enc:
        return tl.dtype(enc["tl_dtype"])
    if "jit" in enc:
        return resolve_kernel(enc["jit"], enc.get("file"))
    raise ValueError(f"cannot rebuild argument {enc['unsupported']}")


def describe(rec, names=(), constexprs=()) -> str:
    """A compact, version-independent signature: ``(*fp32:16, i32, ...) BLOCK=1024 num_warps=4``.

    ``names``/``constexprs``: the kernel's parameter names and constexpr positions (shown as name=value).
    """

    def one(e):
        if e is None:
            return "None"
        if "ptr" in e:
            return f"*{e['ptr']}" + (":16" if e["mod16"] == 0 else "")
        if "int" in e:
            return _int_class(e["int"])
        if "float" in e:
            return "fp32"
        if "bool" in e:
            return "i1"
        if "tuple" in e:
            return "(" + ", ".join(one(x) for x in e["tuple"]) + ")"
        if "tl_dtype" in e:
            return e["tl_dtype"]
        if "constexpr" in e:
            return one(e["constexpr"])
        if "jit" in e:
            return e["jit"].split(":")[1]
        return next(iter(e.values())).__repr__()

    def val(e):
        if isinstance(e, dict) and len(e) == 1 and next(iter(e)) in ("int", "bool", "float", "str"):
            return str(next(iter(e.values())))
        return one(e)

    args = [f"{names[i]}={val(e)}" if i in constexprs and i < len(names) else one(e)
            for i, e in enumerate(rec["args"])]
    meta = " ".join(f"{k}={val(v)}" for k, v in rec["meta"].items())
    return f"({', '.join(args)}) {meta}".strip()


class _Hopper:
    """The stand-in active driver: what Triton's launch path asks a driver for, no GPU needed."""

    def __init__(self, arch: int):
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("cuda", arch, 32)
        self.arch = arch

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        pass

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return self.target

    def get_device_capability(self, device=None):
        return divmod(self.arch, 10)

    def get_active_torch_device(self):  # some Triton versions ask; never used to compile
        return None


def stand_in_launches(launcher=None, arch: int = 90, stream: int | None = None) -> None:
    """Make real (non-interpreted) Triton launches work without a GPU, for tests and benchmarks of
    the launch path: kernels compile for ``sm_<arch>`` under a stand-in driver, and each compiled
    kernel's launcher object is Triton's own with its C launch function a stand-in that calls
    ``launcher(*arguments)``, with what the launcher object was called with: grid, stream,
    function, metadata, hooks, arguments (a direct launch calls the C function itself:
    ``direct_launch._launch_function``); without a ``launcher``, launches do nothing. The function
    handle is ``("function", <kernel hash>)``. The current device and stream are tensorlab's, asked as
    tensorlab's driver asks them on a GPU (``runtime.triton_driver``), unless ``stream`` names a
    handle to report instead (on device 0). Process-wide and not undone: call it in a process of
    its own."""
    import triton
    from triton.compiler.compiler import CompiledKernel

    from tensorlab_kernels.runtime import streams

    class Driver(_Hopper):
        if stream is None:  # as runtime.triton_driver's driver answers
            get_current_device = staticmethod(streams.current_device)
            get_current_stream = staticmethod(streams.current_stream_handle)
        else:
            def get_current_stream(self, device=None):
                return stream

    c_launch = _stand_in_c_launch(launcher)
    # Triton 3.9's launcher objects call the driver utils' launch, and describe their arguments
    # with the utils' C types (here plain stand-ins: the stand-in launch ignores them)
    Driver.utils = SimpleNamespace(launch=c_launch, build_signature_metadata=tuple)
    import triton.backends.nvidia.driver as nv

    if getattr(nv, "PyKernelArg", 0) is None:  # (set when the real utils module loads)
        nv.PyKernelArg = SimpleNamespace
        nv.ARG_CONSTEXPR, nv.ARG_KERNEL, nv.ARG_TUPLE = "constexpr", "kernel", "tuple"

    def init_handles(self):  # load nothing; the launcher object is Triton's own
        if self.module is None:
            self.module, self.function = object(), ("function", self.hash)
            self._run = _stand_in_launcher_object(self.src, self.metadata, c_launch)

    triton.runtime.driver.set_active(Driver(arch))
    CompiledKernel._init_handles = init_handles


def _stand_in_c_launch(launcher):
    """A stand-in for the C launch function inside Triton's launcher object: it hands ``launcher``
    what the launcher object was called with (grid, stream, function, packed metadata, launch
    metadata, hooks, arguments), from the C function's arguments as Triton 3.6 (arguments
    spread at the end) or 3.9 (one tuple of them at the end) lays them out. Without a
    ``launcher``, a builtin that takes any arguments and does nothing (host-cost measurements
    then count no Python where a GPU runs C)."""
    if launcher is None:
        return "".format

    def c_launch(*c):
        if c[-1].__class__ is tuple:  # 3.9: grid, stream, function, coop, pdl, metadata, hooks, scratch x2,
            return launcher(*c[:5], *c[7:11], *c[-1])  # annotations, signature, (arguments)
        return launcher(*c[:5], *c[9:])  # 3.6: grid, stream, function, coop, pdl, scratch x2, metadata, hooks, *args

    return c_launch


def _stand_in_launcher_object(src, metadata, c_launch):
    """Triton's ``CudaLauncher`` for a compiled kernel, built as Triton builds it but with ``c_launch``
    for the C launch function it would compile and load (Triton 3.6 compiles one per kernel, 3.9
    has one in the driver's utils): its ``__call__`` (scratch memory, argument layout) runs as on
    a GPU."""
    import triton.backends.nvidia.driver as nv

    saved = {name: vars(nv)[name] for name in ("compile_module_from_src", "library_dirs") if name in vars(nv)}
    nv.compile_module_from_src = lambda *a, **k: SimpleNamespace(launch=c_launch)
    nv.library_dirs = list  # (asks ldconfig for libcuda)
    try:
        return nv.CudaLauncher(src, metadata)
    finally:
        for name in ("compile_module_from_src", "library_dirs"):
            if name in saved:
                setattr(nv, name, saved[name])
            else:
                delattr(nv, name)


def stand_in_device_memory() -> None:
    """Give tensorlab's ``cuda`` device host memory while kernels compile and launch as on a GPU
    (with :func:`stand_in_launches`): the runtime's interpreted backend allocates, but is not
    reported as interpreted, so the eager path is the one a GPU takes. For host-cost
    measurements of whole eager ops; nothing reads the memory (the launcher is a stand-in).
    Process-wide, before the first cuda tensor; not undone."""
    import tensorlab_kernels.runtime as rt
    from tensorlab_kernels.runtime.backend_interpret import InterpretedBackend

    if rt.INTERPRET:
        raise RuntimeError("stand_in_device_memory: TRITON_INTERPRET is set in this process")
    backend = InterpretedBackend()
    backend.interpreted = False
    rt._backend, rt._selected = backend, True


def launcher_args(call: tuple) -> tuple:
    """A launcher call's arguments with each pointer as its address (what the C launcher takes from
    it; the direct path passes the address itself), comparable across launches (launchers build
    fresh views per launch), without the launch metadata and hooks (positions 6-8: Triton's path
    passes its hook chains, the direct path None)."""
    return tuple(x.data_ptr() if hasattr(x, "data_ptr") else x for x in call[:6] + call[9:])


class StandInAllocation:
    """A stand-in device allocation at ``ptr`` (DeviceArray reads ``ptr`` and ``device``)."""

    def __init__(self, ptr: int):
        self.ptr, self.device = ptr, 0


def _device_array(arg, base: int):
    """A recorded pointer as a DeviceArray at ``base`` plus the recorded misalignment; others as they are."""
    from tensorlab_kernels.runtime.array import DeviceArray

    if isinstance(arg, _Pointer):
        return DeviceArray(StandInAllocation(base + arg.data_ptr() % 16), 0, (1,), (1,), arg.dtype)
    return arg


def direct_versus_triton(go, calls: list) -> tuple[tuple | None, tuple | None, str | None]:
    """Run ``go`` (one launch through ``launch.launch``) with direct launches off, then on twice;
    ``calls`` is what the :func:`stand_in_launches` launcher appends to. Returns (Triton's launcher
    call, the repeated launch's call, a problem or None): the repeated launch must be direct
    (metadata and hooks None, where Triton's path passes its objects) with the same arguments."""
    from tensorlab_kernels import direct_launch

    calls.clear()
    before = direct_launch.ENABLED
    try:
        direct_launch.ENABLED = False
        go()
        direct_launch.ENABLED = True
        go()  # direct when an earlier launch had the same key, else Triton's path fills the entry
        go()
    finally:
        direct_launch.ENABLED = before
    if len(calls) != 3:
        return None, None, f"{len(calls)} launcher calls for 3 launches"
    triton_call, direct_call = calls[0], calls[2]
    if direct_call[6:9] != (None, None, None):
        return triton_call, direct_call, "the repeated launch went through Triton's path"
    if launcher_args(triton_call) != launcher_args(direct_call):
        return triton_call, direct_call, f"launcher arguments differ\n  triton {triton_call}\n  direct {direct_call}"
    return triton_call, direct_call, None


def check_direct(paths, per_kernel: int = 3, arch: int = 90) -> int:
    """Replay up to ``per_kernel`` records of each kernel through ``launch.launch`` with direct
    launches off, then on (twice), under :func:`stand_in_launches`: the repeated launch must be
    direct and hand the launcher what Triton's path handed it. Exit status 1 on any difference."""
    calls = []
    stand_in_launches(lambda *a: calls.append(a), arch=arch, stream=0x5EED)
    from tensorlab_kernels import direct_launch
    from tensorlab_kernels.launch import launch

    if not direct_launch.ENABLED:
        print("compile_check direct: direct launches are off in this process (Triton version, "
              "TRITON_INTERPRET or TENSORLAB_DIRECT_LAUNCH=0)")
        return 1
    chosen: dict = {}
    for rec in _load_records(paths):
        group = chosen.setdefault(rec["kernel"], [])
        if len(group) < per_kernel:
            group.append(rec)
    replayed, problems = 0, []
    for name, recs in sorted(chosen.items()):
        for rec in recs:
            try:
                jit = resolve_kernel(rec["kernel"], rec.get("file"))
                args = tuple(_device_array(decode(e), 0x10000 * (i + 1)) for i, e in enumerate(rec["args"]))
                meta = {k: decode(v) for k, v in rec["meta"].items()}
                grid = tuple(rec["grid"]) or (1,)
                _, _, problem = direct_versus_triton(lambda: launch(jit, grid, *args, **meta), calls)  # noqa: B023
            except Exception as exc:
                problems.append(f"{name}: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            replayed += 1
            if problem:
                problems.append(f"{name}: {problem}")
    import triton

    print(f"compile_check direct: triton {triton.__version__}: {len(chosen)} kernels, {replayed} records replayed, "
          f"{len(problems)} problems")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def _resources(cubin: bytes) -> dict:
    """REG/STACK/LOCAL/SHARED of the cubin's kernel, from the cuobjdump shipped with Triton."""
    import triton

    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if not tool.exists():
        return {}
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([str(tool), "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():  # one line per function (the kernel and any noinline callees): the max
        if "REG:" in line:
            for item in line.split():
                k, _, v = item.partition(":")
                if k in ("REG", "STACK", "LOCAL") and v.isdigit():
                    res[k.lower()] = max(res.get(k.lower(), 0), int(v))
    return res


def _error_summary(exc: BaseException, max_lines: int = 12) -> tuple[str, str]:
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f"\n(caused by) {type(cause).__name__}: {cause}"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > max_lines:
        lines = lines[:4] + ["..."] + lines[-(max_lines - 5):]
    return "\n".join(lines), text


def global_loads(ptx: str) -> dict:
    """How the compiled kernel reads global memory: ``vector_loads`` (``ld.global.v2``/``v4``: one
    instruction moves 8 or 16 bytes per thread) and ``scalar_loads`` (one element per thread), as
    counted in the PTX. A memory-bound kernel over contiguous, aligned data should have vector loads
    only; scalar ones there mean Triton could not prove the offsets contiguous or aligned."""
    loads = re.findall(r"\bld\.global\S*", ptx)  # e.g. ld.global.L1::evict_last.v4.b32
    vector = sum(1 for op in loads if re.search(r"\.v[248]\.", op))
    return {"vector_loads": vector, "scalar_loads": len(loads) - vector}


def compile_one(rec: dict, arch: int = 90, resources: bool = True) -> dict:
    """Compile one record through Triton's launch path; returns a result dict (never raises)."""
    res = {"kernel": rec["kernel"], "key": rec["key"], "where": rec.get("where", ""), "status": "ok",
           "seconds": 0.0, "cached": False}
    try:
        jit = resolve_kernel(rec["kernel"], rec.get("file"))
        res["signature"] = describe(rec, list(inspect.signature(jit.fn).parameters), _constexpr_positions(jit.fn))
        args = [decode(a) for a in rec["args"]]
        from tensorlab_kernels.compile_options import add_compile_options

        # the compile options a launch adds (records made before they were recorded lack them)
        meta = add_compile_options({k: decode(v) for k, v in rec["meta"].items()})
    except Exception as exc:  # the record cannot be rebuilt: report it, do not hide it
        res["status"] = "error"
        res["error"], res["error_full"] = _error_summary(exc)
        res.setdefault("signature", describe(rec))
        return res
    cache = jit.device_caches[0][0]
    before = len(cache)
    t0 = time.perf_counter()
    try:
        kernel = jit.run(*args, grid=(1,), warmup=True, **meta)
    except Exception as exc:
        res["seconds"] = round(time.perf_counter() - t0, 3)
        res["status"] = "FAIL"
        res["error"], res["error_full"] = _error_summary(exc)
        return res
    res["seconds"] = round(time.perf_counter() - t0, 3)
    res["cached"] = len(cache) == before  # the same Triton specialisation as an earlier record
    md = kernel.metadata
    res.update(num_warps=md.num_warps, num_stages=md.num_stages, shared=md.shared)
    if resources and not res["cached"]:
        res.update(_resources(kernel.asm["cubin"]))
    if not res["cached"]:
        res.update(global_loads(kernel.asm["ptx"]))
    problems = []
    limit = SMEM_LIMIT.get(arch)
    if limit is not None and md.shared > limit:
        problems.append(f"needs {md.shared} bytes of shared memory; sm_{arch} has {limit} per block "
                        f"(Triton raises OutOfResources at the first launch)")
    if res.get("reg", 0) * md.num_warps * 32 > REGS_PER_BLOCK:
        problems.append(f"{res['reg']} registers x {md.num_warps * 32} threads > {REGS_PER_BLOCK} per block")
    if problems:
        res["status"] = "FAIL"
        res["error"] = res["error_full"] = "; ".join(problems)
    return res


def _compile_group(job):
    records, arch, resources = job
    return [compile_one(r, arch, resources) for r in records]


def unlaunched_kernels(recorded: set[str]) -> list[str]:
    """Module-level JITFunctions of tensorlab_kernels that were not launched and are not helpers.

    A JIT function whose name appears in another JIT function's source is taken to be a helper
    (called from kernels); the rest were simply not exercised by the workload.
    """
    import pkgutil

    import triton

    import tensorlab_kernels

    found, sources = {}, []
    names, todo = [], [(tensorlab_kernels.__path__, "tensorlab_kernels.")]
    while todo:  # walk_packages by hand: a package that fails to import must not stop the walk
        path, prefix = todo.pop()
        for info in pkgutil.iter_modules(path, prefix):
            names.append(info.name)
            if info.ispkg:
                with contextlib.suppress(Exception):
                    todo.append((importlib.import_module(info.name).__path__, info.name + "."))
    for name in sorted(names):
        try:
            mod = importlib.import_module(name)
        except Exception as exc:
            found[f"{name} (import failed: {type(exc).__name__}: {str(exc)[:100]})"] = None
            continue
        for attr, obj in vars(mod).items():
            if isinstance(obj, triton.runtime.JITFunction) and obj.fn.__module__ == name:
                found[f"{name}:{obj.fn.__qualname__}"] = attr
                sources.append((attr, obj.src))
    out = []
    for name, attr in found.items():
        if attr is None:
            out.append(name)
            continue
        if name in recorded:
            continue
        pat = re.compile(rf"\b{re.escape(attr)}\b")
        if any(pat.search(src) for a, src in sources if a != attr):
            continue
        out.append(name)
    return sorted(out)


def _coarse_key(rec) -> str:
    """The record without its int-divisibility and pointer-alignment specialisations."""

    def one(e):
        if isinstance(e, dict) and "ptr" in e:
            return e["ptr"]
        if isinstance(e, dict) and "int" in e:
            return _int_class(e["int"]).split(":")[0]
        return e

    return json.dumps([rec["kernel"], [one(e) for e in rec["args"]], rec["meta"]])


_LAUNCH_OPTIONS = {"num_warps", "num_stages", "num_ctas"}


def _declared_configs(rec) -> list[dict]:
    """The launch-configuration space declared next to a kernel (CONTRIBUTING: ``CONFIGS``).

    ``configs_for(dtype)`` of the kernel's module or package when there is one (matmul: the
    space depends on the dtype family), else the module's ``CONFIGS``. Only configurations whose
    keys are all constexprs of this launch apply (``sort``'s ``TILE`` is not a kernel parameter).
    """
    module = rec["kernel"].split(":")[0]
    mods = [_import_module(module, rec.get("file"))]
    if "." in module:
        with contextlib.suppress(Exception):
            mods.append(importlib.import_module(module.rsplit(".", 1)[0]))
    ptrs = [e["ptr"] for e in rec["args"] if isinstance(e, dict) and "ptr" in e]
    space = None
    for mod in mods:
        if callable(getattr(mod, "configs_for", None)) and ptrs:
            with contextlib.suppress(Exception):
                space = mod.configs_for(_np_dtype(ptrs[-1]))
                break
    if space is None:
        space = next((m.CONFIGS for m in mods if isinstance(getattr(m, "CONFIGS", None), list)), [])
    return [c for c in space if isinstance(c, dict) and "family" not in c and (set(c) - _LAUNCH_OPTIONS)
            and set(c) - _LAUNCH_OPTIONS <= set(rec["meta"])]


def config_space_variants(records) -> list[dict]:
    """Each declared configuration applied to one launch per (kernel, dtypes, non-int constexprs).

    The workload's small shapes make the launch heuristics pick only some of the declared
    configurations; the autotuner (and big shapes) launch the others. The variants are
    recorded launches with the configuration's constexprs and launch options substituted.
    """
    bases = {}
    for r in records:
        ptrs = [e["ptr"] for e in r["args"] if isinstance(e, dict) and "ptr" in e]
        flags = {k: v for k, v in r["meta"].items() if isinstance(v, dict) and not {"int", "float"} & set(v)}
        bases.setdefault(json.dumps([r["kernel"], ptrs, flags]), r)
    out = []
    for r in bases.values():
        try:
            configs = _declared_configs(r)
            fn = resolve_kernel(r["kernel"], r.get("file")).fn
        except Exception:
            continue  # reported when the record itself is compiled
        constexprs = _constexpr_positions(fn)
        for c in configs:
            meta = dict(r["meta"], **{k: encode(v) for k, v in c.items()})
            key = json.dumps([r["kernel"], [_arg_class(e, i in constexprs) for i, e in enumerate(r["args"])],
                              dict(sorted(meta.items()))])
            out.append(dict(r, meta=dict(sorted(meta.items())), key=key,
                            where=f"declared config {c} on a launch from {r.get('where') or '?'}"))
    return out


def compile_all(paths, arch=90, jobs=1, only=None, cache_dir=None, resources=True, json_out=None,
                verbose=False, coarse=False, config_space=False) -> int:
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        raise SystemExit("compile_check compile: unset TRITON_INTERPRET (kernels must be real JITFunctions)")
    tmp = None
    if cache_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="tl_compile_check_")
        cache_dir = tmp.name
    os.environ["TRITON_CACHE_DIR"] = str(cache_dir)
    sys.path.insert(0, str(ROOT))
    import ml_dtypes  # noqa: F401  (registers numpy's "bfloat16", as importing tensorlab does)
    import triton

    triton.runtime.driver.set_active(_Hopper(arch))
    records = _load_records(paths)
    if only:
        records = [r for r in records if any(s in r["kernel"] for s in only)]
    if coarse:
        records = list({_coarse_key(r): r for r in reversed(records)}.values())[::-1]
    if config_space:
        seen = {r["key"] for r in records}
        for v in config_space_variants(records):
            if v["key"] not in seen:
                seen.add(v["key"])
                records.append(v)
    groups: dict[str, list] = {}
    for r in records:
        groups.setdefault(r["kernel"], []).append(r)
    jobs_list = [(g, arch, resources) for g in groups.values()]
    print(f"compile_check: triton {triton.__version__}, target sm_{arch}, {len(records)} records of "
          f"{len(groups)} kernels, {jobs} job(s)", flush=True)
    t0 = time.perf_counter()
    results = []
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for part in pool.imap_unordered(_compile_group, jobs_list):
                results.extend(part)
                if verbose:
                    _print_progress(part)
    else:
        for group, _, _ in jobs_list:
            for rec in group:
                results.append(compile_one(rec, arch, resources))
                if verbose:
                    _print_progress(results[-1:])
    wall = time.perf_counter() - t0
    missing = unlaunched_kernels(set(groups)) if not only else []
    _report(results, triton.__version__, arch, wall, missing)
    if json_out:
        payload = {"triton": triton.__version__, "arch": arch, "wall_seconds": round(wall, 1), "results": results,
                   "not_launched": missing}
        Path(json_out).write_text(json.dumps(payload, indent=1))
    if tmp is not None:
        tmp.cleanup()
    return 1 if any(r["status"] != "ok" for r in results) else 0


def _print_progress(part):
    for r in part:
        print(f"  {r['status']:5s} {r['seconds']:7.2f}s {r['kernel']} {r.get('signature', '')[:100]}", flush=True)


def _report(results, version, arch, wall, missing):
    per_kernel: dict[str, dict] = {}
    for r in results:
        k = per_kernel.setdefault(r["kernel"], {"n": 0, "fail": 0, "sec": 0.0, "max": 0.0, "reg": 0, "spill": 0,
                                                "shared": 0})
        k["n"] += 1
        k["fail"] += r["status"] != "ok"
        k["sec"] += r["seconds"]
        k["max"] = max(k["max"], r["seconds"])
        k["reg"] = max(k["reg"], r.get("reg", 0))
        k["spill"] = max(k["spill"], r.get("local", 0), r.get("stack", 0))
        k["shared"] = max(k["shared"], r.get("shared", 0) or 0)
    print(f"\n== triton {version}, sm_{arch}: per kernel (records, failures, compile seconds total/max, "
          f"max registers, max stack+local bytes, max shared bytes)")
    print(f"{'kernel':72s} {'recs':>4s} {'fail':>4s} {'total s':>8s} {'max s':>6s} {'regs':>4s} "
          f"{'spill':>5s} {'shared':>6s}")
    for name, k in sorted(per_kernel.items()):
        print(f"{name:72s} {k['n']:4d} {k['fail']:4d} {k['sec']:8.1f} {k['max']:6.1f} {k['reg']:4d} "
              f"{k['spill']:5d} {k['shared']:6d}")
    failures = [r for r in results if r["status"] != "ok"]
    if failures:
        print(f"\n== {len(failures)} failure(s)")
        for r in failures:
            print(f"\n-- {r['status']} {r['kernel']}  {r.get('signature', '')}")
            if r.get("where"):
                print(f"   launched by: {r['where']}")
            print("   " + r["error"].replace("\n", "\n   "))
    if missing:
        print(f"\n== {len(missing)} JIT kernel(s) in tensorlab_kernels never launched by this workload "
              "(not compiled):")
        for m in missing:
            print(f"   {m}")
    ok = sum(r["status"] == "ok" for r in results)
    print(f"\n== triton {version}: {ok}/{len(results)} records compiled for sm_{arch} "
          f"({len(per_kernel)} kernels, {len(failures)} failures) in {wall:.0f} s")


# ==============================================================================================
# Command line
# ==============================================================================================


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_exec-script"]:
        _exec_script(argv[1], argv[2:])
        return 0
    if argv[:1] == ["_exec-large"]:
        os.environ["_CC_SCRIPT"] = "compile_check.large_workload"
        sys.path.insert(0, str(ROOT))
        _install_recorder()
        for line in large_workload():
            print(f"compile_check large workload: {line}")
        return 0
    ap = argparse.ArgumentParser(prog="compile_check", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("record", help="run a workload in the interpreter and record launches "
                        "(other arguments go to pytest)")
    rp.add_argument("-o", "--output", default="launches.jsonl")
    rp.add_argument("--append", action="store_true", help="add to the file instead of replacing it")
    rp.add_argument("--script", action="append", default=[], help="also run this Python script (repeatable)")
    rp.add_argument("--large", action="append_const", const=LARGE, dest="script",
                    help="also run the built-in long-input workload (sort/unique/scatter paths beyond one block)")
    rp.add_argument("--interpreter-configs", action="store_true",
                    help="record the interpreter's launch configurations instead of the GPU's")
    cp = sub.add_parser("compile", help="compile recorded launches for sm_90 (no TRITON_INTERPRET)")
    cp.add_argument("records", nargs="+")
    for p in (cp,):
        _compile_options(p)
    dp = sub.add_parser("direct", help="replay recorded launches with direct launches off and on under a "
                        "stand-in launcher: both must pass the launcher the same arguments (no TRITON_INTERPRET)")
    dp.add_argument("records", nargs="+")
    dp.add_argument("--per-kernel", type=int, default=3, help="records replayed per kernel (default 3)")
    dp.add_argument("--arch", type=int, default=90)
    up = sub.add_parser("run", help="record (default workload without pytest arguments) then compile")
    up.add_argument("-o", "--output", default=None)
    up.add_argument("--python", action="append", default=[], help="also compile with this interpreter")
    up.add_argument("--interpreter-configs", action="store_true")
    _compile_options(up)
    args, rest = ap.parse_known_args(argv)
    if rest and rest[0] == "--":
        rest = rest[1:]
    if args.cmd == "compile":
        if rest:
            ap.error(f"unrecognised arguments: {rest}")
        return compile_all(args.records, args.arch, args.jobs, args.kernel, args.cache_dir, not args.no_resources,
                           args.json, args.verbose, args.coarse, args.config_space)
    if args.cmd == "direct":
        if rest:
            ap.error(f"unrecognised arguments: {rest}")
        return check_direct(args.records, args.per_kernel, args.arch)
    if args.cmd == "record":
        if not rest and not args.script:
            rest = DEFAULT_WORKLOAD
        st = record(args.output, rest, args.script, not args.interpreter_configs, args.append)
        print(f"compile_check record: {st['records']} distinct launch records in {args.output} ({st})")
        return 0
    # run
    out = args.output or os.path.join(tempfile.gettempdir(), f"tl_launches_{os.getpid()}.jsonl")
    st = record(out, rest or DEFAULT_WORKLOAD, () if rest else (LARGE,), not args.interpreter_configs)
    print(f"compile_check record: {st['records']} distinct launch records in {out} ({st})", flush=True)
    rc = 0
    for py in [sys.executable, *args.python]:
        cmd = [py, str(Path(__file__).resolve()), "compile", out, "--arch", str(args.arch), "--jobs", str(args.jobs)]
        if args.kernel:
            for k in args.kernel:
                cmd += ["--kernel", k]
        for flag in ("no_resources", "coarse", "verbose", "config_space"):
            if getattr(args, flag):
                cmd.append("--" + flag.replace("_", "-"))
        if args.json:
            stem = Path(args.json)
            cmd += ["--json", str(stem.with_name(f"{stem.stem}_{Path(py).parent.parent.name}{stem.suffix}"))]
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        rc |= subprocess.run(cmd, cwd=ROOT, env=env).returncode
    return rc


def _compile_options(p):
    p.add_argument("--arch", type=int, default=90, help="CUDA compute capability x 10 (default 90: Hopper)")
    p.add_argument("--jobs", type=int, default=1, help="compile in this many processes")
    p.add_argument("--kernel", action="append", default=[], help="only kernels whose name contains this")
    p.add_argument("--cache-dir", default=None, help="Triton cache to use (default: a fresh temporary one)")
    p.add_argument("--no-resources", action="store_true", help="skip the cuobjdump register/spill report")
    p.add_argument("--json", default=None, help="write every result to this JSON file")
    p.add_argument("-v", "--verbose", action="store_true", help="print each record as it compiles")
    p.add_argument("--coarse", action="store_true",
                   help="one record per kernel, dtypes and constexprs (skip int-divisibility/alignment variants)")
    p.add_argument("--config-space", action="store_true",
                   help="also compile every declared configuration (CONFIGS / configs_for) of each launched kernel")


if __name__ == "__main__":
    sys.exit(main())
