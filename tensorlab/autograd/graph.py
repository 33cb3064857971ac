"""The tape: nodes that name registered ops, and the engine that walks them backwards.

As plain as micrograd. The dispatcher calls :func:`record` after every differentiable op
whose inputs require grad; it creates a :class:`Node` that holds the :class:`OpDef`, a
:class:`Ctx` (saved tensors, params, input metadata) and one edge per tensor input: the
input's own ``grad_fn`` or, for a leaf, its :class:`AccumulateGrad`. :func:`run_backward`
orders the reachable nodes topologically, calls each op's registered backward rule (itself
made of registered ops, so double backward works), sums gradients per edge and deposits them
in leaves' ``.grad``. Saved tensors are dropped as soon as a node has run, unless
``retain_graph``; a saved tensor modified in place since it was saved raises on use.

In-place ops on views rebase history as PyTorch does (:func:`rebase_view`): the base gets a
``CopySlices`` node that routes the written region's gradient through the in-place op and the
rest to the base's old history, and the view becomes a view of the new base.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import weakref

from .. import _dispatch
from .._storage import contiguous_strides
from ..amp.autocast_mode import suspended as _autocast_suspended
from . import grad_mode

_NO_CONTEXT = contextlib.nullcontext()


class TensorMeta:
    """What a backward rule may know about an input or output without keeping it alive."""

    __slots__ = ("shape", "dtype", "device", "requires_grad")

    def __init__(self, t):
        self.shape, self.dtype, self.device = t._shape, t.dtype, t._storage.device
        self.requires_grad = t._requires_grad

    def __repr__(self):
        return f"TensorMeta({list(self.shape)}, {self.dtype}, {self.device})"


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved."""

    __slots__ = ("tensor", "version", "is_output", "output_nr")

    def __init__(self, t, version: int, is_output: bool, output_nr: int = 0):
        # An output is stored without its grad_fn (no reference cycle node -> ctx -> output);
        # unpacking reattaches it.
        self.tensor = t.detach() if is_output else t
        if is_output:
            self.tensor._requires_grad = t._requires_grad
        self.version = version
        self.is_output = is_output
        self.output_nr = output_nr

    def unpack(self, node: Node, index: int):
        t = self.tensor
        if t._storage.version != self.version:
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{t.dtype.name}{list(t._shape)}], which is saved tensor {index} of {node.name()}, is at version "
                f"{t._storage.version}; expected version {self.version} instead. Hint: the backward of "
                f"{node.op.name} needs this tensor unchanged; clone() it before modifying it in place."
            )
        if self.is_output and t._requires_grad:
            from .._tensor import Tensor

            alias = Tensor._make(t._storage, t._shape, t._stride, t._offset, t.dtype)
            alias._requires_grad = True
            alias.grad_fn = node
            alias._output_nr = self.output_nr
            return alias
        return t


class _ThreadState(threading.local):
    """What the autograd blocks and engine calls of one thread have open. Per thread, as PyTorch's:
    another thread's ``saved_tensors_hooks`` (``save_on_cpu``) must not pack this thread's tensors,
    nor its ``autograd.grad`` make this thread's reentrant checkpoint refuse to run."""

    def __init__(self):
        # saved_tensors_hooks: the (pack, unpack) pairs of the enclosing blocks, innermost last; a
        # tensor saved for backward while one is open is stored as pack(tensor) and given back as
        # unpack(packed)
        self.saved_tensor_hooks: list = []
        self.hooks_disabled: list = []  # disable_saved_tensors_hooks messages, innermost last
        # The user-level engine calls running now, innermost last: True for ``backward()`` without
        # ``inputs=`` (it accumulates into every leaf), False for ``autograd.grad`` /
        # ``backward(inputs=)``. A reentrant checkpoint asks it (PyTorch's ``_is_checkpoint_valid``).
        self.engine_calls: list = []


_thread = _ThreadState()


class _HookedSavedTensor:
    """A saved tensor stored through the pack hook of the saved_tensors_hooks block it was saved in.

    As PyTorch's SavedVariable with hooks: the pack hook runs (without grad mode) once the node's
    outputs are attached (:func:`_pack_saved`), so a saved output is seen with its grad_fn, and
    what it returns is kept in place of the tensor. The tensor's autograd identity is kept beside it
    (its grad_fn and output number, or a leaf's gradient accumulator), and unpacking re-attaches
    the unpack hook's value to it: a graph built from saved tensors under ``create_graph`` (double
    backward) leads to the original tensor's history, whatever the hooks returned (a detached copy,
    a tensor rebuilt from a list). In-place changes to a packed tensor are not detected, as in
    PyTorch (the hooks own the value)."""

    __slots__ = ("packed", "unpack_hook", "_pack_hook", "_tensor", "grad_fn", "output_nr", "own_output",
                 "accumulator")
    is_output = False  # (the plain SavedTensor's flag: attach_outputs leaves this one to _pack_saved)

    def __init__(self, t, pack_hook, unpack_hook):
        self._tensor, self._pack_hook, self.unpack_hook = t, pack_hook, unpack_hook
        self.packed = None
        self.grad_fn = self.accumulator = None
        self.output_nr, self.own_output = 0, False

    def pack(self, node: Node) -> None:
        t, hook = self._tensor, self._pack_hook
        self._tensor = self._pack_hook = None
        fn, nr = _edge_of(t)
        if fn is node:  # an output of the node itself: re-attached to it when unpacked (no cycle kept)
            self.own_output, self.output_nr = True, nr
        elif isinstance(fn, AccumulateGrad):  # a leaf that requires grad: weakly, as its own reference
            self.accumulator = t._grad_accumulator
        elif fn is not None:
            self.grad_fn, self.output_nr = fn, nr
        version = t._storage.version
        with grad_mode.no_grad():
            self.packed = hook(t)
        if t._storage.version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                "open an issue if you need to perform in-place operations on the input to a pack hook.")

    def unpack(self, node: Node, index: int):
        from .._tensor import Tensor

        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        # the hook's value, with the saved tensor's autograd identity (PyTorch's make_variable)
        alias = Tensor._make(t._storage, t._shape, t._stride, t._offset, t.dtype)
        fn = node if self.own_output else self.grad_fn
        if fn is not None:
            alias._requires_grad = True
            alias.grad_fn, alias._output_nr = fn, self.output_nr
        elif self.accumulator is not None:
            alias._requires_grad = True
            alias._grad_accumulator = self.accumulator  # gradients reach the original leaf's .grad
        return alias


def _pack_saved(node: Node) -> None:
    """Run the pack hooks of the tensors ``node`` saved under saved_tensors_hooks, in saving order
    (called once its outputs are attached)."""
    node.ctx._hooked = False
    for s in node.ctx._saved or ():
        if s.__class__ is _HookedSavedTensor and s._pack_hook is not None:
            s.pack(node)


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor an op saves for backward in
    the block is stored as ``pack_hook(tensor)`` and handed to the backward rule as
    ``unpack_hook(packed)`` (offloading to the host, compression, recomputation...). In-place changes
    to a packed tensor are not detected, as in PyTorch."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _thread.hooks_disabled:
            raise RuntimeError(_thread.hooks_disabled[-1])
        _thread.saved_tensor_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc) -> bool:
        _thread.saved_tensor_hooks.pop()
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved tensors are kept in host memory (pinned with ``pin_memory``) and moved back to their
    device for the backward pass: activation memory on the GPU traded for copies."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(t):
            if not t.is_cuda:
                return t.device, t
            host = t.detach().to("cpu")
            return t.device, host.pin_memory() if pin_memory else host

        def unpack(packed):
            device, t = packed
            return t.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def outer_saved_tensors_hooks_suspended():
    """Inside, the saved_tensors_hooks blocks already open do not pack what ops save (blocks opened
    inside apply as usual): PyTorch's checkpoint packs a function's saved tensors with hooks of its
    own, innermost, so the user's hooks around it see only the checkpoint's inputs."""
    hooks = _thread.saved_tensor_hooks
    _thread.saved_tensor_hooks = []
    try:
        yield
    finally:
        _thread.saved_tensor_hooks = hooks


class disable_saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Inside, opening a ``saved_tensors_hooks`` block raises RuntimeError(``error_message``)."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        if _thread.saved_tensor_hooks:  # (PyTorch refuses to disable hooks while some are open)
            raise RuntimeError(self.error_message)
        _thread.hooks_disabled.append(self.error_message)
        return self

    def __exit__(self, *exc) -> bool:
        _thread.hooks_disabled.pop()
        return False


class Ctx:
    """Passed to backward rules: ``saved_tensors``, ``params``, ``inputs``, ``outputs``,
    ``needs_input_grad``. ``inputs[i]`` is a :class:`TensorMeta` for tensor inputs (a list of
    them for list inputs) and the value itself for non-tensor inputs.

    The same object is the ``ctx`` of custom :class:`~tensorlab.autograd.Function` s, which also
    use ``mark_non_differentiable``, ``set_materialize_grads`` and ``mark_dirty``.
    """

    # Defaults every ctx shares until it sets its own: one ctx is made per recorded op, so its
    # construction is on every op's path. The id sets are replaced, never changed in place.
    inputs: tuple = ()
    outputs: tuple = ()
    needs_input_grad: tuple = ()
    _saved: tuple | None = ()  # SavedTensors (None once released)
    _to_save: tuple | None = None  # Function.forward saves before outputs are known
    _stale_storage = None  # an in-place op's destination storage: saved inputs there predate the write
    released = False
    materialize_grads = True
    # Outputs no gradient reached, given to the backward as materialised zeros: a rule whose term
    # for such an output is not 0 * term (var_mean's var term is NaN for an inf input) leaves it out
    undefined_grads: frozenset = frozenset()
    _output_positions = None  # a custom Function's (number of outputs, positions of its tensor outputs)
    non_differentiable: frozenset = frozenset()
    dirty: frozenset = frozenset()
    _hooked = False  # saved tensors wait for their pack hooks (run by attach_outputs)

    def __init__(self, node: Node, params: dict):
        self._node = weakref.ref(node)
        self.params = params
        self._outputs_ids: dict | None = {}

    def save_for_backward(self, *tensors) -> None:
        if self._outputs_ids is None:  # inside Function.forward: finalised once outputs are known
            from .._tensor import Tensor

            for i, t in enumerate(tensors):
                if t is not None and not isinstance(t, Tensor):
                    raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                    f"{type(t).__name__}")
            self._to_save = tensors
            return
        saved = []
        hooks = _thread.saved_tensor_hooks
        hooks = hooks[-1] if hooks else None
        for t in tensors:
            if t is None:
                saved.append(None)
                continue
            if hooks is not None:
                saved.append(_HookedSavedTensor(t, *hooks))
                self._hooked = True
                continue
            out_nr = self._outputs_ids.get(id(t))
            version = t._storage.version
            if out_nr is None and t._storage is self._stale_storage:
                # An input of an in-place op that shares the destination's storage (the destination as
                # input 0, or x.detach() / a view of x in x.mul_(x.detach())) is saved after the write:
                # its version must be the pre-write one, else backward would use the overwritten value
                # silently (PyTorch saves before the write, and views share the version counter).
                version -= 1
            saved.append(SavedTensor(t, version, out_nr is not None, out_nr or 0))
        self._saved = tuple(saved)

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward."
            )
        node = self._node()
        return tuple(None if s is None else s.unpack(node, i) for i, s in enumerate(self._saved))

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = self.non_differentiable | {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_dirty(self, *tensors) -> None:
        self.dirty = self.dirty | {id(t) for t in tensors}

    def release(self) -> None:
        # Only a node that saved tensors refuses a second backward (PyTorch raises when a freed saved
        # tensor is unpacked): (x + 1).sum() saves none, so backward() may run through it twice.
        if self._saved:
            self._saved = None
            self.released = True


class RemovableHandle:
    """Returned by ``register_hook``: ``remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self._hooks = weakref.ref(hooks) if hooks is not None else None
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        hooks = self._hooks() if self._hooks is not None else None
        if hooks is not None:
            hooks.pop(self.id, None)

    @property
    def hooks_dict_ref(self):
        """PyTorch's attribute: a weak reference to the dict the hook is in (a dead one if none)."""
        return self._hooks if self._hooks is not None else weakref.ref(_HookDict())

    # pickle (a module pickled with its hook handles: a lazy module before its first forward) keeps the
    # dict itself, as PyTorch's handle does, and new handles get ids above the restored one
    def __getstate__(self):
        return (self._hooks() if self._hooks is not None else None, self.id)

    def __setstate__(self, state) -> None:
        hooks, self.id = state
        self._hooks = weakref.ref(hooks) if hooks is not None else None
        following = next(RemovableHandle._ids)
        RemovableHandle._ids = itertools.count(max(following, self.id + 1))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(dict):
    """dict of id -> hook (weak-referenceable, insertion-ordered)."""


def add_hook(holder_dict: _HookDict, hook) -> RemovableHandle:
    handle = RemovableHandle(holder_dict)
    holder_dict[handle.id] = hook
    return handle


class AccumulateGrad:
    """The graph's sink for a leaf tensor: adds incoming gradients to ``leaf.grad``."""

    __slots__ = ("variable", "_hooks", "_pre_hooks", "__weakref__")

    def __init__(self, leaf):
        self.variable = leaf
        self._hooks = None
        self._pre_hooks = None

    def name(self) -> str:
        return "AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        return ()

    def register_hook(self, fn) -> RemovableHandle:
        if self._hooks is None:
            self._hooks = _HookDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        return add_hook(self._pre_hooks, fn)

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"


def accumulate_grad_of(leaf) -> AccumulateGrad:
    acc = leaf._grad_accumulator() if leaf._grad_accumulator is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._grad_accumulator = weakref.ref(acc)
    return acc


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"_+", name.strip("_")) if p)


class Node:
    """One recorded op. ``next_functions[i]`` is ``(node, output_nr)`` for the i-th tensor input."""

    __slots__ = ("op", "ctx", "next_functions", "outputs_meta", "_retained", "_hooks", "_pre_hooks",
                 "_tensor_hooks", "input_structure", "inputs_meta_flat", "anomaly_trace", "__weakref__")

    def __init__(self, op, params: dict):
        self.op = op
        self.ctx = Ctx(self, params)
        self.next_functions: tuple = ()
        self.outputs_meta: tuple = ()
        self._retained: dict | None = None  # output_nr -> weakref to a tensor that retains grad
        self._hooks = None  # post hooks: fn(grad_inputs, grad_outputs)
        self._pre_hooks = None  # fn(grad_outputs)
        self._tensor_hooks = None  # output_nr -> _HookDict of Tensor.register_hook hooks
        self.input_structure: tuple = ()  # per positional input: None, "tensor" or list length
        self.inputs_meta_flat: tuple = ()  # TensorMeta per edge, to validate gradients
        self.anomaly_trace = None

    def name(self) -> str:
        if "custom_function" in self.op.tags:
            return f"{self.op.name}Backward"
        return f"{_camel(self.op.name)}Backward0"

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after this node ran; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = _HookDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` before this node runs; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        return add_hook(self._pre_hooks, fn)

    def apply(self, grads: tuple) -> tuple:
        """Run the op's backward rule; returns one gradient per edge (flattened inputs)."""
        ctx = self.ctx
        if ctx.released:
            _ = ctx.saved_tensors  # raises the "backward a second time" error
        result = self.op.backward(ctx, *grads)
        if not isinstance(result, tuple | list):
            result = (result,)
        if len(result) != len(self.input_structure):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{len(self.input_structure)}, got {len(result)})"
            )
        flat = []
        for kind, g in zip(self.input_structure, result):
            if kind is None:
                continue
            if kind == "tensor":
                flat.append(g)
            else:
                flat.extend([None] * kind if g is None else list(g))
        return tuple(self._validate(i, g) for i, g in enumerate(flat))

    def _validate(self, index: int, g):
        """PyTorch's validate_outputs: a gradient has its input's shape (one the input's shape broadcasts
        to is summed down to it); its dtype is converted."""
        if g is None or index >= len(self.inputs_meta_flat):
            return g
        meta = self.inputs_meta_flat[index]
        if tuple(g._shape) != tuple(meta.shape) and _broadcasts_to(tuple(meta.shape), tuple(g._shape)):
            g = g.sum_to_size(tuple(meta.shape))
        if tuple(g._shape) != tuple(meta.shape):
            raise RuntimeError(
                f"Function {self.name()} returned an invalid gradient at index {index} - got {list(g._shape)} but "
                f"expected shape compatible with {list(meta.shape)}"
            )
        if g.dtype is not meta.dtype and meta.dtype.is_floating_point:
            g = g.to(meta.dtype)
        if g.device != meta.device:
            raise RuntimeError(
                f"Function {self.name()} returned an invalid gradient at index {index} - expected device "
                f"{meta.device} but got {g.device}"
            )
        return g


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    return all(a in (1, b) for a, b in zip(reversed(shape), reversed(target), strict=False))


def _flatten_inputs(inputs):
    """(structure, flat tensors) for positional inputs that may hold lists of tensors."""
    from .._tensor import Tensor

    structure, flat = [], []
    for x in inputs:
        if isinstance(x, Tensor):
            structure.append("tensor")
            flat.append(x)
        elif isinstance(x, list | tuple) and x and all(isinstance(y, Tensor) for y in x):
            structure.append(len(x))
            flat.extend(x)
        else:
            structure.append(None)
    return tuple(structure), flat


def _meta_of(x):
    from .._tensor import Tensor

    if isinstance(x, Tensor):
        return TensorMeta(x)
    if isinstance(x, list | tuple) and x and all(isinstance(y, Tensor) for y in x):
        return [TensorMeta(y) for y in x]
    return x


def _edge_of(t) -> tuple:
    if not t._requires_grad:
        return (None, 0)
    if t._view_version is not None and t._view_version != t._storage.version:
        regenerate_view_grad_fn(t)  # (Tensor._refresh_grad_fn, inlined: this is on every op's path)
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    return (accumulate_grad_of(t), 0)


def _node_class(op) -> type:
    """The Node subclass of ``op``'s recordings, named as PyTorch names its backward nodes
    (``type(y.grad_fn).__name__`` is ``"AddBackward0"``); made on the op's first recording and kept
    on the op (``OpDef.node_class``)."""
    name = f"{op.name}Backward" if "custom_function" in op.tags else f"{_camel(op.name)}Backward0"
    if not name.isidentifier():
        name = "Node"
    op.node_class = type(name, (Node,), {"__slots__": (), "__module__": "tensorlab.autograd.graph"})
    return op.node_class


def new_node(op, inputs, params: dict) -> Node:
    """A node for ``op`` applied to ``inputs``: edges, input metadata (outputs are set later)."""
    from .._tensor import Tensor

    cls = op.node_class
    if cls is None:
        cls = _node_class(op)
    node = cls(op, params)
    structure, edges, metas, ctx_inputs, needs = [], [], [], [], []
    for x in inputs:  # one pass: structure, edges and metadata of every (possibly listed) tensor input
        if isinstance(x, Tensor):
            m = TensorMeta(x)
            structure.append("tensor")
            edges.append(_edge_of(x))
            metas.append(m)
            ctx_inputs.append(m)
            needs.append(m.requires_grad)
        elif isinstance(x, list | tuple) and x and all(isinstance(y, Tensor) for y in x):
            ms = [TensorMeta(y) for y in x]
            structure.append(len(x))
            edges.extend(_edge_of(y) for y in x)
            metas.extend(ms)
            ctx_inputs.append(ms)
            needs.append(any(m.requires_grad for m in ms))
        else:
            structure.append(None)
            ctx_inputs.append(x)
            needs.append(False)
    node.input_structure = tuple(structure)
    node.next_functions = tuple(edges)
    node.inputs_meta_flat = tuple(metas)
    ctx = node.ctx
    ctx.inputs = tuple(ctx_inputs)
    ctx.needs_input_grad = tuple(needs)
    if _anomaly["enabled"]:
        import traceback

        node.anomaly_trace = "".join(traceback.format_stack(limit=14)[:-3])
    return node


def attach_outputs(node: Node, outputs) -> None:
    """Make ``node`` the ``grad_fn`` of its floating outputs."""
    node.outputs_meta = tuple(TensorMeta(o) for o in outputs)
    node.ctx.outputs = node.outputs_meta
    for i, o in enumerate(outputs):
        if o.dtype.is_floating_point and id(o) not in node.ctx.non_differentiable:
            if o._retains_grad:
                _move_retained(o, node, i)
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = i
    # Outputs saved for backward were saved before they got requires_grad above; mark the saved
    # copies now, so unpacking reattaches them to this node (double backward through e.g. exp).
    for s in node.ctx._saved or ():
        if s is not None and s.is_output and s.output_nr < len(outputs):
            s.tensor._requires_grad = outputs[s.output_nr]._requires_grad
    if node.ctx._hooked:
        _pack_saved(node)


def _move_retained(t, node: Node, output_nr: int) -> None:
    """``t`` retains its grad and gets a new grad_fn (an in-place op, a view's new history): as
    PyTorch, its ``.grad`` is then the gradient of its new value, not of the value it had."""
    old = t.grad_fn
    if old is not None and old._retained:
        ref = old._retained.get(t._output_nr)
        if ref is not None and ref() is t:
            del old._retained[t._output_nr]
    if node._retained is None:
        node._retained = {}
    node._retained[output_nr] = weakref.ref(t)


def record(op, inputs, outputs, params, inplace: bool = False) -> None:
    """Called by the dispatcher: attach a Node for ``op`` to ``outputs``."""
    if op.backward is None:
        return
    node = new_node(op, inputs, params)
    ctx = node.ctx
    ctx._outputs_ids = {id(o): i for i, o in enumerate(outputs)}
    save_inputs = list(inputs)
    if inplace:
        # The destination is both input 0 and output 0. As an input its old value is gone, so
        # a rule that saves "input 0" gets a stand-in whose version predates the write.
        from .._tensor import Tensor

        dst = inputs[0]
        stand_in = Tensor._make(dst._storage, dst._shape, dst._stride, dst._offset, dst.dtype)
        stand_in._requires_grad = dst._requires_grad
        ctx._stale_storage = dst._storage
        # (every place the destination stands, not only input 0: in y.addcmul_(y, t) the rule
        # saves input 1, which must also be the pre-write y, not the output)
        save_inputs = [stand_in if x is dst else x for x in save_inputs]
    if op.save is not None:
        op.save(ctx, tuple(save_inputs), tuple(outputs), params)
    else:
        ctx.save_for_backward(*_flatten_inputs(save_inputs)[1])
    attach_outputs(node, outputs)
    if inplace and outputs and outputs[0]._base is not None:
        rebase_view(outputs[0])


# ----------------------------------------------------------------------------------------------
# in-place ops on views: rebase the base's history (PyTorch's CopySlices)
# ----------------------------------------------------------------------------------------------


def _copy_slices_backward(ctx, g):
    """Gradient of ``base_new = base_old with region := view_new``."""
    from .._copy_ops import region_write_grads

    base_stride = ctx.params.get("base_stride")
    if base_stride is not None:
        return _copy_slices_backward_strided(ctx, g, base_stride)
    p = ctx.params
    return region_write_grads(g, p["size"], p["stride"], p["storage_offset"], ctx.needs_input_grad)


def _copy_slices_backward_strided(ctx, g, base_stride):
    """:func:`_copy_slices_backward` for a base laid out with ``base_stride`` (transposed, sliced with
    steps): the view's elements are found among the base's by storage position, and the gradient
    moves with index_select/index_fill (differentiable again)."""
    import numpy as np

    from .._factories import tensor
    from .._views import _positions

    p = ctx.params
    base_shape = ctx.inputs[0].shape
    at_base = _positions(base_shape, base_stride, 0)
    order = np.argsort(at_base, kind="stable")
    at_view = _positions(p["size"], p["stride"], p["storage_offset"])
    index = tensor(order[np.searchsorted(at_base[order], at_view)], device=g.device)
    g_flat = g.reshape(-1)
    g_view = g_flat.index_select(0, index).reshape(p["size"]) if ctx.needs_input_grad[1] else None
    g_base = g_flat.index_fill(0, index, 0).reshape(base_shape) if ctx.needs_input_grad[0] else None
    return g_base, g_view


_COPY_SLICES = None


def _copy_slices_op():
    global _COPY_SLICES
    if _COPY_SLICES is None:
        from .._registry import OpDef

        # Bookkeeping only: nothing is computed forward (the write already happened).
        _COPY_SLICES = OpDef("copy_slices", custom=lambda *a, **k: None, backward=_copy_slices_backward,
                             save=lambda ctx, inputs, outputs, params: None, tags={"autograd"})
    return _COPY_SLICES


def rebase_view(view) -> None:
    """After an in-place op on ``view``, give its base a CopySlices node and re-view the view."""
    from .._tensor import Tensor
    from .._views import _overlaps

    base = view._base
    contiguous = base.is_contiguous()
    if not contiguous and _overlaps(base._shape, base._stride):
        raise NotImplementedError(  # (a base whose elements share memory cannot be written in place anyway)
            "autograd of an in-place operation on a view of a base tensor whose elements overlap in memory "
            f"(shape {list(base._shape)}, strides {list(base._stride)}) is not supported; clone() the base first")
    size, stride = tuple(view._shape), tuple(view._stride)
    offset = view._offset - base._offset
    view._view_version = view._storage.version  # (its grad_fn, the in-place op's node, is its current value's)
    # The base's previous value, as autograd saw it, is the first input. (A base that is a leaf
    # requiring grad never gets here: the dispatcher refuses in-place writes into its views.)
    old_base = Tensor._make(base._storage, base._shape, base._stride, base._offset, base.dtype)
    old_base._requires_grad = base._requires_grad
    old_base.grad_fn, old_base._output_nr = base.grad_fn, base._output_nr
    node = new_node(_copy_slices_op(), (old_base, view), {"size": size, "stride": stride, "storage_offset": offset,
                                                          "base_stride": None if contiguous else tuple(base._stride)})
    node.ctx._saved = ()
    attach_outputs(node, (base,))
    # The view now reads the new base.
    from .._views import AS_STRIDED

    view_node = new_node(AS_STRIDED, (base,), {"size": size, "stride": stride,
                                               "storage_offset": base._offset + offset,
                                               "_input_offset": base._offset, "_input_contiguous": contiguous,
                                               "_input_stride": None if contiguous else tuple(base._stride)})
    view_node.ctx._saved = ()
    attach_outputs(view_node, (view,))
    view._view_version = view._storage.version


def promote_view(view) -> bool:
    """Whether ``view`` requires grad now. A view made in grad mode of a tensor that did not require
    grad keeps the storage version it saw (``_view_version``); when its base has come to require
    grad since (an in-place write of a tensor that does: ``buf[1:] = w``, ``buf.add_(w)``), the
    view does too, as in PyTorch (a view requires grad when its base does), with an as_strided of
    the base's history as its grad_fn. The dispatcher asks for every view input that does not
    require grad (one attribute test for every other tensor)."""
    version = view._storage.version
    if view._view_version == version:
        return False
    base = view._base
    if base is None or not base._requires_grad:
        view._view_version = version  # (checked again after the next write only)
        return False
    regenerate_view_grad_fn(view)
    return view._requires_grad


def regenerate_view_grad_fn(view) -> None:
    """The storage under a differentiable view was written since its grad_fn was made (an in-place
    op on the base or on another view of it): its value is now the base's region, so, as PyTorch,
    its grad_fn becomes an as_strided of the base's current history."""
    from .._views import AS_STRIDED

    base = view._base
    contiguous = base.is_contiguous()
    view_node = new_node(AS_STRIDED, (base,), {
        "size": tuple(view._shape), "stride": tuple(view._stride), "storage_offset": view._offset,
        "_input_offset": base._offset, "_input_contiguous": contiguous,
        "_input_stride": None if contiguous else tuple(base._stride)})
    view_node.ctx._saved = ()
    attach_outputs(view_node, (view,))
    view._view_version = view._storage.version


# ----------------------------------------------------------------------------------------------
# anomaly detection switch (the engine checks it)
# ----------------------------------------------------------------------------------------------

_anomaly = {"enabled": False, "check_nan": True}


def anomaly_enabled() -> bool:
    return _anomaly["enabled"]


# ----------------------------------------------------------------------------------------------
# the engine
# ----------------------------------------------------------------------------------------------


def _topological_order(roots) -> list:
    """Nodes reachable from ``roots`` so that every node comes before the nodes it feeds."""
    order, seen = [], set()
    for root in roots:
        if root is None or id(root) in seen:
            continue
        stack = [(root, iter(getattr(root, "next_functions", ())))]
        seen.add(id(root))
        while stack:
            node, it = stack[-1]
            advanced = False
            for nxt, _ in it:
                if nxt is not None and id(nxt) not in seen:
                    seen.add(id(nxt))
                    stack.append((nxt, iter(getattr(nxt, "next_functions", ()))))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    from .. import add

    return add(a, b)


def _zeros_for(meta):
    from .._factories import zeros

    return zeros(meta.shape, dtype=meta.dtype, device=meta.device)


def _call_hooks(hooks, value):
    if hooks:
        for hook in list(hooks.values()):
            new = hook(value)
            if new is not None:
                _check_hook_result(hook, value, new)
                value = new
    return value


def _check_hook_result(hook, old, new) -> None:
    """PyTorch's check of a tensor hook's result: a tensor of the gradient's shape, dtype and device
    (a float32 gradient for a float64 leaf would otherwise become its .grad)."""
    from .._tensor import Tensor

    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._shape != old._shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was {list(old._shape)} got "
                           f"{list(new._shape)})")
    if new.dtype is not old.dtype or new.device != old.device:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.dtype} on {old.device} got "
                           f"{new.dtype} on {new.device})")


def engine_calls() -> list:
    """This thread's user-level engine calls running now (see :class:`_ThreadState`)."""
    return _thread.engine_calls


def run_backward(roots, grad_roots, retain_graph: bool, create_graph: bool, inputs=None,
                 accumulate: bool = True, internal: bool = False):
    """Propagate ``grad_roots`` from ``roots`` (tensors). With ``accumulate`` the leaves'
    ``.grad`` receive the gradients. Returns the gradients that reached ``inputs`` (in order;
    None where nothing arrived). ``internal``: a call made by the framework on behalf of the
    running one (a checkpoint's recomputation), not listed in :func:`engine_calls`."""
    if internal:
        return _run_backward(roots, grad_roots, retain_graph, create_graph, inputs, accumulate)
    calls = _thread.engine_calls
    calls.append(accumulate and inputs is None)
    try:
        return _run_backward(roots, grad_roots, retain_graph, create_graph, inputs, accumulate)
    finally:
        calls.pop()


def _run_backward(roots, grad_roots, retain_graph: bool, create_graph: bool, inputs, accumulate: bool):
    buffers: dict[int, list] = {}
    targets = None
    target_keys = []  # one per input, in order (an input may be listed twice)
    captured: dict[tuple[int, int], object] = {}
    keep_alive = []  # accumulators created here must outlive the ids used as keys
    if inputs is not None:
        targets = {}
        for t in inputs:
            if t.grad_fn is not None:
                key = (id(t.grad_fn), t._output_nr)
            else:
                acc = accumulate_grad_of(t)
                keep_alive.append(acc)
                key = (id(acc), 0)
            targets[key] = t
            target_keys.append(key)

    # Storages of the gradients handed in (the user's, for backward(gradient=G)): a leaf's .grad
    # never aliases them, else accumulating into it in place would change G.
    root_storages = {id(g._storage) for g in grad_roots if g is not None}
    start = []
    for t, g in zip(roots, grad_roots):
        node = t.grad_fn if t.grad_fn is not None else accumulate_grad_of(t)
        keep_alive.append(node)
        start.append(node)
        nr = t._output_nr if t.grad_fn is not None else 0
        buf = buffers.setdefault(id(node), [None] * max(len(getattr(node, "outputs_meta", ())), 1))
        buf[nr] = _add(buf[nr], g)

    order = _topological_order(start)
    # autograd.grad(outputs, inputs) runs only the nodes on a path to an input, as PyTorch's engine:
    # the rest of the graph keeps its saved tensors and its hooks do not fire (backward(inputs=...)
    # runs everything, as PyTorch's)
    useful = None if accumulate or targets is None else _nodes_leading_to({key[0] for key in targets}, order)
    # (backward ops run in their forward ops' dtypes, not autocast's, as PyTorch's)
    suspend_autocast = _autocast_suspended() if _dispatch.AUTOCAST else _NO_CONTEXT
    with grad_mode.set_grad_enabled(bool(create_graph)), suspend_autocast:
        for node in order:
            if useful is not None and id(node) not in useful:
                continue
            buf = buffers.pop(id(node), None)
            if buf is None:
                continue
            if isinstance(node, AccumulateGrad):
                g = buf[0]
                key = (id(node), 0)
                if targets is not None and key not in targets:
                    continue  # backward(inputs=...) accumulates only into those
                foreign = False
                if g is not None:
                    leaf_dtype = node.variable.dtype
                    if g.dtype is not leaf_dtype and leaf_dtype.is_floating_point:
                        # PyTorch's validate_outputs: a gradient takes the dtype of the tensor it is for
                        # (a float64 gradient handed in, or from a saved tensor that a hook made float64)
                        g = g.to(leaf_dtype)
                    # The leaf's hooks run before its gradient is captured, so autograd.grad(y, leaf)
                    # returns the hooked gradient, as PyTorch.
                    raw = g
                    g = _call_hooks(node.variable._hooks, g)
                    g = _call_hooks(node._pre_hooks, g)
                    foreign = g is not raw or id(g._storage) in root_storages  # a tensor someone else may hold
                if targets is not None:
                    captured[key] = g
                if g is not None and accumulate:
                    _accumulate_into_leaf(node, g, create_graph, foreign)
                continue
            grads = _prepare_grads(node, buf)
            # retain_grad() tensors get every gradient that reaches them, autograd.grad's too (PyTorch)
            retained = ()  # (a list only for the few nodes with retained outputs: no allocation per node)
            if node._retained:
                retained = []
                for i, ref in node._retained.items():
                    t = ref()
                    if t is not None and grads[i] is not None:
                        _set_non_leaf_grad(t, grads[i], create_graph)
                        retained.append(t)
            if targets is not None:
                for i, g in enumerate(grads):
                    key = (id(node), i)
                    if key in targets:
                        captured[key] = g
                        t = targets[key]
                        if accumulate and g is not None and not any(r is t for r in retained):  # (once)
                            _set_non_leaf_grad(t, g, create_graph)
                if useful is not None and not any(id(n) in useful for n, _ in node.next_functions if n is not None):
                    continue  # an input's own node, with no other input below it: nothing more to compute
            if node._pre_hooks:
                for hook in list(node._pre_hooks.values()):
                    new = hook(grads)
                    if new is not None:
                        grads = _checked_hook_result(hook, new, len(grads))
            in_grads = node.apply(grads)
            if node._hooks:
                for hook in list(node._hooks.values()):
                    new = hook(in_grads, grads)
                    if new is not None:
                        in_grads = _checked_hook_result(hook, new, len(in_grads))
            _check_anomaly(node, in_grads)
            if not retain_graph:
                node.ctx.release()
            for (nxt, nr), g in zip(node.next_functions, in_grads):
                if nxt is None or g is None:
                    continue
                b = buffers.get(id(nxt))
                if b is None:
                    b = buffers[id(nxt)] = [None] * max(len(getattr(nxt, "outputs_meta", ())), 1)
                b[nr] = _add(b[nr], g)
    if targets is None:
        return []
    return [captured.get(key) for key in target_keys]


def _checked_hook_result(hook, result, expected: int) -> tuple:
    """A node hook's replacement gradients: a tuple of as many values as it was given (PyTorch's
    check; fewer would silently drop gradients, more be ignored)."""
    if not isinstance(result, tuple):
        raise TypeError(f"hook '{getattr(hook, '__name__', hook)}' returned {type(result).__name__}: a node hook "
                        "must return a tuple of gradients or None")
    if len(result) != expected:
        raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {expected})")
    return result


def _nodes_leading_to(target_ids: set, order: list) -> set:
    """The ids of the nodes in ``order`` (topological: a node before those it feeds) from which a
    node of ``target_ids`` can be reached (those nodes included)."""
    useful = set()
    for node in reversed(order):
        if id(node) in target_ids or any(n is not None and id(n) in useful
                                         for n, _ in getattr(node, "next_functions", ())):
            useful.add(id(node))
    return useful


def _prepare_grads(node: Node, buf: list) -> tuple:
    """Apply tensor hooks, and materialise missing gradients as zeros: of floating outputs, and of
    every output of a custom Function (its backward gets a zero for an integer output too, as PyTorch's)."""
    grads = []
    materialize = node.ctx.materialize_grads
    custom = "custom_function" in node.op.tags
    undefined = []
    for i, meta in enumerate(node.outputs_meta):
        g = buf[i] if i < len(buf) else None
        if g is None:
            if (meta.dtype.is_floating_point or custom) and materialize:
                g = _zeros_for(meta)
                undefined.append(i)
        elif g.dtype is not meta.dtype and meta.dtype.is_floating_point:
            g = g.to(meta.dtype)  # (as for a leaf: the output's own dtype, PyTorch's validate_outputs)
        if g is not None and node._tensor_hooks and i in node._tensor_hooks:
            g = _call_hooks(node._tensor_hooks[i], g)
        grads.append(g)
    if undefined or node.ctx.undefined_grads:
        node.ctx.undefined_grads = frozenset(undefined)
    return tuple(grads)


_LEAF_GRAD_STORAGES: weakref.WeakSet = weakref.WeakSet()  # storages that back some leaf's .grad
# Held while a .grad is read and written back: threads running backward into a shared leaf (or a
# retained non-leaf) at once must each add their gradient, as PyTorch's AccumulateGrad (its mutex)
_GRAD_LOCK = threading.Lock()


def _set_non_leaf_grad(t, g, create_graph: bool) -> None:
    """A retained (or backward(inputs=)) non-leaf's .grad: a copy at first, as PyTorch's retain_grad,
    since the same gradient flows on and may become a leaf's .grad; then sums."""
    if not create_graph:
        g = g.detach()
    with _GRAD_LOCK:
        t.grad = g.clone() if t._grad is None else _add(t._grad, g)


def _accumulate_into_leaf(acc: AccumulateGrad, g, create_graph: bool, foreign: bool = False) -> None:
    leaf = acc.variable
    if not create_graph:
        g = g.detach()
    if g._shape != leaf._shape:
        raise RuntimeError(f"gradient shape {list(g._shape)} does not match leaf shape {list(leaf._shape)}")
    with _GRAD_LOCK:
        old = leaf._grad
        if old is None:
            layout = _grad_layout(leaf)
            if foreign or g._stride != layout or g._storage in _LEAF_GRAD_STORAGES:
                # PyTorch's AccumulateGrad contract: each leaf's .grad is a dense tensor of its own, laid
                # out as the leaf (contiguous for a leaf that is not dense). Backward rules return
                # expanded (stride-0) views, results laid out as permuted operands, and hand one tensor
                # to several inputs (add), so an in-place update of one .grad (clip_grad_norm_, an
                # optimizer, p.grad.mul_, the in-place accumulation below) would change another.
                # (Under create_graph the copy is recorded.)
                g = _copy_in_layout(g, layout)
            leaf.grad = g
            _LEAF_GRAD_STORAGES.add(g._storage)
        elif create_graph:
            leaf.grad = _add(old, g)  # out of place: the sum is part of the graph
        else:
            # In place, as PyTorch's AccumulateGrad without create_graph: a .grad the user holds or
            # assigned (a view of a flat gradient buffer) receives the sum, and nothing is allocated.
            old.add_(g)
    if acc._hooks:
        for hook in list(acc._hooks.values()):
            hook(leaf)
    hooks = leaf._post_accumulate_grad_hooks
    if hooks:
        for hook in list(hooks.values()):
            result = hook(leaf)
            if result is not None and result is not leaf:
                # PyTorch 2.15 lets the hook return the leaf itself (``lambda p: p.add_(...)``, its own
                # docs' example); anything else is checked as a tensor hook's result, then refused
                _check_hook_result(hook, leaf, result)
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _grad_layout(leaf) -> tuple:
    """The strides a leaf's ``.grad`` gets: the leaf's own when it is dense (a channels-last or
    transposed parameter's gradient is laid out as it), else contiguous ones (PyTorch's
    ``obeys_layout_contract``)."""
    strides = leaf._stride
    if strides == contiguous_strides(leaf._shape):
        return strides
    from .._layout import non_overlapping_and_dense

    return strides if non_overlapping_and_dense(leaf._shape, strides) else contiguous_strides(leaf._shape)


def _copy_in_layout(g, strides: tuple):
    """A copy of ``g`` with ``strides`` (recorded when ``g`` is in a graph)."""
    from .._layout import contiguous_format

    if strides == contiguous_strides(g._shape):
        return g.clone(memory_format=contiguous_format)
    from .._dispatch import empty_tensor

    return empty_tensor(g._shape, g.dtype, g._storage.device, strides).copy_(g)


def _check_anomaly(node: Node, in_grads) -> None:
    if not anomaly_enabled() or not _anomaly["check_nan"]:
        return
    import numpy as np

    for i, g in enumerate(in_grads):
        if g is None or not g.dtype.is_floating_point:
            continue
        if np.isnan(g.detach()._host_array().astype(np.float64)).any():
            msg = (f"Function '{node.name()}' returned nan values in its {i}th output (the gradient of input {i} of "
                   f"the forward op '{node.op.name}').")
            if node.anomaly_trace:
                msg += "\nTraceback of the forward call that created it:\n" + node.anomaly_trace
            raise RuntimeError(msg)
