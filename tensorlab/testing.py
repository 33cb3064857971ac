"""``tensorlab.testing``: ``assert_close`` and ``make_tensor``, as ``torch.testing``.

``assert_close`` pairs its arguments as PyTorch does: sequences and mappings (and dataclasses
whose ``==`` cannot answer) are walked item by item; then ``None``s, booleans, Python/numpy
numbers and tensor-likes (tensors, numpy arrays: of directly related types, so a tensor is never
compared with an array or a number) are compared; every pair is checked and the first failure
raised, with PyTorch's messages. Values are compared with ``tensorlab.isclose`` after the
optional device/dtype equalisation, at the default tolerances of the dtypes involved.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import dataclasses
import math
import warnings

import numpy as np

from . import _dtype as D
from ._tensor import Tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# PyTorch's default tolerances, {dtype: (rtol, atol)}; other dtypes compare exactly
_DTYPE_PRECISIONS = {
    D.float16: (0.001, 1e-5),
    D.bfloat16: (0.016, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
}


class _ErrorMeta(Exception):
    """A failure found while pairing or comparing: the exception type to raise, its message and
    where in the inputs' structure it happened."""

    def __init__(self, type, msg: str, *, id: tuple = ()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This pair type does not handle these inputs: the next one is tried."""


def _default_tolerances(*dtypes) -> tuple[float, float]:
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*dtypes, rtol, atol, id) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        # both or neither: atol=0 alone would still pass through rtol's default
        raise _ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                     f"{'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return _default_tolerances(*dtypes)


def _mismatch_msg(*, identifier, default: str, extra: str | None, abs_diff, abs_idx, atol, rel_diff, rel_idx,
                  rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind: str, diff, idx, tol) -> str:
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol) + diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier=identifier, default="Scalars", extra=f"Expected {expected} but got {actual}.",
                         abs_diff=abs_diff, abs_idx=None, atol=atol, rel_diff=rel_diff, rel_idx=None, rtol=rtol)


def _greatest(values: np.ndarray) -> int:
    """The flat index of the greatest value, a NaN first (as ``torch.max`` propagates it)."""
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        if nan.any():
            return int(np.argmax(nan))
    return int(np.argmax(values))


def _tensor_mismatch_msg(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, *, rtol, atol) -> str:
    total = matches.size
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if a.dtype.kind not in "fV" and str(a.dtype) != "bfloat16":  # integers and bools: int64, no overflow
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        abs_idx = _greatest(abs_diff)
        if a.dtype.kind == "i":  # (PyTorch divides integers in float32, the default dtype)
            rel_diff = abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
        else:
            rel_diff = abs_diff / np.abs(e)
        rel_diff[m] = 0
        rel_idx = _greatest(rel_diff)
    shape = matches.shape
    return _mismatch_msg(identifier=None, default="Tensor-likes", extra=extra, abs_diff=abs_diff[abs_idx].item(),
                         abs_idx=tuple(int(i) for i in np.unravel_index(abs_idx, shape)), atol=atol,
                         rel_diff=rel_diff[rel_idx].item(),
                         rel_idx=tuple(int(i) for i in np.unravel_index(rel_idx, shape)), rtol=rtol)


# ----------------------------------------------------------------------------------------------
# pairs: each type takes the inputs it handles (else _Unsupported) and compares them
# ----------------------------------------------------------------------------------------------


class _Pair:
    def __init__(self, actual, expected, *, id=(), **options):
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type, msg: str):
        raise _ErrorMeta(type, msg, id=self.id)


class _ObjectPair(_Pair):
    """A dataclass that compares itself with ``==``."""

    def compare(self) -> None:
        if not self.actual == self.expected:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(x, bool | np.bool_) for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), **options)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    _TYPE_TO_DTYPE = {int: D.int64, float: D.float64}  # (complex: tensorlab has no complex dtype)

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False, check_dtype=False,
                 **options):
        numbers = (int, float, complex, np.number)
        if not all(isinstance(x, numbers) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id)
        dtypes = [self._TYPE_TO_DTYPE.get(type(x), D.float64) for x in (actual, expected)]
        if any(isinstance(x, complex) for x in (actual, expected)):
            dtypes = [D.float64]  # (PyTorch's complex128 tolerances are float64's)
        self.rtol, self.atol = _tolerances(*dtypes, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError, f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        self._fail(AssertionError, _scalar_mismatch_msg(self.actual, self.expected, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported  # (a tensor and a numpy array are not directly related: no pair)
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _to_tensor(x) -> Tensor:
        if isinstance(x, Tensor):
            return x
        from ._factories import as_tensor

        try:
            return as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        actual, expected = self._equalize(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual: Tensor, expected: Tensor) -> None:
        def mismatch(name, a, e):
            self._fail(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if actual.layout != expected.layout:
            if self.check_layout:
                mismatch("layout", actual.layout, expected.layout)
        elif self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize(actual: Tensor, expected: Tensor) -> tuple[Tensor, Tensor]:
        actual, expected = actual.detach(), expected.detach()
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            dtype = D.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        return actual, expected

    def _compare_values(self, actual: Tensor, expected: Tensor) -> None:
        from .ops import isclose

        matches = isclose(actual, expected, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        matches = np.asarray(matches._host_array(), dtype=bool)
        if matches.all():
            return
        if actual.ndim == 0:
            msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_mismatch_msg(np.asarray(actual._host_array()), np.asarray(expected._host_array()),
                                       matches, rtol=self.rtol, atol=self.atol)
        self._fail(AssertionError, msg)


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate(actual, expected, *, id: tuple = (), **options) -> list:
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, sequence) and not isinstance(actual, str)
            and isinstance(expected, sequence) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                             id=id)
        return [p for i in range(len(actual)) for p in _originate(actual[i], expected[i], id=(*id, i), **options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _ErrorMeta(AssertionError, "The keys of the mappings do not match:\n"
                                             f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}\n"
                                             f"Additional keys in the actual mapping: {sorted(a_keys - e_keys)}",
                             id=id)
        keys = a_keys
        with contextlib.suppress(Exception):  # (deterministic: the first failure is reported)
            keys = sorted(keys)
        return [p for k in keys for p in _originate(actual[k], expected[k], id=(*id, k), **options)]
    if (not isinstance(actual, type | Tensor | np.ndarray | np.generic) and dataclasses.is_dataclass(actual)
            and dataclasses.is_dataclass(expected) and type(actual) is type(expected)):
        # Field by field only when the dataclass's own == cannot answer (a tensor field)
        try:
            equal = actual == expected
        except RuntimeError as error:
            if "Boolean value of Tensor" not in str(error):
                raise
        else:
            if type(equal) is bool:
                return [_ObjectPair(actual, expected, id=id)]
        return [p for f in dataclasses.fields(actual) if f.compare
                for p in _originate(getattr(actual, f.name), getattr(expected, f.name), id=(*id, f.name), **options)]
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                f"{type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False, msg=None) -> None:
    """Assert that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol + rtol * |expected|``
    elementwise (non-finite values only when equal, NaNs only with ``equal_nan``), with the same shape,
    device, dtype (and stride, with ``check_stride``). Default tolerances per dtype: float16
    1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7 (rtol/atol), the
    loosest of the two dtypes; integers and bools compare exactly. ``msg``: a str replacing the
    message, or a callable that receives it."""
    __tracebackhide__ = True
    try:
        pairs = _originate(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                           equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                           check_layout=check_layout, check_stride=check_stride)
    except _ErrorMeta as error:  # (a structure that cannot be paired: PyTorch ignores msg here)
        raise error.to_error() from None
    errors = []
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as error:
            errors.append(error)
    if errors:
        raise errors[0].to_error(msg) from None


# ----------------------------------------------------------------------------------------------
# make_tensor
# ----------------------------------------------------------------------------------------------

_INTEGRAL = (D.uint8, D.int8, D.int16, D.int32, D.int64)
_FLOATING = (D.float16, D.bfloat16, D.float32, D.float64)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False, noncontiguous: bool = False,
                exclude_zero: bool = False, memory_format=None) -> Tensor:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)`` (PyTorch's defaults:
    bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floats [-9, 9); bounds outside the
    dtype's finite range are clamped). ``noncontiguous``: a view of every other element of a
    twice-as-wide last dim; ``exclude_zero``: zeros become 1 (integers, bool) or the dtype's
    ``tiny``."""
    from . import _random
    from ._factories import empty

    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
        low = default_low if low is None else low
        high = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
        if low == high and dtype in _FLOATING:
            warnings.warn("Passing `low==high` to `tensorlab.testing.make_tensor` for floating or complex types is "
                          "deprecated since 2.1 and will be removed in 2.3. Use `tensorlab.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                             f"supports [{lowest_inclusive}, {highest_exclusive})")
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if dtype is D.bool or dtype in _INTEGRAL:
            # randint's high is exclusive: both bounds are ceiled (no value below low)
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if not isinstance(dtype, D.dtype) or not (dtype is D.bool or dtype in _INTEGRAL or dtype in _FLOATING):
        raise TypeError(f"The requested dtype '{dtype}' is not supported by tensorlab.testing.make_tensor().")
    if requires_grad and (dtype is D.bool or dtype in _INTEGRAL):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, so the view skips values that differ
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is D.bool:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0,
                                    default_high=2)
        result = _random.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = D.iinfo(dtype)
        # (int64's max itself cannot be drawn: randint's exclusive high would overflow)
        low, high = modify_low_high(low, high, lowest_inclusive=info.min,
                                    highest_exclusive=info.max + (1 if dtype is not D.int64 else 0),
                                    default_low=-9, default_high=10)
        result = _random.randint(low, high, shape, device=device, dtype=dtype)
    else:
        info = D.finfo(dtype)
        low, high = modify_low_high(low, high, lowest_inclusive=float(info.min), highest_exclusive=float(info.max),
                                    default_low=-9, default_high=9)
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= float(info.max):  # uniform_ refuses a range wider than the dtype's max: halve it
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)

    if noncontiguous:
        result = result[..., 1::2]  # (offset by one: catches offset bugs too)
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype is D.bool or dtype in _INTEGRAL else float(D.finfo(dtype).tiny)
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result


def assert_allclose(actual, expected, rtol: float | None = None, atol: float | None = None, equal_nan: bool = True,
                    msg: str = "") -> None:
    """PyTorch's deprecated predecessor of :func:`assert_close` (NaNs equal by default, no dtype or
    device checks, numbers and arrays turned into tensors of ``actual``'s kind)."""
    import warnings

    warnings.warn("`tensorlab.testing.assert_allclose()` is deprecated. Please use "
                  "`tensorlab.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    from ._factories import tensor as _tensor
    from ._tensor import Tensor

    if not isinstance(actual, Tensor):
        actual = _tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _tensor(expected, dtype=actual.dtype)
    if (rtol is None) != (atol is None):
        raise ValueError("rtol and atol must both be specified or both be unspecified")
    assert_close(actual, expected.to(actual.device), rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=False,
                 check_dtype=False, msg=msg or None)
