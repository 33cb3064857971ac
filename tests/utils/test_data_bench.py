"""Smoke test: bench/dataloader.py runs end to end (tiny samples, no PyTorch) and writes its results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_dataloader_benchmark_smoke(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "dataloader.py"), "--quick", "--shape", "3,16,16", "--workers", "0,1",
         "--torch-python", sys.executable, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = list(tmp_path.glob("dataloader-*.json"))
    assert len(files) == 1
    doc = json.loads(files[0].read_text())
    rows = [r for r in doc["rows"] if r["impl"] == "tensorlab"]
    assert [r["num_workers"] for r in rows] == [0, 1]
    assert all(r["batches_per_s"] > 0 and r["batches_per_epoch"] == 8 for r in rows)
    if not any(r["impl"] == "torch" for r in doc["rows"]):  # torch is not installed in this interpreter
        assert "PyTorch comparator skipped: torch is not installed" in proc.stdout
