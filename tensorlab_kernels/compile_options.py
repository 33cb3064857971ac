"""Compile options every tensorlab launch passes to Triton, so a kernel compiles the same way under
every Triton version.

``enable_fp_fusion``: whether the compiler may contract ``a * b + c`` into one fused multiply-add.
Triton up to 3.9 fuses unless told otherwise; 3.9 warns on the first compile that leaves the
option unset, and 3.10 turns the default off. tensorlab's kernels, their tolerances and their
benchmarks were built with fusion on (one rounding instead of two, and fewer instructions in
compute-bound epilogues), so every launch asks for it explicitly: the compiled code does not change
with the installed Triton, and a user never sees Triton's warning. A launch that passes the option
itself keeps its own value.
"""

from __future__ import annotations

FP_FUSION = True


def add_compile_options(meta: dict) -> dict:
    """``meta`` (a launch's keyword arguments, changed in place) with the options above added."""
    if "enable_fp_fusion" not in meta:
        meta["enable_fp_fusion"] = FP_FUSION
    return meta
