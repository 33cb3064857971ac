"""The tape: nodes that name registered ops, and the engine that walks them backwards.

As plain as micrograd. The dispatcher calls :func:`record` after every differentiable op
whose inputs require grad; it creates a :class:`Node` that holds the :class:`OpDef`, a
:class:`Ctx` (saved tensors, params, input metadata) and one edge per tensor input: the
input's own ``grad_fn`` or, for a leaf, its :class:`AccumulateGrad`. :func:`run_backward`
orders the reachable nodes topologically, calls each op's registered backward rule (itself
made of registered ops, so double backward works), sums gradients per edge and deposits them
in leaves' ``.grad``. Saved tensors are dropped as soon as a node has run, unless
``retain_graph``; a saved tensor modified in place since it was saved raises on use.
"""

from __future__ import annotations

import re
import weakref

from . import grad_mode


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
                f"[{t.dtype.name}{list(t._shape)}], which is output {index} of {node.name()}, is at version "
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


class Ctx:
    """Passed to backward rules: ``saved_tensors``, ``params``, ``inputs``, ``outputs``,
    ``needs_input_grad``. ``inputs[i]`` is a :class:`TensorMeta` for tensor inputs (a list of
    them for list inputs) and the value itself for non-tensor inputs."""

    def __init__(self, node: Node, params: dict):
        self._node = weakref.ref(node)
        self.params = params
        self.inputs: tuple = ()
        self.outputs: tuple = ()
        self.needs_input_grad: tuple = ()
        self._saved: list | None = []
        self._outputs_ids: dict = {}
        self._stale_ids: set = set()
        self.released = False

    def save_for_backward(self, *tensors) -> None:
        saved = []
        for t in tensors:
            if t is None:
                saved.append(None)
                continue
            out_nr = self._outputs_ids.get(id(t))
            version = t._storage.version
            if id(t) in self._stale_ids:
                version -= 1  # the in-place destination as an input: its pre-op value is gone
            saved.append(SavedTensor(t, version, out_nr is not None, out_nr or 0))
        self._saved = saved

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

    def release(self) -> None:
        self._saved = None
        self.released = True


class AccumulateGrad:
    """The graph's sink for a leaf tensor: adds incoming gradients to ``leaf.grad``."""

    __slots__ = ("variable", "_pre_hooks", "__weakref__")

    def __init__(self, leaf):
        self.variable = leaf
        self._pre_hooks = None

    def name(self) -> str:
        return "AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        return ()

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
                 "input_structure", "anomaly_trace", "__weakref__")

    def __init__(self, op, params: dict):
        self.op = op
        self.ctx = Ctx(self, params)
        self.next_functions: tuple = ()
        self.outputs_meta: tuple = ()
        self._retained: dict | None = None  # output_nr -> weakref to a tensor that retains grad
        self._hooks = None
        self._pre_hooks = None
        self.input_structure: tuple = ()  # per positional input: None, "tensor" or list length
        self.anomaly_trace = None

    def name(self) -> str:
        return f"{_camel(self.op.name)}Backward0"

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    def apply(self, grads: tuple) -> tuple:
        """Run the op's backward rule; returns one gradient per edge (flattened inputs)."""
        ctx = self.ctx
        if ctx.released:
            _ = ctx.saved_tensors  # raises the "backward a second time" error
        result = self.op.backward(ctx, *grads)
        if not isinstance(result, tuple | list):
            result = (result,)
        flat = []
        if len(result) != len(self.input_structure):
            raise RuntimeError(
                f"backward rule of {self.op.name} returned {len(result)} gradients, expected "
                f"{len(self.input_structure)} (one per input)"
            )
        for kind, g in zip(self.input_structure, result):
            if kind is None:
                continue
            if kind == "tensor":
                flat.append(g)
            else:
                gs = [None] * kind if g is None else list(g)
                flat.extend(gs)
        return tuple(flat)


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


def record(op, inputs, outputs, params, inplace: bool = False) -> None:
    """Called by the dispatcher: attach a Node for ``op`` to ``outputs``."""
    if op.backward is None:
        return
    structure, flat = _flatten_inputs(inputs)
    node = Node(op, params)
    node.input_structure = structure
    edges = []
    for t in flat:
        if not t._requires_grad:
            edges.append((None, 0))
        elif t.grad_fn is not None:
            edges.append((t.grad_fn, t._output_nr))
        else:
            edges.append((accumulate_grad_of(t), 0))
    node.next_functions = tuple(edges)
    ctx = node.ctx
    ctx.inputs = tuple(_meta_of(x) for x in inputs)
    ctx.needs_input_grad = tuple(
        (m.requires_grad if hasattr(m, "requires_grad") else any(y.requires_grad for y in m))
        if isinstance(m, TensorMeta | list) else False
        for m in ctx.inputs
    )
    node.outputs_meta = tuple(TensorMeta(o) for o in outputs)
    ctx.outputs = node.outputs_meta
    ctx._outputs_ids = {id(o): i for i, o in enumerate(outputs)}

    save_inputs = list(inputs)
    if inplace:
        # The destination is both input 0 and output 0. As an input its old value is gone, so
        # a rule that saves "input 0" gets a stand-in whose version predates the write.
        from .._tensor import Tensor

        dst = inputs[0]
        stand_in = Tensor._make(dst._storage, dst._shape, dst._stride, dst._offset, dst.dtype)
        stand_in._requires_grad = dst._requires_grad
        ctx._stale_ids = {id(stand_in)}
        save_inputs[0] = stand_in
    if op.save is not None:
        op.save(ctx, tuple(save_inputs), tuple(outputs), params)
    else:
        ctx.save_for_backward(*[t for t in _flatten_inputs(save_inputs)[1]])

    if anomaly_enabled():
        import traceback

        node.anomaly_trace = "".join(traceback.format_stack(limit=12)[:-3])

    for i, o in enumerate(outputs):
        if o.dtype.is_floating_point:
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = i
            if inplace:
                o._retains_grad = o._retains_grad  # unchanged; the history is rebased onto `node`


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


def run_backward(roots, grad_roots, retain_graph: bool, create_graph: bool, inputs=None,
                 accumulate: bool = True):
    """Propagate ``grad_roots`` from ``roots`` (tensors). With ``accumulate`` the leaves'
    ``.grad`` receive the gradients. Returns the gradients that reached ``inputs`` (in order;
    None where nothing arrived)."""
    # Where gradients enter: (node, output_nr) per root.
    buffers: dict[int, list] = {}
    nodes_by_id: dict[int, object] = {}
    targets = None
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

    start = []
    for t, g in zip(roots, grad_roots):
        node = t.grad_fn if t.grad_fn is not None else accumulate_grad_of(t)
        start.append(node)
        nodes_by_id[id(node)] = node
        buf = buffers.setdefault(id(node), [None] * max(len(getattr(node, "outputs_meta", ())), 1))
        buf[t._output_nr if t.grad_fn is not None else 0] = _add(buf[t._output_nr if t.grad_fn is not None else 0], g)

    order = _topological_order(start)
    # Only nodes that lead to something we need must run.
    with grad_mode.set_grad_enabled(create_graph):
        for node in order:
            buf = buffers.pop(id(node), None)
            if buf is None:
                continue
            if isinstance(node, AccumulateGrad):
                g = buf[0]
                key = (id(node), 0)
                if targets is not None:
                    if key not in targets:
                        continue  # backward(inputs=...) accumulates only into those
                    captured[key] = g
                if g is not None and accumulate:
                    _accumulate_into_leaf(node, g, create_graph)
                continue
            # Capture gradients flowing into requested non-leaf tensors.
            if targets is not None:
                for i, g in enumerate(buf):
                    key = (id(node), i)
                    if key in targets:
                        captured[key] = g
                        if accumulate and g is not None:
                            t = targets[key]
                            g = g if create_graph else g.detach()
                            t.grad = g if t.grad is None else _add(t.grad, g)
            grads = _prepare_grads(node, buf)
            if node._retained:
                for i, ref in node._retained.items():
                    t = ref()
                    if t is not None and grads[i] is not None:
                        g = grads[i] if create_graph else grads[i].detach()
                        t.grad = g if t.grad is None else _add(t.grad, g)
            if node._hooks:
                for hook in node._hooks:
                    hook(node, grads)
            in_grads = node.apply(grads)
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
    # gradients for ``inputs``, in order
    return [captured.get(key) for key in targets]


def _prepare_grads(node: Node, buf: list) -> tuple:
    """Apply tensor hooks, and materialise missing gradients of floating outputs as zeros."""
    grads = []
    for i, meta in enumerate(node.outputs_meta):
        g = buf[i] if i < len(buf) else None
        if g is None and meta.dtype.is_floating_point:
            g = _zeros_for(meta)
        if g is not None and node._pre_hooks:
            for out_nr, hook in node._pre_hooks:
                if out_nr == i:
                    new = hook(g)
                    if new is not None:
                        g = new
        grads.append(g)
    return tuple(grads)


def _accumulate_into_leaf(acc: AccumulateGrad, g, create_graph: bool) -> None:
    leaf = acc.variable
    if acc._pre_hooks:
        for hook in acc._pre_hooks:
            new = hook(g)
            if new is not None:
                g = new
    if not create_graph:
        g = g.detach()
    if g._shape != leaf._shape:
        raise RuntimeError(f"gradient shape {list(g._shape)} does not match leaf shape {list(leaf._shape)}")
    leaf.grad = g if leaf.grad is None else _add(leaf.grad, g)


def _check_anomaly(node: Node, in_grads) -> None:
    if not anomaly_enabled() or not _anomaly["check_nan"]:
        return
    from .. import isnan

    for g in in_grads:
        if g is not None and g.dtype.is_floating_point and bool(isnan(g).any()):
            msg = f"Function '{node.name()}' returned nan values in its gradient (forward op: {node.op.name})."
            if node.anomaly_trace:
                msg += "\nForward call that created it:\n" + node.anomaly_trace
            raise RuntimeError(msg)
