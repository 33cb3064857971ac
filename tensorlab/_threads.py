"""``set_num_threads`` / ``get_num_threads``: PyTorch's intra-op thread count.

tensorlab's cpu work is numpy's: its element-wise loops run on one thread and its BLAS (matmuls)
on the BLAS library's thread pool, which ``set_num_threads`` resizes (through ``threadpoolctl``,
a dependency). ``get_num_threads`` returns the number set (the machine's core count until then).
Inter-op threads: tensorlab runs no inter-op pool; the number is recorded.
"""

from __future__ import annotations

import os

_state = {"intra": os.cpu_count() or 1, "interop": os.cpu_count() or 1, "limiter": None}


def set_num_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, but got {num}")
    from threadpoolctl import threadpool_limits

    _state["intra"] = num
    _state["limiter"] = threadpool_limits(limits=num, user_api="blas")  # (applies until the next call)


def get_num_threads() -> int:
    return _state["intra"]


def set_num_interop_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, but got {num}")
    _state["interop"] = num


def get_num_interop_threads() -> int:
    return _state["interop"]
