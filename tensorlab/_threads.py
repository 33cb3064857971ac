"""``set_num_threads`` / ``get_num_threads``: PyTorch's intra-op thread count.

tensorlab's cpu work is numpy's: its element-wise loops run on one thread and its BLAS (matmuls)
on the BLAS library's pool. With ``threadpoolctl`` installed, ``set_num_threads`` limits that pool;
without it the number is recorded (and returned by ``get_num_threads``) and the pool keeps the size
it was started with (``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` set before the import decide it).
Inter-op threads: tensorlab runs no inter-op pool; the number is recorded.
"""

from __future__ import annotations

import os

_state = {"intra": os.cpu_count() or 1, "interop": os.cpu_count() or 1, "limiter": None}


def set_num_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, but got {num}")
    _state["intra"] = num
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    _state["limiter"] = threadpool_limits(limits=num, user_api="blas")


def get_num_threads() -> int:
    return _state["intra"]


def set_num_interop_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, but got {num}")
    _state["interop"] = num


def get_num_interop_threads() -> int:
    return _state["interop"]
