"""Every tutorial runs end to end, as a newcomer would run it (on the cpu device)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((REPO / "tutorials").glob("[0-9][0-9]_*.py"))

# Documented fast settings (each tutorial's --help lists them); they change sizes, no step is skipped.
FAST_FLAGS: dict[str, list[str]] = {"04_mnist_mlp.py": ["--epochs", "1", "--hidden", "64"]}


def _run(script: Path, *flags: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("TRITON_INTERPRET", None)
    cmd = [sys.executable, str(script), "--device", "cpu", *flags]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900, cwd=REPO)


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_tutorial_runs(script):
    out = _run(script, *FAST_FLAGS.get(script.name, []))
    assert out.returncode == 0, f"{script.name} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert out.stdout.strip(), f"{script.name} printed nothing"


def test_mnist_demo_reaches_its_accuracy(tmp_path):
    """The README's demo, with its default settings: >= 92% on the held-out digits, checkpoint reloads."""
    out = _run(REPO / "tutorials" / "04_mnist_mlp.py", "--checkpoint", str(tmp_path))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    accuracy = float(re.search(r"held-out accuracy: ([0-9.]+)", out.stdout).group(1))
    assert accuracy >= 0.92, out.stdout
    assert "reloaded model agrees on all 1000 held-out digits" in out.stdout
    assert (tmp_path / "mnist_mlp.safetensors").exists()
