"""Every benchmark script runs end to end (cpu, quick sizes, no PyTorch) and writes its results.

The figures are not checked (they are measurements); what is checked is that each script of
``bench/run_all.py`` exits cleanly and writes a JSON file naming the device with at least one row.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
# loaded by path: putting bench/ on sys.path would let its nn.py, optim.py, ... shadow other modules
_spec = importlib.util.spec_from_file_location("bench_run_all", ROOT / "bench" / "run_all.py")
run_all = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_all)
SCRIPTS = run_all.SCRIPTS
_spec = importlib.util.spec_from_file_location("bench_harness", ROOT / "bench" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

pytestmark = pytest.mark.slow  # about a minute on one core: runs by default


def test_every_benchmark_script_runs_and_writes_results(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run_all.py"), "--device", "cpu", "--quick",
                           "--no-torch", "--out", str(tmp_path), "--timeout", "600"],
                          capture_output=True, text=True, timeout=1800, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    for name in SCRIPTS:
        files = list(tmp_path.glob(f"{name}-cpu*.json"))
        assert len(files) == 1, (name, sorted(p.name for p in tmp_path.iterdir()))
        doc = json.loads(files[0].read_text())
        assert doc["device"].startswith("cpu"), doc["device"]
        assert doc["rows"], name


def test_unknown_script_is_refused():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run_all.py"), "--only", "nonesuch"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown benchmark(s) ['nonesuch']" in proc.stderr


def test_config_sweep_tool_runs_in_the_interpreter(tmp_path):
    """tools/sweep_configs.py (how the full-reduction, GEMM, softmax and var heuristics were measured) runs
    end to end: every candidate of each sweep writes a row; an unknown sweep is refused."""
    env = dict(os.environ, TRITON_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = tmp_path / "sweep.jsonl"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "sweep_configs.py"), "--quick", "--rounds", "1",
                           "--allow-interpreted", "--out", str(out)], capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    sums = [r for r in rows if r["section"] == "sum"]
    gemms = [r for r in rows if r["section"] == "matmul"]
    softmaxes = [r for r in rows if r["section"] == "softmax"]
    variances = [r for r in rows if r["section"] == "var"]
    sweep = _load_module(ROOT / "tools" / "sweep_configs.py")
    assert len(sums) == 2 * len(sweep.SUM_CANDIDATES) and len(gemms) == 2 * len(sweep.MATMUL_CANDIDATES)
    assert len(softmaxes) == 2 * len(sweep.SOFTMAX_CANDIDATES) and len(variances) == 2 * len(sweep.VAR_CANDIDATES)
    assert all(r["ms"] > 0 for r in sums + gemms + softmaxes + variances)
    refused = subprocess.run([sys.executable, str(ROOT / "tools" / "sweep_configs.py"), "nonesuch"],
                             capture_output=True, text=True, timeout=120, env=env)
    assert refused.returncode == 2 and "unknown sweep(s) ['nonesuch']" in refused.stderr


def test_config_sweep_softmax_candidates_compute_softmax(monkeypatch):
    """Each forced softmax configuration of the sweep (whole-row tile, looped tiles) gives the
    softmax of rows of 32768, with a -inf, a large value and a masked-free row."""
    import tensorlab as tl

    sweep = _load_module(ROOT / "tools" / "sweep_configs.py")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 32768)).astype(np.float32) * 4
    x[0, 7], x[1, 32767] = -np.inf, 60.0
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    xt = tl.tensor(x, device="cuda")
    from tensorlab import _replay
    from tensorlab_kernels.reduction import softmax as ksoftmax

    real, launched = ksoftmax.launch, []
    monkeypatch.setattr(ksoftmax, "launch", lambda *a, **meta: launched.append(meta) or real(*a, **meta))
    for candidate in sweep.SOFTMAX_CANDIDATES[1:]:
        monkeypatch.setattr(sweep.ksoftmax, "pick_config", sweep._forced_softmax(candidate))
        _replay.plans.clear()  # (on a GPU a recorded launch would repeat the previous candidate's kernel)
        launched.clear()
        got = tl.softmax(xt, -1).cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-12, err_msg=str(candidate))
        # the candidate's configuration is the one launched
        assert [(m["ONE_TILE"], m["BLOCK_N"], m["num_warps"]) for m in launched] == [
            (True, 32768, candidate[1]) if candidate[0] == "one" else (False, candidate[1], candidate[2])]


def test_config_sweep_var_candidates_compute_var_mean(monkeypatch):
    """Each forced var_mean configuration of the sweep (rows per tile, a tile of the whole row or
    half of it, warps) gives the variance and mean of rows of 1024, on a large offset too, and is
    the configuration launched."""
    import tensorlab as tl

    sweep = _load_module(ROOT / "tools" / "sweep_configs.py")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 1024)).astype(np.float32)
    x[1] += 1000.0
    want_var, want_mean = x.astype(np.float64).var(1, ddof=1), x.astype(np.float64).mean(1)
    xt = tl.tensor(x, device="cuda")
    from tensorlab import _replay
    from tensorlab_kernels.reduction import var as kvar

    real, launched = kvar.launch, []
    monkeypatch.setattr(kvar, "launch", lambda *a, **meta: launched.append(meta) or real(*a, **meta))
    for candidate in sweep.VAR_CANDIDATES[1:]:
        monkeypatch.setattr(sweep.kvar, "tile_config", sweep._forced_var(candidate))
        _replay.plans.clear()
        launched.clear()
        var, mean = tl.var_mean(xt, -1)
        np.testing.assert_allclose(var.cpu().numpy(), want_var, rtol=1e-5, err_msg=str(candidate))
        np.testing.assert_allclose(mean.cpu().numpy(), want_mean, rtol=1e-6, atol=1e-6, err_msg=str(candidate))
        assert [(m["BLOCK_M"], m["BLOCK_N"], m["num_warps"]) for m in launched] == [candidate]


def test_l2_flush_is_chosen_by_option_or_environment_and_checked(monkeypatch):
    """The benchmarks' L2 flush: by default ("steady") a reading flush for a read-only op (a
    reduction) and a zeroing one for the rest; --l2-flush or $TENSORLAB_BENCH_L2_FLUSH can force
    "read" or "zero" for all (pick_device puts the option in the environment, where the torch
    comparators read it); another value is refused before anything is measured. The reading flush
    reduces the buffer without writing it, the zeroing one zeroes it."""
    import tensorlab as tl

    monkeypatch.delenv(harness.L2_FLUSH_ENV, raising=False)
    assert harness.l2_flush_mode() == "steady"
    assert (harness.flush_for(True), harness.flush_for(False)) == ("read", "zero")
    reads = harness.l2_flush("cuda", read_only=True, nbytes=4096)()
    assert isinstance(reads, tl.Tensor) and reads.shape == () and reads.item() == 0  # amax of the zeroed buffer
    zeroed = harness.l2_flush("cuda", read_only=False, nbytes=4096)()
    assert zeroed.shape == (1024,) and not zeroed.any().item()

    for forced in ("zero", "read"):
        args = harness.common_args("x").parse_args(["--device", "cuda", "--l2-flush", forced, "--allow-interpreted"])
        assert harness.pick_device(args) == "cuda"
        assert os.environ[harness.L2_FLUSH_ENV] == forced
        assert harness.flush_for(True) == harness.flush_for(False) == forced

    monkeypatch.setenv(harness.L2_FLUSH_ENV, "bogus")
    with pytest.raises(SystemExit, match="TENSORLAB_BENCH_L2_FLUSH='bogus': choose one of steady, read, zero"):
        harness.pick_device(harness.common_args("x").parse_args(["--device", "cpu"]))
    with pytest.raises(SystemExit):  # argparse refuses it as an option
        harness.common_args("x").parse_args(["--l2-flush", "bogus"])


def test_reductions_and_loss_forwards_are_timed_as_read_only():
    """Which cases take the reading flush by default: the reductions proper and cross-entropy's
    forward, not softmax, cumsum or a backward (bench/reductions.py, bench/losses.py; their torch
    comparators read the same case dicts)."""
    reductions = _load_bench("reductions")
    losses = _load_bench("losses")
    by_name = {c["name"]: c["read_only"] for c in reductions.cases(False, ["float32"])}
    assert by_name == {"sum-all": True, "sum-last": True, "var_mean-last": True, "sum-dim0": True,
                       "softmax-last": False, "softmax-long": False, "cumsum-last": False}
    assert {(c["mode"], c["read_only"]) for c in losses.cases(False, ["bfloat16"])} == {("fwd", True),
                                                                                      ("fwd+bwd", False)}


def _load_bench(name: str):
    """bench/<name>.py as a module."""
    return _load_module(ROOT / "bench" / f"{name}.py")


def _load_module(path: Path):
    """A script as a module (by path; bench/ is on sys.path meanwhile, for its ``import harness``,
    and whatever the script adds to sys.path is taken out again)."""
    saved = list(sys.path)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module
