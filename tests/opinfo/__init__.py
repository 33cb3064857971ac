"""The OpInfo table (as PyTorch's): one entry per public op, read by the generic op tests.

Each family keeps its entries in its own module (``tests/opinfo/<family>.py``, a list named
``OPS``); this package concatenates them into :data:`OP_DB`. ``tests/test_opinfo.py`` runs
every entry over device × dtype: values against an independent numpy reference, cpu (twin)
against cuda (kernel), non-contiguous inputs with NaN in the gaps, and gradcheck in float64.
"""

from __future__ import annotations

from .copies import OPS as _copies
from .core import OpInfo, SampleInput  # noqa: F401

OP_DB: list[OpInfo] = [*_copies]

for _family in (
    "elementwise", "reductions", "matmul", "indexing", "shape_ops", "sorting", "nn", "nn_losses", "composite",
):
    try:
        _mod = __import__(f"{__name__}.{_family}", fromlist=["OPS"])
    except ModuleNotFoundError as exc:  # a family not written yet
        if exc.name != f"{__name__}.{_family}":
            raise
        continue
    OP_DB.extend(_mod.OPS)


def op_db_names() -> list[str]:
    return [o.name for o in OP_DB]
