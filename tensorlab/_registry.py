"""The op registry: every op is declared once, as an :class:`OpDef`.

An OpDef names the op and holds everything about it in one place (JAX-style: the rules live
next to the op):

``twin``      numpy implementation, run on ``cpu``: ``twin(*outputs, *args, **params)``
``kernel``    Triton launcher, run on ``cuda``: same arguments, DeviceArrays instead of numpy
``meta``      the shape/dtype rule: ``meta(*inputs, **params) -> Plan`` (see :class:`Plan`)
``backward``  ``backward(ctx, *grad_outputs) -> grad per input`` written with registered ops
              (so it runs on the GPU kernels and is itself differentiable); ``None`` for ops
              that are not differentiable (comparisons, argmax, ...)
``save``      what the backward needs: ``save(ctx, inputs, outputs, params)`` calls
              ``ctx.save_for_backward``; default saves the tensor inputs
``view``      for view ops: ``view(shape, strides, offset, **params) -> (shape, strides, offset)``;
              no twin or kernel — the result shares storage
``custom``    for ops that are neither a twin/kernel pair nor a view (device transfer):
              ``custom(*inputs, **params) -> Tensor | tuple``
``tags``      e.g. ``elementwise``, ``reduction``, ``view``, ``inplace_safe`` (outputs may alias
              inputs), ``nondeterministic``, ``random``, ``takes_list`` (first input is a list of
              tensors, like ``cat``), ``replayable`` (what its cuda kernel launches follows from
              the inputs' geometry, dtypes and the parameters alone, as for an elementwise op: the
              dispatcher may replay a launch, ``_replay``), ``same_value_writes`` (an in-place
              op that writes one value to every element, ``fill_``: self may be expanded),
              ``no_input_overlap`` (the written-to tensor may not share memory with an input,
              in whole or in part: scatter, index writes, gather/cat out=, as PyTorch's
              assert_no_overlap), ``no_partial_overlap`` (only the input itself may be the
              destination: scans, sort, max(dim), as assert_no_partial_overlap)

The dispatcher, the autograd tape, the OpInfo test table and the docs all read this registry
(:func:`registered_ops`, :func:`get_op`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(eq=False)
class OpDef:
    name: str
    twin: Callable | None = None
    kernel: Callable | None = None
    meta: Callable | None = None
    backward: Callable | None = None
    save: Callable | None = None
    view: Callable | None = None
    custom: Callable | None = None
    tags: frozenset = field(default_factory=frozenset)
    doc: str = ""
    # an elementwise or replayable compute op: on a GPU the dispatcher may replay its launch (``_replay``)
    replayable: bool = field(init=False, repr=False, default=False)
    # the autograd Node subclass its recordings make, named as PyTorch's (AddBackward0); set by the tape
    node_class: type | None = field(init=False, repr=False, default=None)

    def __post_init__(self):
        self.tags = frozenset(self.tags)
        self.replayable = (("elementwise" in self.tags or "replayable" in self.tags) and self.view is None
                           and self.custom is None)
        if self.view is None and self.custom is None and self.meta is None:
            raise ValueError(f"OpDef {self.name}: needs meta (with twin/kernel), view or custom")

    @property
    def differentiable(self) -> bool:
        return self.backward is not None

    def __repr__(self) -> str:
        kind = "view" if self.view else "custom" if self.custom else "compute"
        return f"OpDef({self.name!r}, {kind}, tags={sorted(self.tags)})"


_REGISTRY: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} is already registered")
    _REGISTRY[op.name] = op
    return op


def defop(name: str, **fields) -> OpDef:
    """Declare and register an op in one step."""
    return register(OpDef(name, **fields))


def get_op(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} is registered") from None


def registered_ops(tag: str | None = None) -> list[OpDef]:
    """All registered ops (sorted by name), optionally only those carrying ``tag``."""
    ops = sorted(_REGISTRY.values(), key=lambda o: o.name)
    return [o for o in ops if tag is None or tag in o.tags]


@dataclass
class Plan:
    """What ``meta`` decides for one call.

    ``args``     positional arguments for twin/kernel after the outputs: Tensors (converted
                 to numpy arrays or DeviceArrays), :class:`Geometry` views of tensors, or
                 plain Python values
    ``outputs``  ``[(shape, dtype), ...]`` to allocate; ``None`` when the implementation
                 allocates and returns its outputs itself (data-dependent sizes)
    ``params``   keyword arguments for twin/kernel
    ``single``   the op returns one tensor rather than a tuple
    """

    args: list
    outputs: list | None
    params: dict = field(default_factory=dict)
    single: bool = True


class Geometry:
    """A tensor read through a different geometry (a broadcast, say) without a Tensor object."""

    __slots__ = ("tensor", "shape", "strides", "offset")

    def __init__(self, tensor, shape, strides, offset=None):
        self.tensor, self.shape, self.strides = tensor, tuple(shape), tuple(strides)
        self.offset = tensor._offset if offset is None else offset
