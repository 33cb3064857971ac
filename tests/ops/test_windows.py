"""Window functions (tensorlab/ops/windows.py) against NumPy's symmetric windows: a periodic
window of length L is NumPy's window of length L + 1 without its last point."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

_NUMPY = {
    "hann_window": np.hanning,
    "hamming_window": np.hamming,
    "blackman_window": np.blackman,
    "bartlett_window": np.bartlett,
    "kaiser_window": lambda n: np.kaiser(n, 12.0),
}


def _reference(name: str, length: int, periodic: bool) -> np.ndarray:
    if length <= 1:
        return np.ones(length)
    return _NUMPY[name](length + 1)[:-1] if periodic else _NUMPY[name](length)


@pytest.mark.parametrize("name", sorted(_NUMPY))
def test_windows_equal_numpys(name, device):
    fn = getattr(tl, name)
    for length in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            w = fn(length, periodic, dtype=tl.float64, device=device)
            assert w.shape == (length,) and w.dtype is tl.float64
            np.testing.assert_allclose(to_numpy(w), _reference(name, length, periodic), rtol=1e-12, atol=1e-12)
    w = fn(7, device=device)  # periodic, default dtype
    assert w.dtype is tl.float32 and str(w.device).startswith(device)
    np.testing.assert_allclose(to_numpy(w), _reference(name, 7, True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_half_windows_round_the_float32_window_once(dtype):
    # computed in float32 and rounded once: within half a unit in the last place of the exact window
    ulp = {tl.float16: 2.0 ** -11, tl.bfloat16: 2.0 ** -8}[dtype]
    for name in sorted(_NUMPY):
        w = getattr(tl, name)(11, dtype=dtype)
        assert w.dtype is dtype
        err = np.abs(to_numpy(w.double()) - _reference(name, 11, True))
        assert (err <= ulp * np.maximum(np.abs(_reference(name, 11, True)), 2.0 ** -14) + 1e-7).all(), name


def test_window_parameters_and_requires_grad():
    n = np.arange(6)
    np.testing.assert_allclose(to_numpy(tl.hamming_window(6, False, 0.3, 0.2, dtype=tl.float64)),
                               0.3 - 0.2 * np.cos(2 * np.pi * n / 5), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(tl.kaiser_window(6, False, 5.0, dtype=tl.float64)), np.kaiser(6, 5.0),
                               rtol=1e-12)
    w = tl.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w._base is None


def test_window_errors():
    with pytest.raises(RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"):
        tl.hann_window(-1)
    with pytest.raises(RuntimeError, match="kaiser_window expects floating point dtypes, got: Long"):
        tl.kaiser_window(4, dtype=tl.int64)
    with pytest.raises(TypeError, match="argument 'window_length' .* must be int, not float"):
        tl.blackman_window(2.0)
