"""Host cost of a kernel launch: Triton's launch path against tensorlab's direct launches.

    python bench/launch.py [--device cpu|cuda] [--quick]

Every eager op ends in a Triton launch, and for a small op the host time is the op's time.
``tensorlab_kernels.direct_launch`` skips Triton's Python launch path for specialisations seen
before; this script shows what that saves, switching it per measurement
(``direct_launch.ENABLED``):

- cuda (a real GPU): eager ``a + b`` on 16 float32 elements (the host overhead of one small
  elementwise op), a bare launch of the binary kernel through ``launch.launch`` and one training
  step of the README's MLP, host microseconds per call without synchronising, with direct
  launches on and off (and ``a + b`` with the dispatcher's replayed launches off,
  ``tensorlab._replay``; direct launches off turns them off too).
- cpu (no GPU): the same bare launch of the real binary kernel compiled for sm_90 under a stand-in
  driver, with the C launch function inside Triton's launcher object a no-op
  (``tools/compile_check.py: stand_in_launches``): the host cost of Triton's Python launch path
  and of the direct path (calling that C function, or the launcher object around it), everything
  but the driver call; and the launcher's own preparation
  (``launch.launch_keyed`` a no-op). Then whole eager ops (``a + b``, ``a * 2``, ``relu(a)`` on 16
  float32 elements, a broadcasting ``x + bias``, a strided ``x.t() * 2``, ``x.sum(0)``, ``x @ w``, and
  one training step of the README's MLP) the way a GPU runs them, with host memory
  standing in for device memory (``stand_in_device_memory``): everything but the driver's launch
  and Triton's C launcher.
  Measured in a child process without ``TRITON_INTERPRET``.

Each row also gives the Python bytecodes one call executes (``harness.bytecodes_per_call``):
unlike microseconds on a shared machine, that count does not move with the load, so it shows
what a change to the host path did.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def interleaved_us(cases: dict, iters: int, rounds: int = 15) -> dict:
    """Best-of-rounds mean host microseconds per call of each case ``(direct launches on?, fn)`` or
    ``(direct launches on?, fn, context)`` (``context()``: a context manager around its timing).

    The cases take turns round by round, so a busy machine's slow spells hit all of them alike,
    and the minimum over rounds filters the rest of the noise."""
    from tensorlab_kernels import direct_launch

    before = direct_launch.ENABLED
    best = dict.fromkeys(cases, float("inf"))
    try:
        for r in range(rounds + 1):  # round 0 warms up (first launches fill the direct-launch table)
            for name, (enabled, fn, *context) in cases.items():
                direct_launch.ENABLED = enabled
                with context[0]() if context else contextlib.nullcontext():
                    t0 = time.perf_counter()
                    for _ in range(iters if r else 20):
                        fn()
                    seconds = time.perf_counter() - t0
                if r:
                    best[name] = min(best[name], seconds / iters)
    finally:
        direct_launch.ENABLED = before
    return {name: t * 1e6 for name, t in best.items()}


def _rows(times: dict, cases: dict) -> list[dict]:
    from tensorlab_kernels import direct_launch

    rows = []
    before = direct_launch.ENABLED
    try:
        for name, us in times.items():
            enabled, fn, *context = cases[name]
            direct_launch.ENABLED = enabled
            with context[0]() if context else contextlib.nullcontext():
                rows.append({"what": name, "us_per_call": us, "bytecodes": harness.bytecodes_per_call(fn)})
    finally:
        direct_launch.ENABLED = before
    return rows


def gpu_rows(iters: int) -> list[dict]:
    import tensorlab as tl
    from tensorlab._dispatch import _impl_arg
    from tensorlab_kernels.elementwise import binary as kb

    a, b = tl.ones(16, device="cuda"), tl.ones(16, device="cuda")
    out = tl.empty(16, device="cuda")
    (a + b).cpu()  # compiles and fills the direct-launch entry
    da, dout = _impl_arg(a, a.device), _impl_arg(out, out.device)  # the DeviceArrays the launcher gets

    def launch_only():
        kb.binary(dout, da, da, op="add", ct="float32")

    step = _mlp_step(tl)
    cases, steps = {}, {}
    cases["eager a + b (16 elements), direct launch, replays off"] = (True, lambda: a + b, _replays_off)
    for enabled in (False, True):
        path = "direct launch" if enabled else "Triton's launch path"
        cases[f"eager a + b (16 elements), {path}"] = (enabled, lambda: a + b)
        cases[f"binary kernel launch only, {path}"] = (enabled, launch_only)
        steps[f"MLP training step (784-256-10, batch 64, Adam), {path}"] = (enabled, step)
    rows = _rows(interleaved_us(cases, iters), cases) + _rows(interleaved_us(steps, max(iters // 20, 10)), steps)
    tl.cuda.synchronize()
    return rows


def stubbed_rows(iters: int) -> list[dict]:
    """The cpu measurement (a child process without TRITON_INTERPRET)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from compile_check import StandInAllocation, stand_in_launches

    stand_in_launches()  # launches do nothing
    from tensorlab_kernels.elementwise import binary as kb
    from tensorlab_kernels.elementwise import common
    from tensorlab_kernels.runtime.array import DeviceArray

    out, x = (DeviceArray(StandInAllocation(0x7F0000000000), 0, (16,), (1,), "float32") for _ in range(2))

    def add():
        kb.binary(out, x, x, op="add", ct="float32")

    @contextlib.contextmanager
    def no_launch():  # the launcher's own work only: launch.launch(_keyed) replaced by no-ops
        real = common.launch, common.launch_keyed
        common.launch = common.launch_keyed = lambda *args, **meta: None
        try:
            yield
        finally:
            common.launch, common.launch_keyed = real

    cases = {
        "binary kernel launch, Triton's launch path (C launcher a no-op)": (False, add),
        "binary kernel launch, direct launch (C launcher a no-op)": (True, add),
        "binary kernel launch, direct launch through Triton's launcher object (C launcher a no-op)": (
            True, add, _through_launcher_object),
        "binary launcher's preparation only (launch.launch_keyed a no-op)": (True, add, no_launch),
    }
    rows = _rows(interleaved_us(cases, iters), cases)
    return rows + eager_rows(iters)


def eager_rows(iters: int) -> list[dict]:
    """Whole eager ops as a GPU runs them, but for the driver (the cpu child, after stubbed_rows)."""
    from compile_check import stand_in_device_memory

    stand_in_device_memory()
    import tensorlab as tl

    a, b = tl.ones(16, device="cuda"), tl.ones(16, device="cuda")
    x, bias, w = tl.ones(64, 32, device="cuda"), tl.ones(32, device="cuda"), tl.ones(32, 32, device="cuda")
    step = _mlp_step(tl)
    cases, steps = {}, {}
    cases["eager a + b (16 float32), direct launch, replays off, stand-in device"] = (True, lambda: a + b,
                                                                                    _replays_off)
    for enabled in (True, False):
        path = "direct launch" if enabled else "Triton's launch path"
        cases[f"eager a + b (16 float32), {path}, stand-in device"] = (enabled, lambda: a + b)
        cases[f"eager a * 2 (16 float32), {path}, stand-in device"] = (enabled, lambda: a * 2)
        cases[f"eager relu(a) (16 float32), {path}, stand-in device"] = (enabled, lambda: tl.relu(a))
        cases[f"eager x + bias (64x32 + 32, broadcast), {path}, stand-in device"] = (enabled, lambda: x + bias)
        cases[f"eager x.t() * 2 (32x64, strided), {path}, stand-in device"] = (enabled, lambda: x.t() * 2)
        cases[f"eager x.sum(0) (64x32), {path}, stand-in device"] = (enabled, lambda: x.sum(0))
        cases[f"eager x @ w (64x32 @ 32x32), {path}, stand-in device"] = (enabled, lambda: x @ w)
        steps[f"MLP training step (784-256-10, batch 64, Adam), {path}, stand-in device"] = (enabled, step)
    return _rows(interleaved_us(cases, iters), cases) + _rows(interleaved_us(steps, max(iters // 20, 10)), steps)


_OBJECT_TABLES = ({}, {})  # direct_launch's tables for _through_launcher_object's launches


@contextlib.contextmanager
def _through_launcher_object():
    """Direct launches that call Triton's launcher object, its Python ``__call__`` included, rather
    than the C launch function inside it (``direct_launch._launch_function``): what that saves."""
    from tensorlab_kernels import direct_launch

    saved = direct_launch._tables, direct_launch._keyed, direct_launch._launch_function
    direct_launch._tables, direct_launch._keyed = _OBJECT_TABLES
    direct_launch._launch_function = lambda run, function, packed, kernel_args: (
        run, (function, packed, None, None, None), False)
    try:
        yield
    finally:
        direct_launch._tables, direct_launch._keyed, direct_launch._launch_function = saved


@contextlib.contextmanager
def _replays_off():
    """The dispatcher's replayed launches (``tensorlab._replay``) off: the full eager path."""
    from tensorlab import _replay

    before, _replay.ENABLED = _replay.ENABLED, False
    try:
        yield
    finally:
        _replay.ENABLED = before


def _mlp_step(tl):
    """One training step of the README's MLP (forward, cross-entropy, backward, Adam, zero_grad):
    the host cost of the framework around ~20 kernel launches."""
    from tensorlab import nn

    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
    opt = tl.optim.Adam(model.parameters(), lr=1e-3)
    x, y = tl.ones(64, 784, device="cuda"), tl.zeros(64, dtype=tl.int64, device="cuda")

    def step():
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()

    return step


def main():
    if "--child" in sys.argv:
        iters = int(sys.argv[sys.argv.index("--child") + 1])
        print(json.dumps(stubbed_rows(iters)))
        return
    run = harness.Run(__doc__)
    iters = 200 if run.args.quick else 2000
    import triton

    meta = run.meta(iters=iters, triton=triton.__version__)
    if run.dev.startswith("cuda"):
        rows = gpu_rows(iters)
    else:
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        proc = subprocess.run([sys.executable, __file__, "--child", str(iters)], env=env, capture_output=True,
                              text=True, timeout=900)
        if proc.returncode != 0:
            raise SystemExit(f"launch benchmark child failed:\n{proc.stderr[-4000:]}")
        rows = json.loads(proc.stdout.strip().splitlines()[-1])
        meta["how"] = ("no GPU: the binary kernel compiled for sm_90 under a stand-in driver, the C launch function in "
                       "Triton's launcher object a no-op; host time of the launch path only")
    run.finish("launch", rows, meta)


if __name__ == "__main__":
    main()
