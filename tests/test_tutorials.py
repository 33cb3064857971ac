"""Every tutorial runs end to end, as a newcomer would run it (on the cpu device)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((REPO / "tutorials").glob("[0-9][0-9]_*.py"))

# Documented fast settings (each tutorial's --help lists them); no step is skipped.
FAST_FLAGS: dict[str, list[str]] = {}


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_tutorial_runs(script):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("TRITON_INTERPRET", None)
    cmd = [sys.executable, str(script), "--device", "cpu", *FAST_FLAGS.get(script.name, [])]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, cwd=REPO)
    assert out.returncode == 0, f"{script.name} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert out.stdout.strip(), f"{script.name} printed nothing"
