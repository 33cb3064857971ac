"""Activation checkpointing, as ``torch.utils.checkpoint``: trade compute for memory.

A checkpointed ``function`` keeps none of its intermediate tensors for backward: its inputs are
kept, and backward runs it again, with the random-generator states the forward saw (so dropout
draws the same mask), to get the graph it then differentiates. PyTorch's two variants:

- ``use_reentrant=True`` is PyTorch's ``CheckpointFunction``: a custom Function whose forward
  runs under ``no_grad`` and whose backward recomputes on detached inputs and calls
  ``tensorlab.autograd.backward`` from inside the running backward (tensorlab's engine keeps no
  state between calls, so a nested call is safe). That nested call accumulates into the ``.grad``
  of every leaf the function reads (module parameters); the detached inputs' ``.grad`` are the
  gradients the Function returns. As in PyTorch, only tensors passed positionally take part,
  nothing gets a gradient when none of them requires grad, ``autograd.grad`` /
  ``backward(inputs=...)`` are refused (the nested call would fill ``.grad`` of parameters), and
  ``backward(create_graph=True)`` gives gradients without history (the nested call does not
  create a graph).
- ``use_reentrant=False``: the gradients of the tensors the function reads reach them through
  the graph, so ``autograd.grad``, ``backward(inputs=...)``, keyword arguments, tensors inside
  lists/tuples/dicts, inputs that do not require grad (handed to the function as they are) and
  double backward all work. PyTorch records the forward and swaps every saved tensor for a
  recompute handle (saved-tensor hooks); here the forward is recorded on detached inputs only to
  find which tensors outside the function it depends on (the leaves it reaches, such as
  parameters, and the nodes of an outer graph that closed-over non-leaf tensors come from) and what
  it saved for backward. That graph is then dropped, its saved activations with it, and one node
  stands for the function, with an edge to each input and to each of those tensors. Its backward
  recomputes, redirects the recomputed graph's edges to those tensors into stand-in leaves, and
  runs the engine over the recomputed graph alone. Under ``create_graph=True`` the recomputation's
  inputs carry the autograd identity of the real inputs, the engine keeps the recomputed graph and
  its edges are pointed back at the real tensors afterwards, so the gradients it returns are
  differentiable with respect to the inputs, parameters and outer tensors (nested checkpoints and
  ``grad(checkpoint(grad(...)))`` included).

Both replay the autocast settings of the forward in the recomputation, and take whether an input
requires grad from the forward (a ``saved_tensors_hooks`` unpack hook may hand back a detached
tensor). As in PyTorch, the ``saved_tensors_hooks`` blocks open around a non-reentrant checkpoint
pack its inputs only, not the tensors the function saves in the forward or the recomputation.

Non-determinism (non-reentrant): the recomputation must return as many tensors as the forward,
with the same metadata (``determinism_check="default"``), and save as many tensors for backward
(whatever ``determinism_check``, as PyTorch) with the same metadata; a difference raises
:class:`CheckpointError` with PyTorch's messages. tensorlab counts the tensors saved by the nodes
whose history reaches an input that requires grad (a recorded node that only depends on
parameters may be kept alive by the function, so it cannot be told from an outer one), in the
order the graph gives (nodes before those they feed), not the order of saving. PyTorch's early
stop (the default) ends the recomputation once it has saved as many tensors as the forward, and
then differentiates the forward's graph: a recomputation that saves more tensors passes there;
tensorlab differentiates the recomputed graph and always recomputes the whole function, so it
raises PyTorch's "trying to save more tensors" error whatever ``early_stop``. In the backward of
a custom Function that a non-reentrant checkpoint recomputed, reading ``ctx.saved_tensors`` a
second time raises CheckpointError, as in PyTorch (which clears recomputed tensors as they are
unpacked); not checked when the backward runs with ``create_graph=True``.

Other non-reentrant differences from PyTorch: while the function's forward runs, its own
activations are held (freed when it returns, so the peak is one checkpointed segment's, as
during its recomputation), and it sees its tensor inputs that require grad detached, so an
in-place op on one raises at once (PyTorch raises in backward).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
import weakref

from .._tensor import Tensor
from ..autograd import backward as _autograd_backward
from ..autograd import graph as _graph
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad

__all__ = [
    "CheckpointError", "CheckpointFunction", "check_backward_validity", "checkpoint", "checkpoint_sequential",
    "detach_variable", "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop",
]

_DEFAULT_DETERMINISM_MODE = "default"
_DETERMINISM_CHECKS = ("default", "none")  # (PyTorch's names, in its order)
_checkpoint_debug_enabled: bool | None = None
_enable_checkpoint_early_stop = True


class CheckpointError(RuntimeError):
    """The recomputation did not reproduce the forward (PyTorch's class, a RuntimeError)."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Override every checkpoint's ``debug`` inside the block (``None``: each call's own)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """PyTorch's switch for stopping the recomputation once it has saved what backward needs.
    tensorlab always recomputes the whole function (for a deterministic function the result is the
    same, early stop only saves time); the setting only words the error raised when the
    recomputation saves more tensors than the forward did."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad`` (PyTorch's helper)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(_detached(x) if isinstance(x, Tensor) else x for x in inputs)


def check_backward_validity(inputs) -> None:
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def _detached(t: Tensor, requires_grad: bool | None = None) -> Tensor:
    """``t`` detached, requiring grad as ``t`` does (or as ``requires_grad`` says: the recomputation
    takes it from the forward's inputs, not from what a saved_tensors_hooks unpack hook gave back)."""
    d = t.detach()
    if t.requires_grad if requires_grad is None else requires_grad:
        d.requires_grad_(True)
    return d


class _CheckpointInput(Function):
    """The recomputation's input under double backward: ``value`` (the saved input, detached), with
    the autograd identity of ``edge`` (the tensor the checkpoint node's edge leads to), so that the
    gradients computed with ``create_graph=True`` are functions of the real input."""

    @staticmethod
    def forward(ctx, value, edge):
        return value

    @staticmethod
    def backward(ctx, grad):
        return None, grad


def _saved_metadata(node, metadata_fn) -> list:
    """The metadata of the tensors ``node`` saved for backward (None where unknown: a tensor that a
    saved_tensors_hooks block packed, or no ``metadata_fn``)."""
    saved = getattr(getattr(node, "ctx", None), "_saved", None)
    out = []
    for s in saved or ():
        if s is None:
            continue
        t = getattr(s, "tensor", None)
        out.append(metadata_fn(t) if metadata_fn is not None and isinstance(t, Tensor) else None)
    return out


def _post_order(roots, children: dict) -> list:
    """The ids reachable from ``roots`` (ids) through ``children`` (id -> [(child id, nr)]), each
    after every id below it; the same graph gives the same order (the forward's and the
    recomputation's saved tensors are listed in it)."""
    order, seen = [], set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(children.get(root, ())))]
        while stack:
            n, it = stack[-1]
            for c, _ in it:
                if c not in seen:
                    seen.add(c)
                    stack.append((c, iter(children.get(c, ()))))
                    break
            else:
                stack.pop()
                order.append(n)
    return order


def _saved_by_function(roots, children: dict, input_ids: set, node_of, metadata_fn) -> tuple[list, dict]:
    """``(metadata, reaches_input)``: the metadata of the tensors saved by the nodes whose history
    reaches an input of the function, in :func:`_post_order` (nodes before those they feed: the
    order the ops ran in, for a chain), and for every id whether it reaches one."""
    reaches = {}
    metadata = []
    for i in _post_order(roots, children):
        edges = children.get(i)
        if edges is None:  # (a leaf, an input, or a node of the graph outside)
            continue
        reaches[i] = r = any(c in input_ids or reaches.get(c, False) for c, _ in edges)
        if r:
            metadata.extend(_saved_metadata(node_of(i), metadata_fn))
    return metadata, reaches


# ----------------------------------------------------------------------------------------------
# nested structures (the non-reentrant variant finds tensors in lists, tuples and dicts)
# ----------------------------------------------------------------------------------------------


def _tensors_in(obj, out: list) -> list:
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, list | tuple):
        for x in obj:
            _tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, out)
    return out


_SLOT = object()  # where a tensor goes back, in an argument's or output's structure


def _slots():
    while True:
        yield _SLOT


def _replace_tensors(obj, new, slot: bool = False):
    """``obj`` rebuilt with each tensor (each ``_SLOT`` with ``slot``) replaced by ``next(new)``,
    in :func:`_tensors_in`'s order."""
    if (obj is _SLOT) if slot else isinstance(obj, Tensor):
        return next(new)
    if isinstance(obj, tuple):
        items = [_replace_tensors(x, new, slot) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)  # (a namedtuple's fields)
    if isinstance(obj, list):
        return type(obj)(_replace_tensors(x, new, slot) for x in obj)
    if isinstance(obj, dict):
        items = [(k, _replace_tensors(v, new, slot)) for k, v in obj.items()]
        if type(obj) is dict:
            return dict(items)
        rebuilt = obj.copy()  # (keeps a defaultdict's factory, an OrderedDict's type)
        rebuilt.update(items)
        return rebuilt
    return obj


# ----------------------------------------------------------------------------------------------
# random state: the recomputation draws what the forward drew
# ----------------------------------------------------------------------------------------------


class _RngState:
    """The states of the default generators when the forward started: cpu's, every device's that
    exists, and those of the devices of ``tensors`` (made now if they were not yet). A generator
    that the forward itself creates starts at offset 0 of its seed, so the recomputation restarts
    it there."""

    def __init__(self, tensors):
        from .. import _random

        for t in tensors:
            _random._generator_for(t.device, None, "checkpoint")
        _random.default_generator(_random.CPU)
        self.states = {dev: g.get_state() for dev, g in list(_random._default_generators.items())}

    @contextlib.contextmanager
    def replay(self):
        """Inside: the forward's states; after: the states as they were (PyTorch's ``fork_rng``)."""
        from .. import _random

        generators = list(_random._default_generators.items())
        now = {dev: g.get_state() for dev, g in generators}
        for dev, g in generators:
            if dev in self.states:
                g.set_state(self.states[dev])
            else:
                g.manual_seed(g.initial_seed())
        try:
            yield
        finally:
            for dev, g in list(_random._default_generators.items()):
                if dev in now:
                    g.set_state(now[dev])


class _AutocastState:
    """Autocast's settings when the forward ran, for the recomputation: the engine runs backward
    with autocast off, and the recomputed ops must run in the dtypes the forward's did. The
    recomputation makes its own casts (no cache): a cast cached by the region the forward ran in
    may have been made under no_grad (the reentrant forward) and lead nowhere."""

    def __init__(self):
        try:
            from ..amp import autocast_mode as amp
        except ImportError:  # (tensorlab.amp is being added separately: nothing to replay without it)
            self.regions = ()
            return
        regions = [(dev, amp.get_autocast_dtype(dev), amp.is_autocast_enabled(dev)) for dev in ("cuda", "cpu")]
        self.regions = tuple(regions) if any(enabled for _, _, enabled in regions) else ()
        self._autocast = amp.autocast

    def replay(self):
        stack = contextlib.ExitStack()
        for dev, dtype, enabled in self.regions:
            stack.enter_context(self._autocast(dev, dtype=dtype, enabled=enabled, cache_enabled=False))
        return stack


def _engine_call_accumulates() -> bool:
    """Whether the backward running now is ``backward()`` without ``inputs=`` (PyTorch's
    ``_is_checkpoint_valid``): the engine's innermost user-level call says so
    (:func:`tensorlab.autograd.graph.engine_calls`, this thread's; a non-reentrant checkpoint's own
    engine calls over its recomputation are ``internal`` and not listed)."""
    calls = _graph.engine_calls()
    return calls[-1] if calls else True


# ----------------------------------------------------------------------------------------------
# use_reentrant=True: PyTorch's CheckpointFunction
# ----------------------------------------------------------------------------------------------


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.rng = _RngState(tensors) if preserve_rng_state else None
        ctx.autocast = _AutocastState()
        # non-tensor inputs in ctx, a None where a tensor goes (saved, so in-place changes are caught)
        ctx.checkpoint_inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        # (what backward's detached inputs require: a saved_tensors_hooks unpack may give back a
        # tensor that does not, as lambda t: t.detach() does)
        ctx.input_requires_grad = [t.requires_grad for t in tensors]
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _engine_call_accumulates():
            raise RuntimeError(
                "When use_reentrant=True, tensorlab.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument.")
        # (under create_graph=True, as PyTorch's: the recomputed graph is differentiated by a nested
        # backward() without create_graph, so the gradients have no history)
        inputs = list(ctx.checkpoint_inputs)
        for i, t, rg in zip(ctx.tensor_indices, ctx.saved_tensors, ctx.input_requires_grad):
            inputs[i] = _detached(t, rg)
        detached = tuple(inputs)
        replay = ctx.rng.replay() if ctx.preserve_rng_state else contextlib.nullcontext()
        with replay, enable_grad(), ctx.autocast.replay():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward([o for o, _ in with_grad], [g for _, g in with_grad])
        return (None, None, *(x.grad if isinstance(x, Tensor) else None for x in detached))


# ----------------------------------------------------------------------------------------------
# use_reentrant=False
# ----------------------------------------------------------------------------------------------


def _stand_in(shape, dtype, dev, grad_fn=None, output_nr: int = 0) -> Tensor:
    """A tensor of ``shape`` over one element (stride 0) that requires grad: with ``grad_fn`` it is
    an edge into that node, without one a leaf of its own. Its value is never read (the engine only
    routes gradients through it): the element is left uninitialised."""
    from .._factories import empty

    one = empty((1,), dtype=dtype, device=dev)
    t = Tensor._make(one._storage, tuple(shape), (0,) * len(shape), 0, dtype)
    t._requires_grad = True
    t.grad_fn, t._output_nr = grad_fn, output_nr
    return t


def _metadata(t: Tensor) -> dict:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


class _Frontier:
    """What the recorded forward showed: the tensors outside the function it depends on.

    ``leaves``: leaf tensors that require grad (parameters); ``nodes``: ``(node, output_nr)`` of
    an outer graph (a closed-over tensor that has a history); ``outer``: every node of an outer
    graph the walk met, weakly (the recomputation must not reach one behind the frontier)."""

    def __init__(self, outputs, inputs, debug: bool, metadata_fn=None):
        input_accs = [_graph.accumulate_grad_of(d) for d in inputs if d.requires_grad]  # (alive: ids stay unique)
        input_ids = {id(a) for a in input_accs}
        refs, children, leaf_of = {}, {}, {}
        self.forward_ops = []
        self._roots = []  # (id, output_nr) of each output that requires grad (None: one that does not)
        stack = []
        for o in outputs:
            if not o.requires_grad:
                self._roots.append(None)
                continue
            n = o.grad_fn if o.grad_fn is not None else _graph.accumulate_grad_of(o)
            if isinstance(n, _graph.AccumulateGrad):
                input_accs.append(n)  # (kept until resolve(), so its id stays its own)
                if id(n) not in input_ids:
                    leaf_of[id(n)] = o
            elif id(n) not in refs:
                refs[id(n)] = weakref.ref(n)
                stack.append(n)
            self._roots.append((id(n), o._output_nr))
            del n
        while stack:  # every node the outputs reach, up to leaves, by id (weakly: the graph must be free to go)
            n = stack.pop()
            if debug:
                self.forward_ops.append(n.name())
            edges = []
            for child, nr in n.next_functions:
                if child is None:
                    continue
                if isinstance(child, _graph.AccumulateGrad):
                    if id(child) not in input_ids:
                        leaf_of[id(child)] = child.variable
                elif id(child) not in refs:
                    refs[id(child)] = weakref.ref(child)
                    stack.append(child)
                edges.append((id(child), nr))
            children[id(n)] = edges
            del n
        self._refs, self._children, self._leaf_of, self._input_ids = refs, children, leaf_of, input_ids
        self._input_accs = input_accs
        # What the function saved for backward (the nodes that reach an input: those are its own,
        # whatever else keeps them alive), for the recomputation to be checked against.
        self.saved_metadata, self._reaches = _saved_by_function(
            [r[0] for r in self._roots if r is not None], children, input_ids, lambda i: refs[i](), metadata_fn)

    def resolve(self) -> None:
        """Called once the recorded outputs are gone: a node still alive is an outer one, unless it
        reaches an input (an intermediate kept on a module: the function's own). The edges: every
        leaf the walk met, and the outer nodes the function's nodes point at. A node alive for another
        reason (held by a reference cycle, or a cast autocast caches for a parameter) passes for an
        outer one: harmless, as the leaves behind it are edges too, and the recomputation reaches them
        through its own new nodes when it does not reach that node itself."""
        outer = {i for i, r in self._refs.items() if r() is not None and not self._reaches.get(i, False)}
        node_keys, seen, todo = [], set(), []
        for root in self._roots:
            if root is None:
                continue
            if root[0] in outer:
                node_keys.append(root)
            elif root[0] in self._children and root[0] not in seen:
                seen.add(root[0])
                todo.append(root[0])
        while todo:  # from the outputs through the function's own nodes, up to the outer ones
            for c, nr in self._children[todo.pop()]:
                if c in outer:
                    node_keys.append((c, nr))
                elif c in self._children and c not in seen:
                    seen.add(c)
                    todo.append(c)
        self.node_keys = list(dict.fromkeys(node_keys))
        self.nodes = [self._refs[i]() for i, _ in self.node_keys]  # (held: this node's edges keep them)
        self.leaves = list(self._leaf_of.values())
        self.outer = weakref.WeakSet(self._refs[i]() for i in outer)
        del self._refs, self._children, self._leaf_of, self._input_accs, self._roots, self._reaches


class _Frame:
    """One non-reentrant checkpointed call: what its recomputation needs."""

    def __init__(self, function, args, kwargs, rng, autocast, recompute_context, metadata_fn, debug):
        # the arguments without their tensors (those are the node's saved inputs, released with it)
        self.function, self.arguments = function, _replace_tensors((args, kwargs), _slots())
        self.rng, self.autocast, self.recompute_context = rng, autocast, recompute_context
        self.metadata_fn, self.debug = metadata_fn, debug
        self.outputs = None  # the forward's outputs, detached: handed to the node once
        self.output_metadata = []
        self.frontier: _Frontier | None = None
        self.n_inputs = 0
        self.passthrough = {}  # output position -> input position, for inputs returned as they are
        self.input_requires_grad = []  # per tensor input, as the forward saw it

    def recompute(self, values, node, create_graph: bool):
        """The function run again on ``values`` (the node's saved inputs): returns its inputs and its
        tensor outputs. An input requires grad when the forward's did (whatever a saved_tensors_hooks
        unpack hook gave back); one that did not is handed over as it is (PyTorch's identity). Under
        ``create_graph`` an input is the saved value with the autograd identity of the node's edge
        (:class:`_CheckpointInput`), so the recomputed graph, and the gradients computed from it,
        lead to the real inputs."""
        with enable_grad():
            inputs = [self._input(v, rg, i, node, create_graph)
                      for i, (v, rg) in enumerate(zip(values, self.input_requires_grad))]
        args, kwargs = _replace_tensors(self.arguments, iter(inputs), slot=True)
        replay = self.rng.replay() if self.rng is not None else contextlib.nullcontext()
        with enable_grad(), replay, self.autocast.replay(), _graph.outer_saved_tensors_hooks_suspended(), \
                self.recompute_context:
            out = self.function(*args, **kwargs)
        return inputs, _tensors_in(out, [])

    @staticmethod
    def _input(value, requires_grad: bool, i: int, node, create_graph: bool):
        if not requires_grad:
            return value
        edge, nr = node.next_functions[i] if create_graph and node is not None else (None, 0)
        if edge is None:
            return _detached(value, True)
        if isinstance(edge, _graph.AccumulateGrad):
            to = edge.variable
        else:
            meta = node.inputs_meta_flat[i]
            to = _stand_in(meta.shape, meta.dtype, meta.device, grad_fn=edge, output_nr=nr)
        return _CheckpointInput.apply(value.detach(), to)

    def check_saved(self, outputs, inputs) -> list:
        """PyTorch's check that the recomputation saved for backward what the forward saved: as many
        tensors (whatever ``determinism_check``), with the same metadata (``"default"``). Counted
        over the nodes whose history reaches an input that requires grad, in both runs."""
        frontier = self.frontier
        keep = [_graph.accumulate_grad_of(d) if d.grad_fn is None else d.grad_fn for d in inputs if d.requires_grad]
        input_ids = {id(n) for n in keep}
        frontier_ids = {id(n) for n in frontier.nodes}
        roots, children, nodes, stack = [], {}, {}, []
        for o in outputs:
            if o.requires_grad and o.grad_fn is not None:
                roots.append(id(o.grad_fn))
                stack.append(o.grad_fn)
        while stack:
            n = stack.pop()
            if (id(n) in nodes or id(n) in input_ids or id(n) in frontier_ids or isinstance(n, _graph.AccumulateGrad)
                    or n in frontier.outer):
                continue
            nodes[id(n)] = n
            children[id(n)] = [(id(c), nr) for c, nr in n.next_functions if c is not None]
            stack.extend(c for c, _ in n.next_functions if c is not None)
        recomputed, _ = _saved_by_function(roots, children, input_ids, nodes.__getitem__, self.metadata_fn)
        saved = frontier.saved_metadata
        if len(recomputed) > len(saved):
            note = ("\n(tensorlab differentiates the recomputed graph: it cannot stop the recomputation early, at the "
                    "forward's last saved tensor, as PyTorch does with early stop.)" if _enable_checkpoint_early_stop
                    else "")
            raise CheckpointError(
                "tensorlab.utils.checkpoint: trying to save more tensors during recomputation than during the original "
                "forward pass." + note + self._trace(outputs))
        if len(recomputed) < len(saved):
            raise CheckpointError(
                "tensorlab.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(saved)}\n"
                f"Number of tensors saved during recomputation: {len(recomputed)}." + self._trace(outputs))
        self._refuse_different_metadata(
            [(i, s, r) for i, (s, r) in enumerate(zip(saved, recomputed)) if s is not None and r is not None
             and s != r], outputs)
        return list(nodes.values())

    def check(self, outputs) -> None:
        if self.metadata_fn is None:
            return
        if len(outputs) != len(self.output_metadata):
            raise CheckpointError(
                "tensorlab.utils.checkpoint: A different number of tensors was returned during the original forward "
                f"and recomputation.\nNumber of tensors returned during forward: {len(self.output_metadata)}\n"
                f"Number of tensors returned during recomputation: {len(outputs)}" + self._trace(outputs))
        self._refuse_different_metadata(
            [(i, saved, self.metadata_fn(o)) for i, (saved, o) in enumerate(zip(self.output_metadata, outputs))
             if saved != self.metadata_fn(o)], outputs)

    def _refuse_different_metadata(self, bad: list, outputs) -> None:
        """PyTorch's CheckpointError for (position, saved metadata, recomputed metadata) that differ."""
        if bad:
            lines = "".join(f"tensor at position {i}:\nsaved metadata: {s}\nrecomputed metadata: {r}\n"
                            for i, s, r in bad)
            raise CheckpointError(
                "tensorlab.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
                f"during the forward pass.\n{lines}" + self._trace(outputs))

    def _trace(self, outputs) -> str:
        if not self.debug:
            return ("\n\nTip: To see a more detailed error message, either pass `debug=True` to "
                    "`tensorlab.utils.checkpoint.checkpoint(...)` or wrap the code block with `with "
                    "tensorlab.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable checkpoint-debug mode "
                    "globally.")
        ops = []
        _walk_nodes([o.grad_fn for o in outputs if o.grad_fn is not None], lambda n: ops.append(n.name()))
        # (the walks go from the outputs back: reversed, the lists read in the order the ops ran)
        return ("\n\nOperators recorded in the original forward:\n" + "\n".join(reversed(self.frontier.forward_ops))
                + "\n\nOperators recorded in the recomputation:\n" + "\n".join(reversed(ops)))


def _walk_nodes(roots, visit) -> None:
    seen, stack = set(), list(roots)
    while stack:
        n = stack.pop()
        if id(n) in seen or isinstance(n, _graph.AccumulateGrad):
            continue
        seen.add(id(n))
        visit(n)
        stack.extend(c for c, _ in n.next_functions if c is not None)


class _NonReentrantCheckpoint(Function):
    """The node that stands for the function: inputs, then frontier leaves, then edges into outer nodes."""

    @staticmethod
    def forward(ctx, frame, *tensors):
        ctx.frame = frame
        ctx.save_for_backward(*tensors[:frame.n_inputs])  # (in-place changes before backward are caught)
        outputs, frame.outputs = frame.outputs, None
        ctx.mark_non_differentiable(*[o for o, g in outputs if not g])
        return tuple(o for o, _ in outputs)

    @staticmethod
    def backward(ctx, *grads):
        frame = ctx.frame
        frontier = frame.frontier
        # The engine runs backward with grad mode = create_graph: then the gradients must be functions
        # of the inputs (double backward), and the recomputed graph is kept for the next backward.
        create_graph = is_grad_enabled()
        detached, outputs = frame.recompute(ctx.saved_tensors, ctx._node(), create_graph)
        frame.check(outputs)
        recomputed_nodes = frame.check_saved(outputs, detached)
        if not create_graph:
            _unpack_once(recomputed_nodes)
        outputs = [o for j, o in enumerate(outputs) if j not in frame.passthrough]
        # Stand-in leaves for the frontier: the recomputed graph's edges to a parameter or an outer
        # node are redirected to them, so the engine stops there and the gradient goes out through
        # this node's edges (hooks on those tensors run once, in the outer backward).
        stand_ins = {}
        for leaf in frontier.leaves:
            stand_ins[("leaf", id(leaf))] = _stand_in(leaf.shape, leaf.dtype, leaf.device)
        for (nid, nr), node in zip(frontier.node_keys, frontier.nodes):
            meta = node.outputs_meta[nr]
            stand_ins[("node", nid, nr)] = _stand_in(meta.shape, meta.dtype, meta.device)
        direct = {}  # a recomputed output that is an outer tensor itself: its gradient goes straight out
        roots, root_grads = [], []
        for o, g in zip(outputs, grads):
            if g is None or not o.requires_grad:
                continue
            key = _frontier_key(o.grad_fn, o._output_nr, frontier) if o.grad_fn is not None else (
                ("leaf", id(o)) if ("leaf", id(o)) in stand_ins else None)
            if key is not None:
                direct[key] = g if key not in direct else direct[key] + g
            else:
                roots.append(o)
                root_grads.append(g)
        stop = {id(d.grad_fn) for d in detached if d.grad_fn is not None}  # (the inputs' _CheckpointInput nodes)
        changed = _redirect([o.grad_fn for o in roots if o.grad_fn is not None], frontier, stand_ins, stop)
        keys = list(stand_ins)
        targets = [d for d in detached if d.requires_grad] + [stand_ins[k] for k in keys]
        try:
            captured = iter(_graph.run_backward(roots, root_grads, create_graph, create_graph, inputs=targets,
                                                accumulate=False, internal=True)
                            if roots and targets else [None] * len(targets))
        finally:
            # The recomputed graph leads to the real parameters and outer tensors again: under
            # create_graph the gradients' history goes through it (to differentiate them w.r.t. those).
            for n, edges in changed:
                n.next_functions = edges
        input_grads = [next(captured) if d.requires_grad else None for d in detached]
        out_grads = []
        for k in keys:
            g = next(captured)
            if k in direct:
                g = direct[k] if g is None else g + direct[k]
            out_grads.append(g)
        return (None, *input_grads, *out_grads)


class _UnpackOnceCtx(_graph.Ctx):
    """The ctx of a custom Function recomputed by a checkpoint: PyTorch hands each recomputed saved
    tensor over once (it is cleared as it is unpacked), so ``ctx.saved_tensors`` read a second time
    in one backward raises."""

    _unpacked = False

    @property
    def saved_tensors(self) -> tuple:
        if self._unpacked:
            raise CheckpointError(
                "tensorlab.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                "If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please "
                "open an issue with details on your use case.")
        self._unpacked = True
        return _graph.Ctx.saved_tensors.fget(self)


def _unpack_once(nodes) -> None:
    """The custom Functions among the recomputed ``nodes`` get :class:`_UnpackOnceCtx` (not under
    create_graph: a double backward runs the recomputed nodes again)."""
    for n in nodes:
        op = getattr(n, "op", None)
        if op is not None and "custom_function" in op.tags and type(n.ctx) is _graph.Ctx:
            with contextlib.suppress(TypeError):  # (a layout __class__ assignment refuses: no check)
                n.ctx.__class__ = _UnpackOnceCtx


def _frontier_key(node, nr, frontier: _Frontier):
    for nid, n in zip(frontier.node_keys, frontier.nodes):
        if n is node and nid[1] == nr:
            return ("node", nid[0], nr)
    return None


def _redirect(roots, frontier: _Frontier, stand_ins: dict, stop: set) -> list:
    """Point the recomputed graph's edges to frontier tensors at their stand-ins (only nodes made by
    the recomputation are walked and changed: the walk stops at the frontier, and at the nodes of
    ``stop``). Returns ``(node, its edges before)`` for each node changed."""
    nodes = {id(n): n for n in frontier.nodes}
    leaf_ids = {id(t) for t in frontier.leaves}
    changed_nodes = []
    seen, stack = set(stop), [n for n in roots if id(n) not in nodes]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        edges, changed = [], False
        for child, nr in n.next_functions:
            key = None
            if child is None:
                pass
            elif isinstance(child, _graph.AccumulateGrad):
                v = child.variable
                if id(v) in leaf_ids:
                    key = ("leaf", id(v))
            elif id(child) in nodes and nodes[id(child)] is child:
                key = ("node", id(child), nr)
                if key not in stand_ins:  # (an output of that node the forward did not use)
                    raise CheckpointError("tensorlab.utils.checkpoint: the recomputation used an output of a tensor "
                                          "outside the function that the original forward did not use")
            elif child in frontier.outer:
                raise CheckpointError(
                    "tensorlab.utils.checkpoint: the recomputation reached the graph outside the checkpointed function "
                    "by a different path than the original forward (does the function depend on global state?)")
            else:
                stack.append(child)
            if key is not None:
                edges.append((_graph.accumulate_grad_of(stand_ins[key]), 0))
                changed = True
            else:
                edges.append((child, nr))
        if changed:
            changed_nodes.append((n, n.next_functions))
            n.next_functions = tuple(edges)
    return changed_nodes


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check,
                                  debug):
    debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():
        return function(*args, **kwargs)

    inputs = _tensors_in((args, kwargs), [])
    rng = _RngState(inputs) if preserve_rng_state else None
    autocast = _AutocastState()
    # (an input that does not require grad has no history to cut: the function gets it as it is)
    detached = [_detached(t) if t.requires_grad else t for t in inputs]
    d_args, d_kwargs = _replace_tensors((args, kwargs), iter(detached))
    suppressed = True
    with _graph.outer_saved_tensors_hooks_suspended(), forward_context:
        out = function(*d_args, **d_kwargs)
        suppressed = False
    if suppressed:
        raise RuntimeError("tensorlab.utils.checkpoint: the forward context provided by context_fn suppressed an "
                           "exception raised during the checkpointed forward. This is not supported because "
                           "checkpoint cannot return a value for a failed forward.")
    out_tensors = _tensors_in(out, [])
    if not any(o.requires_grad for o in out_tensors):
        return out  # nothing to differentiate: nothing was recorded

    metadata_fn = _metadata if determinism_check == "default" else None
    frame = _Frame(function, args, kwargs, rng, autocast, recompute_context, metadata_fn, debug)
    frame.input_requires_grad = [t.requires_grad for t in inputs]
    # An input returned as it is comes back as itself (as in PyTorch), not through the node.
    by_id = {id(d): i for i, d in enumerate(detached)}
    frame.passthrough = {j: by_id[id(o)] for j, o in enumerate(out_tensors) if id(o) in by_id}
    frontier = _Frontier(out_tensors, detached, debug, metadata_fn)
    frame.output_metadata = [_metadata(o) for o in out_tensors]
    frame.outputs = [(o.detach(), o.requires_grad) for j, o in enumerate(out_tensors) if j not in frame.passthrough]
    skeleton = _replace_tensors(out, _slots())
    del out, out_tensors  # the recorded graph goes (its saved activations with it)
    frontier.resolve()
    frame.frontier = frontier
    frame.n_inputs = len(inputs)
    results = ()
    if frame.outputs:
        edges_to_nodes = []
        for (_, nr), node in zip(frontier.node_keys, frontier.nodes):
            meta = node.outputs_meta[nr]
            edges_to_nodes.append(_stand_in(meta.shape, meta.dtype, meta.device, grad_fn=node, output_nr=nr))
        results = _NonReentrantCheckpoint.apply(frame, *inputs, *frontier.leaves, *edges_to_nodes)
        results = results if isinstance(results, tuple) else (results,)
    results = iter(results)
    merged = [inputs[frame.passthrough[j]] if j in frame.passthrough else next(results)
              for j in range(len(frame.output_metadata))]
    return _replace_tensors(skeleton, iter(merged), slot=True)


# ----------------------------------------------------------------------------------------------
# the public functions
# ----------------------------------------------------------------------------------------------


class _CheckpointedFunction:
    """``checkpoint(use_reentrant=...)(fn)``: ``fn`` checkpointed at every call (also as a method)."""

    def __init__(self, function, **checkpoint_kwargs):
        self.function = function
        self.checkpoint_kwargs = dict(checkpoint_kwargs)
        functools.update_wrapper(self, function, updated=())

    def __call__(self, *args, **kwargs):
        return _checkpoint_impl(self.function, args, kwargs, **self.checkpoint_kwargs)

    def __get__(self, instance, owner=None):
        get = getattr(self.function, "__get__", None)
        if instance is None or get is None:
            return self
        return type(self)(get(instance, owner), **self.checkpoint_kwargs)


def checkpoint(function=None, *args, use_reentrant: bool | None = None, preserve_rng_state: bool = True,
               context_fn=noop_context_fn, determinism_check: str = _DEFAULT_DETERMINISM_MODE, debug: bool = False,
               early_stop: bool = True, respect_saved_tensors_hooks: bool | None = None, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate tensors for backward;
    backward runs it again. Without ``function`` (and arguments): a decorator. See the module
    docstring for the two variants; pass ``use_reentrant`` explicitly (False is recommended)."""
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return functools.partial(_CheckpointedFunction, use_reentrant=use_reentrant,
                                 preserve_rng_state=preserve_rng_state, context_fn=context_fn,
                                 determinism_check=determinism_check, debug=debug, early_stop=early_stop,
                                 respect_saved_tensors_hooks=respect_saved_tensors_hooks)
    return _checkpoint_impl(function, args, kwargs, use_reentrant=use_reentrant,
                            preserve_rng_state=preserve_rng_state, context_fn=context_fn,
                            determinism_check=determinism_check, debug=debug, early_stop=early_stop,
                            respect_saved_tensors_hooks=respect_saved_tensors_hooks)


def _checkpoint_impl(function, args, kwargs, *, use_reentrant=None, preserve_rng_state=True,
                     context_fn=noop_context_fn, determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False,
                     early_stop=True, respect_saved_tensors_hooks=None):
    if use_reentrant is None:
        warnings.warn(
            "tensorlab.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future release, "
            "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, "
            "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to "
            "docs for more details on the differences between the two variants.", stacklevel=3)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check,
                                         debug)


def checkpoint_sequential(functions, segments, input, use_reentrant: bool | None = None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list of modules/functions) one after another
    on ``input``, checkpointing each of ``segments`` chunks but the last."""
    from ..nn import Sequential

    if use_reentrant is None:
        warnings.warn(
            "tensorlab.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In a future release, we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can "
            "pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # (the last chunk runs without checkpoint: backward needs its graph at once)
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
