"""``tl.compile``: PyTorch's ``torch.compile`` entry point, run eagerly.

Training scripts write ``model = torch.compile(model)`` (often behind a flag). tensorlab has no graph
compiler, so the compiled callable runs the original one eagerly, as PyTorch's ``backend="eager"``
does: same results. What a script can observe is kept: a module comes back wrapped in an
``OptimizedModule`` whose ``_orig_mod`` is the original (so its ``state_dict`` keys carry PyTorch's
``_orig_mod.`` prefix and checkpoints written from it load where PyTorch's would), attributes not on
the wrapper are read from the original, ``disable=True`` returns the model itself, and the argument
checks raise what PyTorch raises.
"""

from __future__ import annotations

import functools

from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule"]

# torch._dynamo.list_backends(None) without the testing-only ones, and torch.compile's modes
_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
             "eager", "inductor", "openxla", "openxla_eval", "pre_dispatch_eager", "ts", "tvm")
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class OptimizedModule(Module):
    """What ``compile(module)`` returns: calls ``_orig_mod`` (a registered submodule, so train()/eval(),
    parameters() and state_dict() go through it, the keys prefixed ``_orig_mod.``)."""

    def __init__(self, mod: Module):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":  # (not set yet: no fallback to recurse into)
                raise
            return getattr(self._orig_mod, name)

    def _own(self, name: str) -> bool:
        """Whether ``name`` belongs to the wrapper: its class's attributes, ``_orig_mod``, and all
        of them before ``_orig_mod`` is set (Module.__init__'s bookkeeping)."""
        return name == "_orig_mod" or hasattr(type(self), name) or "_orig_mod" not in self.__dict__.get("_modules", {})

    def __setattr__(self, name: str, value) -> None:
        # PyTorch's wrapper writes everything else to the original, so `compiled.foo = x` is seen by
        # the model's own code and a submodule set this way is in its state_dict
        if self._own(name):
            return super().__setattr__(name, value)
        if name == "training":  # (the wrapper's flag too, so compiled.training reads what was set)
            super().__setattr__(name, value)
        setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if self._own(name):
            return super().__delattr__(name)
        delattr(self._orig_mod, name)


def compile(model=None, *, fullgraph: bool = False, dynamic: bool | None = None, backend=None,
            mode: str | None = None, options: dict | None = None, name: str | None = None, disable: bool = False,
            recompile_limit: int | None = None, isolate_recompiles: bool = False, dynamic_shapes=None):
    # (fullgraph, dynamic, name, recompile_limit, isolate_recompiles, dynamic_shapes tune compilation
    # only: PyTorch's signature, so a misspelt keyword is a TypeError there and here)
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if backend is not None and not callable(backend) and backend not in _BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}. See `torch._dynamo.list_backends()` for available "
                           "backends.")
    if model is None:  # @compile(...) with arguments: a decorator
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, dynamic_shapes=dynamic_shapes)
        return fn
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    if isinstance(model, staticmethod):  # (a plain function in a class body would be given the instance)
        return staticmethod(compile(model.__func__))
    if isinstance(model, type):
        # PyTorch compiles a class's __call__ in place and returns the class (so `@compile class Net`
        # is still a class); run eagerly, there is nothing to change
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kw):
        return model(*args, **kw)
    return compiled
