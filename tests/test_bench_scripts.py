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

import pytest

ROOT = Path(__file__).resolve().parent.parent
# loaded by path: putting bench/ on sys.path would let its nn.py, optim.py, ... shadow other modules
_spec = importlib.util.spec_from_file_location("bench_run_all", ROOT / "bench" / "run_all.py")
run_all = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_all)
SCRIPTS = run_all.SCRIPTS

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
    """tools/sweep_configs.py (how the full-reduction and GEMM heuristics were measured) runs end to
    end: every candidate of each sweep writes a row; an unknown sweep is refused."""
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
    assert len(sums) == 2 * 6 and len(gemms) == 2 * 7 and all(r["ms"] > 0 for r in sums + gemms)
    refused = subprocess.run([sys.executable, str(ROOT / "tools" / "sweep_configs.py"), "nonesuch"],
                             capture_output=True, text=True, timeout=120, env=env)
    assert refused.returncode == 2 and "unknown sweep(s) ['nonesuch']" in refused.stderr
