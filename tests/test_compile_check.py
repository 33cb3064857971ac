"""tools/compile_check.py keeps working: record a few launches in the interpreter, compile them for sm_90.

The real Triton compiler (and the ptxas in Triton's wheel) runs without a GPU, so this test runs
everywhere. It compiles four kernels (fill, strided copy, one elementwise binary op, a full sum) recorded
with the GPU launch configurations, replays them with direct launches off and on (``direct``),
and checks that a kernel the compiler rejects is reported as a failure with a non-zero exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "compile_check.py"

pytestmark = pytest.mark.slow  # about 10-15 s on one core: runs by default (see CONTRIBUTING.md)
triton = pytest.importorskip("triton")


def _compile_env() -> dict:
    # conftest sets TRITON_INTERPRET for this process; TRITON_DEFAULT_FP_FUSION stays unset, as a
    # user's: the launches pass enable_fp_fusion themselves, so Triton 3.9 has nothing to warn about
    return {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "TRITON_DEFAULT_FP_FUSION")}


def _compile(records: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), "compile", str(records), "--json", str(out)], cwd=ROOT,
                          env=_compile_env(), capture_output=True, text=True, timeout=600)


def test_recorded_kernels_compile_for_sm90(tmp_path):
    script = tmp_path / "workload.py"
    script.write_text(textwrap.dedent("""
        import tensorlab as tl
        x = tl.full((37, 5), 1.5, device="cuda")           # fill
        y = x.t().to(tl.float16)                            # strided copy with a cast
        z = x + x                                           # an elementwise binary kernel
        v = tl.ones(4096, device="cuda")
        s = v.sum()                                         # a full reduction (one row)
    """))
    records = tmp_path / "launches.jsonl"
    rec = subprocess.run([sys.executable, str(TOOL), "record", "-o", str(records), "--script", str(script)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert rec.returncode == 0, rec.stdout + rec.stderr
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    kernels = {r["kernel"] for r in lines}
    for expected in ("tensorlab_kernels.fill:_fill_float_kernel", "tensorlab_kernels.copy:_strided_copy_kernel"):
        assert expected in kernels, kernels
    assert any(k.startswith("tensorlab_kernels.elementwise.") for k in kernels), kernels
    # recorded with the GPU's launch configurations, not the interpreter's big blocks
    fill = next(r for r in lines if r["kernel"].endswith("_fill_float_kernel"))
    assert fill["meta"]["BLOCK"] == {"int": 1024}
    # every launch names its FMA-fusion choice (tensorlab_kernels.compile_options)
    assert all(r["meta"].get("enable_fp_fusion") == {"bool": True} for r in lines), [r["meta"] for r in lines]

    out = tmp_path / "result.json"
    proc = _compile(records, out)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    result = json.loads(out.read_text())
    assert result["arch"] == 90 and result["triton"] == triton.__version__
    assert {r["kernel"] for r in result["results"]} == {r["kernel"] for r in lines}
    for r in result["results"]:
        assert r["status"] == "ok", r
        assert r["cached"] or r["reg"] > 0  # a real cubin was built and inspected
    assert "TRITON_DEFAULT_FP_FUSION" not in proc.stderr  # Triton 3.9's warning when the option is left unset
    # the full sum over 4096 aligned float32s reads with vector loads only (its one row's offset must
    # be known aligned: row_layout gives a single row stride 0)
    (full_sum,) = [r for r in result["results"] if r["kernel"].endswith(":_reduce_kernel")]
    assert full_sum["vector_loads"] > 0 and full_sum["scalar_loads"] == 0, full_sum

    # the same launches replayed with direct launches off and on pass the launcher the same arguments
    direct = subprocess.run([sys.executable, str(TOOL), "direct", str(records)], cwd=ROOT, env=_compile_env(),
                            capture_output=True, text=True, timeout=600)
    assert direct.returncode == 0, direct.stdout[-4000:] + direct.stderr[-4000:]
    assert f"{len(kernels)} kernels" in direct.stdout and ", 0 problems" in direct.stdout, direct.stdout
    assert "TRITON_DEFAULT_FP_FUSION" not in direct.stderr


def test_compiler_rejection_is_reported(tmp_path):
    module = tmp_path / "bad_kernels.py"
    module.write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def not_a_power_of_two(out_ptr, n, BLOCK: tl.constexpr):
            idx = tl.arange(0, BLOCK)   # the compiler needs a power of 2 here
            tl.store(out_ptr + idx, idx, mask=idx < n)
    """))
    rec = {"kernel": "bad_kernels:not_a_power_of_two", "file": str(module),
           "args": [{"ptr": "int32", "mod16": 0}, {"int": 7}], "meta": {"BLOCK": {"int": 12}}, "grid": [1],
           "key": "bad", "where": "test"}
    records = tmp_path / "launches.jsonl"
    records.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "result.json"
    proc = _compile(records, out)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (r,) = json.loads(out.read_text())["results"]
    assert r["status"] == "FAIL" and "power of 2" in r["error_full"], r
    assert "not_a_power_of_two" in proc.stdout and "FAIL" in proc.stdout
