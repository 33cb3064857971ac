"""Test setup: pick the cuda runtime before anything imports Triton kernels.

With a GPU (libcuda loads and reports a device) the ``cuda`` tests run on it; without one,
``TRITON_INTERPRET=1`` is set here, before ``tensorlab`` is imported, so the same tests run
every Triton kernel in Triton's interpreter. ``TENSORLAB_TEST_INTERPRET=1`` forces the
interpreter even on a GPU machine.
"""

from __future__ import annotations

import ctypes
import os


def _gpu_present() -> bool:
    if os.environ.get("TENSORLAB_TEST_INTERPRET") == "1":
        return False
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int()
    return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


if "TRITON_INTERPRET" not in os.environ and not _gpu_present():
    os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402

import tensorlab as tl  # noqa: E402

REAL_GPU = tl.cuda.is_available() and not tl.cuda.is_interpreted()
DEVICES = ["cpu"] + (["cuda"] if tl.cuda.is_available() else [])


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="needs a real NVIDIA GPU (cuda is interpreted or unavailable here)")
    for item in items:
        if "gpu" in item.keywords and not REAL_GPU:
            item.add_marker(skip_gpu)


def pytest_report_header(config):
    if REAL_GPU:
        return f"tensorlab cuda: {tl.cuda.get_device_name()} (real GPU)"
    if tl.cuda.is_available():
        return "tensorlab cuda: Triton interpreter (TRITON_INTERPRET=1), host memory"
    return f"tensorlab cuda: unavailable ({tl.cuda.unavailable_reason()})"


@pytest.fixture(params=DEVICES)
def device(request):
    """Run a test on every available device."""
    return request.param


@pytest.fixture(autouse=True)
def _no_replay_plans_from_other_tests():
    """Each test starts with no recorded launches (``tensorlab._replay``; on a GPU only): a test that
    spies on a launcher or patches one of its settings sees its first call of a key take the full
    path, whatever earlier tests ran."""
    from tensorlab import _replay

    _replay.plans.clear()
