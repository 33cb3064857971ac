"""``tensorlab.nn.utils.skip_init``: instantiate a module whose parameters are to be initialised by
the caller (PyTorch's ``torch.nn.utils.skip_init``)."""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised (as by
    ``empty``), on ``kwargs['device']`` (default cpu). PyTorch builds the module on the meta device
    and calls ``to_empty``; tensorlab has no meta device, so the module is built on the target
    device (its default initialisation runs, then is discarded by ``to_empty``): the result and
    the checks are PyTorch's, only the time saved is not."""
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=kwargs["device"])
