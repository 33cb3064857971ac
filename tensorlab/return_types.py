"""The named tuples that ops return, as PyTorch's ``torch.return_types``: ``values, indices = x.sort()``
or ``x.max(0).values``.

Each class lives here, once, under the name of the op that returns it (``tensorlab.return_types.max``),
so a result pickles by reference (``pickle``, ``copy.deepcopy``, a DataLoader worker sending a sample
back) as PyTorch's ``torch.return_types.max`` does. They are ``collections.namedtuple`` classes (fields,
indexing, ``_fields``, keyword construction) that also take PyTorch's one-sequence construction
(``return_types.max((values, indices))``) and print as PyTorch's do::

    tensorlab.return_types.max(
    values=tensor([3., 4.]),
    indices=tensor([0, 1]))
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["aminmax", "cummax", "cummin", "frexp", "histogram", "histogramdd", "kthvalue", "max", "median", "min",
           "mode", "nanmedian", "sort", "topk"]


def _new(cls, *args, **kwargs):
    if len(args) == 1 and not kwargs:  # PyTorch's structseq form: one sequence of the fields
        fields = tuple(args[0])
        if len(fields) != cls.n_fields:
            raise TypeError(f"{cls.__module__}.{cls.__qualname__}() takes a {cls.n_fields}-sequence "
                            f"({len(fields)}-sequence given)")
        return tuple.__new__(cls, fields)
    return cls._namedtuple_new(cls, *args, **kwargs)


def _repr(self) -> str:
    cls = type(self)
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(cls._fields, self))
    return f"{cls.__module__}.{cls.__qualname__}(\n{fields})"


def _result_type(name: str, fields: list[str]) -> type:
    cls = namedtuple(name, fields, module=__name__)
    cls._namedtuple_new = staticmethod(cls.__new__)
    cls.__new__ = staticmethod(_new)
    cls.__repr__ = _repr
    cls.n_fields = cls.n_sequence_fields = len(fields)  # (PyTorch's structseq attributes)
    cls.n_unnamed_fields = 0
    return cls


aminmax = _result_type("aminmax", ["min", "max"])
cummax = _result_type("cummax", ["values", "indices"])
cummin = _result_type("cummin", ["values", "indices"])
frexp = _result_type("frexp", ["mantissa", "exponent"])
histogram = _result_type("histogram", ["hist", "bin_edges"])
histogramdd = _result_type("histogramdd", ["hist", "bin_edges"])
kthvalue = _result_type("kthvalue", ["values", "indices"])
max = _result_type("max", ["values", "indices"])  # noqa: A001 - PyTorch's name
median = _result_type("median", ["values", "indices"])
min = _result_type("min", ["values", "indices"])  # noqa: A001
mode = _result_type("mode", ["values", "indices"])
nanmedian = _result_type("nanmedian", ["values", "indices"])
sort = _result_type("sort", ["values", "indices"])
topk = _result_type("topk", ["values", "indices"])
