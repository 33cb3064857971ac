"""Direct launches (tensorlab_kernels.direct_launch) call the launcher Triton would, with Triton's arguments.

The direct path only runs outside Triton's interpreter, so the check runs this file as a script
in a process without ``TRITON_INTERPRET``: kernels are compiled for sm_90 by the real compiler
(no GPU needed) under a stand-in driver, and each compiled kernel's C launcher is replaced by a
recorder. For every launch variant — pointer alignments, ints equal to 1, divisible by 16, 64-bit
and unsigned 64-bit, dtypes, constexprs — the script checks that

1. a repeated launch does not go through Triton's path (it is direct);
2. both hand the launcher the same arguments (grid, stream, function, packed metadata, every
   kernel argument in signature order); where Triton passes its empty launch-hook chains and a
   launch-metadata object, the direct path passes None;
3. after all variants are known, every launch picks the compiled kernel Triton itself picks
   (``JITFunction.run(..., warmup=True)``) for those arguments.

It does so for a small kernel written here and for tensorlab's elementwise binary kernel driven
by its own launcher. Run with another Triton (e.g. 3.6, the GPU machines' version) by hand:
``/other/venv/bin/python tests/test_direct_launch.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from compile_check import StandInAllocation, direct_versus_triton, stand_in_launches  # noqa: E402

pytestmark = pytest.mark.slow  # compiles a dozen small kernels for sm_90: ~20-40 s on one core


@triton.jit
def _probe_kernel(x_ptr, y_ptr, out_ptr, n, k, scale, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    """out = x * scale + y + k + SHIFT over n elements: a little of every argument kind."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * scale + y + k + SHIFT).to(out_ptr.dtype.element_ty), mask=mask)


def test_direct_launch_matches_triton():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}  # conftest sets it here
    env.pop("TENSORLAB_DIRECT_LAUNCH", None)
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    assert "direct launch checks passed" in proc.stdout, proc.stdout


def test_direct_launch_is_off_in_the_interpreter():
    from tensorlab_kernels import direct_launch

    if os.environ.get("TRITON_INTERPRET") == "1":
        assert not direct_launch.ENABLED  # interpreted kernels have no compiled launcher to call
    elif os.environ.get("TENSORLAB_DIRECT_LAUNCH", "1") not in ("", "0"):
        assert direct_launch.ENABLED == direct_launch._version_checked()


@pytest.mark.gpu
def test_gpu_direct_launches_compute_what_triton_launches_compute():
    import numpy as np

    import tensorlab as tl
    from tensorlab_kernels import direct_launch
    from tensorlab_kernels.elementwise.binary import _binary_kernel

    assert direct_launch.ENABLED
    x, y = tl.randn(1001, device="cuda"), tl.randn(1001, device="cuda")
    hx, hy = x.cpu().numpy(), y.cpu().numpy()
    for _ in range(3):  # the first launch of each specialisation fills the table, later ones are direct
        np.testing.assert_array_equal((x + y).cpu().numpy(), hx + hy)
        np.testing.assert_array_equal((x[1:] * y[:-1]).cpu().numpy(), hx[1:] * hy[:-1])  # unaligned pointers
        np.testing.assert_array_equal((x * 2.5).cpu().numpy(), hx * np.float32(2.5))
    kernel, table = direct_launch._tables[id(_binary_kernel)]
    assert kernel is _binary_kernel and len(table) >= 3  # aligned, unaligned, scalar operand
    # they call the C launch function inside Triton's launcher object, not the object's __call__
    assert all(entry[0] is entry[4].run.launch for entry in table.values()), [entry[:2] for entry in table.values()]


def test_key_separates_what_triton_specialises_on():
    from tensorlab_kernels.direct_launch import _key
    from tensorlab_kernels.runtime.array import DeviceArray

    def key(*args):
        return _key(0, args, {"BLOCK": 64})

    # ints: == 1 (a constant), i32 / i64 / u64, divisible by 16 or not
    classes = [1, 17, 16, -16, 2**31 + 1, 2**31 + 16, 2**63 + 1, 2**63 + 16]
    assert len({key(v) for v in classes}) == len(classes) - 1  # 16 and -16: one class (i32, divisible)
    assert key(17) == key(3) and key(16) == key(4096) and key(2**40) == key(2**35)
    # pointers: dtype and 16-byte alignment; floats by type; bools and None by value
    a16 = DeviceArray(StandInAllocation(0x1000), 0, (4,), (1,), "float32")
    assert key(a16) == key(DeviceArray(StandInAllocation(0x2000), 4, (4,), (1,), "float32"))  # +16 bytes: aligned
    assert key(a16) != key(DeviceArray(StandInAllocation(0x1000), 1, (4,), (1,), "float32"))  # +4 bytes
    assert key(a16) != key(DeviceArray(StandInAllocation(0x1000), 0, (4,), (1,), "float16"))
    assert key(0.5) == key(-3.0) != key(1)
    assert len({key(True), key(False), key(None), key(1), key(0)}) == 5
    assert _key(0, (1,), {"BLOCK": 64}) != _key(0, (1,), {"BLOCK": 128}) != _key(1, (1,), {"BLOCK": 128})
    flags = [_key(0, (1,), {"FLAG": v}) for v in (True, 1, 1.0, False, 0)]
    assert len(set(flags)) == 5  # equal as Python values, different constexprs for Triton
    import numpy as np

    with pytest.raises(TypeError):  # a numpy scalar is not keyed: Triton's path takes it
        key(np.int64(3))


def test_int_class_is_the_keys_classification():
    from tensorlab_kernels.direct_launch import _classes, int_class

    values = [0, 1, 2, 15, 16, 17, -1, -16, 2**31 - 1, 2**31, 2**31 + 16, -(2**31), -(2**31) - 1, 2**63 - 1,
              2**63, 2**63 + 16, 2**64 - 1]
    assert [int_class(v) for v in values] == list(_classes(tuple(values)))
    # the elementwise launcher writes int_class(n) inline for 1 <= n <= 2**31 - 1
    assert all(int_class(n) == (1 if n == 1 else 32 if n & 15 else 132) for n in (1, 2, 16, 17, 1024, 2**31 - 1))


def test_remembered_value_classes_keep_types_apart():
    from tensorlab_kernels import direct_launch
    from tensorlab_kernels.direct_launch import _classes, _key
    from tensorlab_kernels.runtime.array import DeviceArray

    p = DeviceArray(StandInAllocation(0x1000), 0, (4,), (1,), "float32")
    values = [1, True, 1.0, 0, False, 0.0, -0.0, 16, 2**40 + 16]
    first = [_key(0, (p, v, 7), {}) for v in values]  # fills the memo
    again = [_key(0, (p, v, 7), {}) for v in values]  # reads it
    assert first == again
    # 1 == True == 1.0 and 0 == False == 0.0 as Python values (and dict keys), but not for Triton
    assert len(set(first[:3])) == 3 and len(set(first[3:6])) == 3
    for v, k in zip(values, again):  # what the memo returns is what classifying returns
        assert k[-2:] == _classes((v, 7)), v
    # a pointer after other arguments is keyed too, and such tuples are not remembered (the memo
    # would keep the array, and its device memory, alive)
    q = DeviceArray(StandInAllocation(0x2004), 0, (4,), (1,), "float16")
    assert _key(0, (5, q), {}) != _key(0, (5, p), {})
    assert not any(isinstance(x, DeviceArray) for rest in direct_launch._REST_CLASSES for x in rest)
    # pointer keys: negative ints, never equal to an int's value class
    assert direct_launch.array_key(p) < 0 and direct_launch.array_key(q) < 0
    assert direct_launch.array_key(p) != direct_launch.array_key(q)


def _launcher_object(monkeypatch, c_launch, **attributes):
    """Triton's CudaLauncher as its __init__ leaves it for a kernel without scratch memory (without
    compiling a C launcher: ``c_launch`` stands in for the C function), ``attributes`` changed."""
    from types import SimpleNamespace

    nv = pytest.importorskip("triton.backends.nvidia.driver")
    monkeypatch.setattr(triton.runtime.driver, "_active", SimpleNamespace())  # (3.9's __call__ reads it)
    launcher = object.__new__(nv.CudaLauncher)
    vars(launcher).update(num_ctas=1, launch=c_launch, global_scratch_size=0, global_scratch_align=1,
                          profile_scratch_size=0, profile_scratch_align=1, launch_cooperative_grid=False,
                          launch_pdl=False, gsan_enabled=False, arg_annotations=["annotations"],
                          kernel_signature="signature")
    vars(launcher).update(attributes)
    return launcher


def test_launch_function_is_the_c_function_with_the_head_the_launcher_object_adds(monkeypatch):
    from tensorlab_kernels.direct_launch import _launch_function

    seen = []
    launcher = _launcher_object(monkeypatch, lambda *a: seen.append(a))
    kernel_args, function, packed = (0x7000, 5, 2.5, 128), ("function", 1), (4, 1, 0)
    call, head, packs = _launch_function(launcher, function, packed, kernel_args)
    assert call is launcher.launch and not seen  # learned from a copy: nothing launched, the object unchanged
    # what the direct path then calls is what the object's __call__ calls
    launcher(2, 3, 4, 77, function, packed, None, None, None, *kernel_args)
    call(2, 3, 4, 77, *head, kernel_args) if packs else call(2, 3, 4, 77, *head, *kernel_args)
    assert len(seen) == 2 and seen[0] == seen[1], seen
    assert seen[1][:5] == (2, 3, 4, 77, function)


@pytest.mark.parametrize("change", ["global scratch", "profile scratch", "gsan", "other class",
                                    "per-launch head", "rearranged arguments", "raises"])
def test_launch_function_keeps_the_launcher_object_when_unsure(monkeypatch, change):
    from tensorlab_kernels.direct_launch import _launch_function

    nv = pytest.importorskip("triton.backends.nvidia.driver")
    attributes = {"global scratch": {"global_scratch_size": 64}, "profile scratch": {"profile_scratch_size": 8},
                  "gsan": {"gsan_enabled": True}}.get(change, {})
    launcher = _launcher_object(monkeypatch, lambda *a: None, **attributes)
    if change == "other class":
        launcher = type("Launcher", (), {"__call__": lambda self, *a: None})()
    elif change == "per-launch head":  # a launcher whose C function also gets the grid's size
        monkeypatch.setattr(nv.CudaLauncher, "__call__",
                            lambda self, gx, gy, gz, stream, function, *rest: self.launch(
                                gx, gy, gz, stream, function, gx * gy * gz, *rest))
    elif change == "rearranged arguments":  # kernel arguments in another order
        monkeypatch.setattr(nv.CudaLauncher, "__call__",
                            lambda self, gx, gy, gz, stream, function, meta, lm, eh, xh, *args: self.launch(
                                gx, gy, gz, stream, function, meta, *reversed(args)))
    elif change == "raises":
        def raising(self, *a):
            raise RuntimeError("a launcher unlike the ones read")

        monkeypatch.setattr(nv.CudaLauncher, "__call__", raising)
    function, packed = ("function", 1), (4, 1, 0)
    assert _launch_function(launcher, function, packed, (0x7000, 5, 2.5)) == (
        launcher, (function, packed, None, None, None), False)


# ----------------------------------------------------------------------------------------------
# the check (runs as a script, without the interpreter)
# ----------------------------------------------------------------------------------------------


def _main() -> None:
    assert os.environ.get("TRITON_INTERPRET", "0") in ("", "0"), "run without TRITON_INTERPRET"
    import tempfile

    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tl-direct-launch-"))
    from tensorlab_kernels import direct_launch
    from tensorlab_kernels.compile_options import add_compile_options
    from tensorlab_kernels.elementwise import binary as kb
    from tensorlab_kernels.launch import launch
    from tensorlab_kernels.runtime.array import DeviceArray

    assert direct_launch.ENABLED, "direct launches are off in this process"

    calls = []  # every launcher call: the argument tuple

    def record(*a):  # the C launcher's part that matters here: call the hooks, (not) launch
        calls.append(a)
        for hook in a[7:9]:
            if hook is not None:
                hook(a[6])

    stand_in_launches(record, stream=0x5EED)  # a stream handle the launcher must receive

    triton_runs = []  # JITFunction.run calls that launched (Triton's path)
    real_run = triton.runtime.JITFunction.run

    def counting_run(self, *args, grid, warmup, **kwargs):
        if not warmup:
            triton_runs.append(self)
        return real_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    triton.runtime.JITFunction.run = counting_run

    # calls of the launcher object's Python __call__: a direct launch calls the C function inside it
    import triton.backends.nvidia.driver as nv

    object_calls = []
    object_call = nv.CudaLauncher.__call__

    def counting_object_call(self, *a):
        object_calls.append(self)
        return object_call(self, *a)

    nv.CudaLauncher.__call__ = counting_object_call

    def arr(ptr, dtype="float32", shape=(1000,), strides=(1,)):
        return DeviceArray(StandInAllocation(ptr), 0, shape, strides, dtype)

    base = dict(x=arr(0x10000), y=arr(0x20000), out=arr(0x30000), n=1000, k=16, scale=2.0, BLOCK=128, SHIFT=0)
    variants = {
        "base": {},
        "x misaligned": dict(x=arr(0x10004)),
        "out misaligned, fp16": dict(out=arr(0x30002, "float16")),
        "n divisible by 16": dict(n=1024),
        "n == 1": dict(n=1),
        "k == 1": dict(k=1),
        "k odd": dict(k=17),
        "k 64-bit": dict(k=2**40 + 3),
        "k 64-bit, divisible by 16": dict(k=2**40 + 16),
        "k unsigned 64-bit": dict(k=2**63 + 16),
        "k negative": dict(k=-16),
        "y int32": dict(y=arr(0x20000, "int32")),
        "BLOCK 256": dict(BLOCK=256),
        "SHIFT 1": dict(SHIFT=1),
    }

    def probe(v):
        p = {**base, **v}
        return (p["x"], p["y"], p["out"], p["n"], p["k"], p["scale"]), {"BLOCK": p["BLOCK"], "SHIFT": p["SHIFT"],
                                                                         "num_warps": 4}

    def check_pair(name, go):
        """``go`` launches through Triton's path (direct launches off), then twice with them on:
        the last launch must be direct and hand the launcher what Triton's path handed it."""
        triton_call, direct_call, problem = direct_versus_triton(go, calls)
        assert problem is None, f"{name}: {problem}"  # includes: the third launch was direct
        # Triton passes its (empty) hook chains where the direct path passes None
        assert all(getattr(h, "calls", None) == [] for h in triton_call[7:9]), (name, triton_call[7:9])
        assert direct_call[3] == 0x5EED, name  # the current stream reaches the launcher

    for name, v in variants.items():
        args, meta = probe(v)
        check_pair(name, lambda args=args, meta=meta: launch(_probe_kernel, (4,), *args, **meta))

    # every variant known: each launch is direct and runs the kernel Triton picks for it
    functions = set()
    for name, v in variants.items():
        args, meta = probe(v)
        calls.clear()
        triton_runs.clear()
        object_calls.clear()
        launch(_probe_kernel, (4,), *args, **meta)
        assert not triton_runs, f"{name}: not direct"
        assert not object_calls, f"{name}: the direct launch went through the launcher object's __call__"
        # what Triton compiles for the launch tensorlab makes (launch adds its compile options)
        chosen = real_run(_probe_kernel, *args, grid=(4,), warmup=True, **add_compile_options(dict(meta)))
        assert calls[0][4] == chosen.function, f"{name}: direct path ran another kernel than Triton picks"
        functions.add(calls[0][4])
    # the variants really are different specialisations (the key is not merely ignoring them)
    assert len(functions) >= len(variants) - 2, len(functions)

    # tensorlab's own launcher: the binary elementwise kernel, contiguous and broadcast
    a, b = arr(0x40000, shape=(8, 33), strides=(33, 1)), arr(0x50000, shape=(8, 33), strides=(0, 1))
    out = arr(0x60000, shape=(8, 33), strides=(33, 1))
    check_pair("binary add, contiguous", lambda: kb.binary(out, a, a, op="add", ct="float32"))
    check_pair("binary mul, broadcast", lambda: kb.binary(out, a, b, op="mul", ct="float32"))
    check_pair("binary add, scalar", lambda: kb.binary(out, a, 3.0, op="add", ct="float32"))
    # Keyed launches (the elementwise fast path names its own key): with CHECK_KEYS every repeated
    # launch also computes the full key and fails if one caller key ever stood for two; and each
    # variant, once known, is direct and runs the kernel Triton picks for it.
    from tensorlab_kernels.elementwise import ternary as kt
    from tensorlab_kernels.elementwise import unary as ku

    direct_launch.CHECK_KEYS = True
    v32, v16 = arr(0x70000, shape=(64,)), arr(0x80000, "float16", shape=(64,))
    vi = arr(0x90000, "int64", shape=(64,))
    odd = arr(0xA0004, shape=(64,))  # not 16-byte aligned
    o32, o16, oi = arr(0xB0000, shape=(64,)), arr(0xC0000, "float16", shape=(64,)), arr(0xD0000, "int64", shape=(64,))
    n1, n17 = arr(0xE0000, shape=(1,)), arr(0xF0000, shape=(17,))
    keyed = {
        "add f32": lambda: kb.binary(o32, v32, v32, op="add", ct="float32"),
        "add f32, misaligned operand": lambda: kb.binary(o32, odd, v32, op="add", ct="float32"),
        "add f32, misaligned output": lambda: kb.binary(odd, v32, v32, op="add", ct="float32"),
        "add f16": lambda: kb.binary(o16, v16, v16, op="add", ct="float32"),
        "add f32, alpha 2": lambda: kb.binary(o32, v32, v32, op="add", ct="float32", alpha=2),
        "mul f32": lambda: kb.binary(o32, v32, v32, op="mul", ct="float32"),
        "mul by scalar 0.5": lambda: kb.binary(o32, v32, 0.5, op="mul", ct="float32"),
        "mul by scalar 0.0": lambda: kb.binary(o32, v32, 0.0, op="mul", ct="float32"),
        "scalar first": lambda: kb.binary(o32, 0.5, v32, op="sub", ct="float32"),
        "add int64": lambda: kb.binary(oi, vi, vi, op="add", ct="int64"),
        "add int64 scalar 1": lambda: kb.binary(oi, vi, 1, op="add", ct="int64"),
        "add int64 scalar 17": lambda: kb.binary(oi, vi, 17, op="add", ct="int64"),
        "add int64 scalar 32": lambda: kb.binary(oi, vi, 32, op="add", ct="int64"),
        "add int64 scalar 2**40": lambda: kb.binary(oi, vi, 2**40, op="add", ct="int64"),
        "n == 1": lambda: kb.binary(n1, n1, n1, op="add", ct="float32"),
        "n == 17": lambda: kb.binary(n17, n17, n17, op="add", ct="float32"),
        "unary exp": lambda: ku.unary(o32, v32, op="exp", ct="float32"),
        "unary exp f16": lambda: ku.unary(o16, v16, op="exp", ct="float32"),
        "ternary where, scalar": lambda: kt.ternary(o32, v32, v32, 2.0, op="where", ct="float32"),
    }
    for name, go in keyed.items():
        check_pair(name, go)
    for name, go in keyed.items():
        calls.clear()
        triton_runs.clear()
        go()  # with CHECK_KEYS a repeated launch takes the full-key path too; it must still be direct
        assert not triton_runs and calls[0][6:9] == (None, None, None), f"{name}: not direct"
    direct_launch.CHECK_KEYS = False
    for name, go in keyed.items():  # the keyed hit itself
        calls.clear()
        triton_runs.clear()
        object_calls.clear()
        go()
        assert not triton_runs and len(calls) == 1 and calls[0][6:9] == (None, None, None), f"{name}: not direct"
        assert not object_calls, f"{name}: the keyed launch went through the launcher object's __call__"
    keyed_table = direct_launch._keyed[id(kb._binary_kernel)]
    assert len(keyed_table) >= 13, len(keyed_table)  # the binary variants did not collapse into one key
    # a registered launch hook (a profiler) sends every launch through Triton's path
    seen = []
    hook = seen.append
    triton.knobs.runtime.launch_enter_hook.add(hook)
    try:
        calls.clear()
        triton_runs.clear()
        kb.binary(out, a, a, op="add", ct="float32")
        assert len(triton_runs) == 1 and len(seen) == 1, (len(triton_runs), len(seen))
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook)
    print("direct launch checks passed:", len(variants), "variants,", len(functions), "kernels,",
          "triton", triton.__version__)


if __name__ == "__main__":
    _main()
