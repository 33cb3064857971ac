"""Module backward hooks (``register_full_backward_hook`` / ``register_full_backward_pre_hook``),
built as PyTorch builds them (``torch.utils.hooks.BackwardHook``): an identity autograd Function,
``BackwardHookFunction``, is applied to the module's positional tensor inputs before ``forward``
and to its outputs after it. The gradients that reach the output identity node are the module's
``grad_output`` (the pre-hooks run there and may replace them); the gradients leaving the input
identity node are its ``grad_input`` (the full hooks run there and may replace them). So the hooks
see exactly one tensor per positional argument / returned tensor (None for non-tensors), however
many ops the forward recorded, and they need nothing from the autograd engine but node hooks.
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled


class BackwardHookFunction(Function):
    """Identity on its tensor arguments (PyTorch's name, so the node is ``BackwardHookFunctionBackward``).
    Arguments that do not require grad are marked non-differentiable.

    ``materialize`` (first argument, not a tensor): whether missing gradients become zeros before
    the node's hooks see them. PyTorch's output hook reads the raw gradients (None for an unused
    output) while its input node materialises zeros (so an input whose gradient went nowhere gets
    zeros); here the output node is made with False, the input node with True."""

    @staticmethod
    def forward(ctx, materialize, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        ctx.set_materialize_grads(materialize)
        return args

    @staticmethod
    def backward(ctx, *grads):
        return (None, *grads)


_INPLACE_MSG = ("Output {i} of BackwardHookFunction is a view and is being modified inplace. This view was created "
                "inside a custom Function (or because an input was returned as-is) and the autograd logic to handle "
                "view+inplace would override the custom backward associated with the custom Function, leading to "
                "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
                "custom Function.")


class BackwardHook:
    """One module call's backward hooks: wraps its inputs and outputs and links the gradients of the
    two (PyTorch's ``torch.utils.hooks.BackwardHook``)."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self._input_versions = ()

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _grad_output):
            if self.grad_outputs is None:
                # the gradient reached the module's inputs without passing through its outputs
                # (double backward, for instance): PyTorch does not call the hooks then
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args, materialize: bool):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(materialize, *tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks: no BackwardHookFunction node was recorded.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors, strict=True):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args, materialize=True)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        if input_idx is not None:
            # (the storages, not the tensors: a hooked input's grad_fn holds the hook that holds this
            # object, and that cycle would keep the input alive after backward until gc ran)
            self._input_versions = tuple((k, res[i]._storage, res[i]._version) for k, i in enumerate(input_idx)
                                         if res[i].requires_grad)
        return res

    def check_inputs_not_modified(self) -> None:
        """PyTorch forbids an in-place write to a hooked input (a view its autograd cannot rebase) at
        the write; the tape here does not track those aliases as views, so the module checks their
        storage versions once forward has returned and raises PyTorch's error then."""
        for k, storage, version in self._input_versions:
            if storage.version != version:
                raise RuntimeError(_INPLACE_MSG.format(i=k))

    def setup_output_hook(self, args):
        def fn(grad_fn) -> None:
            def hook(grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                               f"got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:  # no input requires grad: the full hooks fire here
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.", stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            # a pre-hook of the identity node: its backward passes the (replaced) gradients on
            grad_fn.register_prehook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(fn, args, materialize=False)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


class WrappedHook:
    """``hook(module, *args)`` called as ``hook(*args)`` (PyTorch's ``_WrappedHook``); ``module``
    None: the hook takes no module argument."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        self.module = module

    def __call__(self, *args):
        if self.module is None:
            return self.hook(*args)
        return self.hook(self.module, *args)


def _tensor_tuple(x, verb: str, grads: str):
    """``x`` as a tuple of Tensors, or None after PyTorch's warning that the deprecated hook will
    miss part of ``grads`` (``x`` is neither a Tensor nor a tuple of them)."""
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple) and all(isinstance(t, Tensor) for t in x):
        return x
    warnings.warn(f"Using non-full backward hooks on a Module that does not {verb} a single Tensor or a tuple of "
                  f"Tensors is deprecated and will be removed in future versions. This hook will be missing some of "
                  f"the {grads}. Please use register_full_backward_hook to get the documented behavior.",
                  FutureWarning, stacklevel=4)
    return None


def warn_non_full_backward_hook(inputs, result, grad_fn) -> None:
    """PyTorch's ``_maybe_warn_non_full_backward_hook``: say when the deprecated hook will miss part
    of grad_input / grad_output (it only sees the last node of the forward)."""
    result = _tensor_tuple(result, "return", "grad_output")
    inputs = _tensor_tuple(inputs, "take as input", "grad_input") if result is not None else None
    if result is None or inputs is None:
        return
    out_grad_fn = {id(r.grad_fn) for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and id(grad_fn) not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=3)
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                      "Please use register_full_backward_hook to get the documented behavior.", FutureWarning,
                      stacklevel=3)
    else:
        inputs_grad_fn = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
        next_functions = {id(n[0]) for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_input. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=3)
