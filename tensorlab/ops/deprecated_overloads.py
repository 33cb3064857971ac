"""PyTorch's deprecated overloads that pass the scalars positionally, before the tensors.

PyTorch 2.15 still takes them, with a warning: ``addmm(beta, input, alpha, mat1, mat2)``,
``x.addbmm_(beta, alpha, batch1, batch2)``, ``addcmul(input, value, t1, t2)``,
``add(input, alpha, other)`` and the like. Code written for older PyTorch uses them, so they are
taken here the same way. Each wrapped function keeps its own signature (``inspect.signature``
follows ``__wrapped__``); only a call with more positional arguments than it takes is rewritten
into the keyword form, so the usual call pays one length test.
"""

from __future__ import annotations

import functools
import numbers
import warnings

from .._tensor import Tensor

# the scalars each family takes, in PyTorch's deprecated order, and the tensors after ``input``
_FORMS = {
    "beta_alpha": (("beta", "alpha"), 2),  # addmm/addmv/addr/baddbmm/addbmm: beta, (input), alpha, two tensors
    "value": (("value",), 2),  # addcmul/addcdiv: (input), value, two tensors
    "alpha": (("alpha",), 1),  # add/sub: (input), alpha, other
}


def _is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def scalars_first(form: str):
    """Decorate an op taking ``(input, *tensors, *, <scalars>)`` so that PyTorch's deprecated
    positional forms of ``form`` (a key of ``_FORMS``) are rewritten into keywords, with PyTorch's
    deprecation warning."""
    names, n_tensors = _FORMS[form]
    usual = 1 + n_tensors

    def wrap(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            if len(args) <= usual:
                return fn(*args, **kwargs)
            return fn(*_rewrite(fn.__name__, args, kwargs), **kwargs)

        op.without_deprecated_overloads = fn  # (for callers that never pass them: the operators)
        return op

    def _rewrite(name: str, args: tuple, kwargs: dict) -> tuple:
        # the function form starts with beta (addmm(beta, input, ...)); the method form with input
        if form == "beta_alpha" and _is_scalar(args[0]) and len(args) >= 2 and isinstance(args[1], Tensor):
            args = (args[1], args[0], *args[2:])
        input, rest = args[0], args[1:]
        scalars, tensors = rest[:len(rest) - n_tensors], rest[len(rest) - n_tensors:]
        if not 1 <= len(scalars) <= len(names) or not all(_is_scalar(s) for s in scalars):
            raise TypeError(f"{name}() takes {usual} positional arguments but {len(args)} were given")
        for key, value in zip(names, scalars):
            if key in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            kwargs[key] = value
        given = ", ".join(f"Number {k}" for k in names[:len(scalars)])
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({given}, ...)\nConsider passing "
                      f"{', '.join(names)} as keywords instead", UserWarning, stacklevel=3)
        return (input, *tensors)

    return wrap
