"""CUDA's libdevice for the elementwise kernels, on a GPU and in Triton's interpreter alike.

Triton's core math (``tl.exp``, ``tl.log``, ``tl.sqrt``, ``/``) lowers fp32 to fast approximate
PTX instructions (``ex2.approx``, ``lg2.approx``, ``div.full``); PyTorch's CUDA kernels use the
correctly rounded or few-ulp CUDA math library. So the elementwise kernels call libdevice
(``__nv_expf``, ``__nv_expm1``, ...): the same accuracy class as PyTorch, and functions the core
lacks (``expm1``, ``log1p``, ``atan2``, ``erfinv``, ...). Elementwise kernels are memory bound:
the extra instructions cost nothing measurable.

Triton's interpreter cannot run ``extern_elementwise`` (it raises NotImplementedError), so under
``TRITON_INTERPRET=1`` this module teaches the interpreter's builder to evaluate a libdevice call
with the numpy function of the same name, at the call's own precision (``__nv_expm1f`` on float32
arrays, ``__nv_expm1`` on float64). The kernel source is then identical on both paths and the
interpreter tests exercise exactly the code a GPU compiles.
"""

from __future__ import annotations

import math

import numpy as np

from .._triton import TRITON_AVAILABLE, tl, triton
from ..runtime import INTERPRET
from ._erfinv import erfinv_np

if TRITON_AVAILABLE:
    from triton.language.extra.cuda import libdevice
else:  # pragma: no cover - kernels cannot launch without Triton anyway
    libdevice = None



def math_np(fn, x):
    """``fn`` of Python's math module (erf, erfc: numpy has none) on each element, in x's dtype."""
    flat = np.fromiter(map(fn, x.reshape(-1).tolist()), dtype=np.float64, count=x.size)
    return flat.reshape(x.shape).astype(x.dtype)


def _signbit(x):
    return np.signbit(x).astype(np.int32)


def _isnan(x):
    return np.isnan(x).astype(np.int32)


def _isinf(x):
    return np.isinf(x).astype(np.int32)


# libdevice base name -> numpy implementation (the fp32 symbol adds "f": __nv_expf / __nv_exp)
_NUMPY = {
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda x: (1 / np.sqrt(x)).astype(x.dtype),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": lambda x: math_np(math.erf, x),
    "erfc": lambda x: math_np(math.erfc, x), "erfinv": erfinv_np,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign, "fmod": np.fmod, "pow": np.power,
    "fdiv_rn": np.divide, "ddiv_rn": np.divide, "signbit": _signbit, "isnan": _isnan, "isinf": _isinf,
}


# libdevice base name -> (module, function) of a numpy implementation imported on first use: those
# modules hold Triton code that imports this one
_LAZY = {"lgamma": ("_gamma", "lgamma_np"), "erfcx": ("_normal", "erfcx_np"), "normcdfinv": ("_normal", "ndtri_np")}


def _numpy_for(symbol: str):
    name = symbol[len("__nv_"):] if symbol.startswith("__nv_") else symbol
    for candidate in (name, name[:-1]):
        if candidate in _NUMPY:
            return _NUMPY[candidate]
        if candidate in _LAZY:
            import importlib

            module, fn = _LAZY[candidate]
            _NUMPY[candidate] = getattr(importlib.import_module(f"{__package__}.{module}"), fn)
            return _NUMPY[candidate]
    raise NotImplementedError(f"libdevice function {symbol} has no numpy emulation in the interpreter")


def _install_interpreter_support():
    """Make libdevice calls work in Triton's interpreter; returns the namespace kernels call.

    Two pieces: the interpreter's builder gets a ``create_extern_elementwise`` that evaluates the
    symbol with numpy, and the libdevice functions are wrapped (as the interpreter wraps
    ``tl.*``) to receive the interpreter's semantic object, which it passes only to ``tl``.
    """
    import inspect
    import types

    from triton.language import core
    from triton.runtime import interpreter as interp

    if not getattr(interp.InterpreterBuilder, "_tensorlab_libdevice", False):
        def create_extern_elementwise(self, libName, libPath, symbol, argList, retType, isPure):
            fn = _numpy_for(symbol)
            scalar = getattr(retType, "scalar", retType)
            with np.errstate(all="ignore"):
                data = np.asarray(fn(*[a.data for a in argList]))
            return interp.TensorHandle(data.astype(interp._get_np_dtype(scalar)), scalar)

        interp.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
        interp.InterpreterBuilder._tensorlab_libdevice = True

    semantic = interp.interpreter_semantic
    ns = types.SimpleNamespace()
    for name, member in inspect.getmembers(libdevice):
        if core.is_builtin(member):
            setattr(ns, name, lambda *args, _fn=member, **kw: _fn(*args, _semantic=semantic))
    return ns


if INTERPRET and TRITON_AVAILABLE:
    libdevice = _install_interpreter_support()


@triton.jit
def fdiv(a, b):
    """IEEE division: Triton's fp32 ``/`` is the approximate ``div.full.f32``; fp64 ``/`` is exact.

    Either side may be a Python float (a weak constant): ``a + b`` tells the type (only its type is
    used; the compiler drops the addition)."""
    if (a + b).dtype == tl.float64:
        q = a / b
    else:
        q = libdevice.div_rn(a, b)
    return q


__all__ = ["fdiv", "libdevice"]
