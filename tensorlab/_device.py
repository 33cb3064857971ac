"""``tensorlab.device``: ``cpu`` or ``cuda[:index]``, parsed like PyTorch's."""

from __future__ import annotations

import builtins
import threading


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # (PyTorch's keywords: device(type=, index=))
        type_or_str = type
        if isinstance(type_or_str, device):
            if index is not None:
                raise ValueError("device(): index given twice")
            object.__setattr__(self, "type", type_or_str.type)
            object.__setattr__(self, "index", type_or_str.index)
            return
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            type_or_str, index = "cuda", type_or_str
        if index is not None:  # (an int index, as PyTorch's: 1.0 or True was stored as it was)
            if isinstance(index, bool) or not hasattr(index, "__index__"):
                raise TypeError(f"device(): index must be an int, got {builtins.type(index).__name__}")
            index = int(index.__index__())
        if not isinstance(type_or_str, str):
            raise TypeError(f"device(): expected a string, int or device, got {builtins.type(type_or_str).__name__}")
        text = type_or_str.strip()
        if ":" in text:
            if index is not None:
                raise ValueError(f"device(): type {text!r} already has an index; got index={index} too")
            text, _, idx = text.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: {type_or_str!r}")
            index = int(idx)
        if text not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type_or_str!r}"
            )
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        if text == "cpu" and index not in (None, 0):
            raise RuntimeError(f"cpu device index must be 0 or absent, got {index}")
        object.__setattr__(self, "type", text)
        object.__setattr__(self, "index", index)  # (cpu:0 keeps its 0, as PyTorch's; tensors on it report cpu)

    def __setattr__(self, name, value):  # read-only, as PyTorch's: as_device shares one object per device
        raise AttributeError(f"attribute '{name}' of 'tensorlab.device' objects is not writable")

    def __enter__(self):  # ``with tl.device("cuda"):`` makes it the default device inside
        _defaults.stack.append(_defaults.device)
        _defaults.device = self
        return self

    def __exit__(self, *exc) -> bool:
        _defaults.device = _defaults.stack.pop()
        return False

    def __eq__(self, other):
        if other is self:  # as_device hands out one object per device
            return True
        if not isinstance(other, device):  # (a string is never equal, as PyTorch's: device("cpu") != "cpu")
            return NotImplemented
        return self.type == other.type and self.index == other.index  # (cpu:0 != cpu, cuda:0 != cuda)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (str(self),))


CPU = device("cpu")


class _Defaults(threading.local):
    """This thread's default device: per thread, as PyTorch's (``set_default_device`` and
    ``with torch.device(...)`` are thread-local there), so a worker thread's default does not move
    the main thread's tensors."""

    device = None  # tl.set_default_device's device (None: cpu)

    def __init__(self):
        self.stack: list = []  # the defaults ``with tl.device(...)`` blocks replaced, innermost last


_defaults = _Defaults()


def set_default_device(dev) -> None:
    """Where factories (``tensor``, ``zeros``, ``rand``, ``arange``..., and so module parameters)
    put a tensor made without ``device=``, as ``torch.set_default_device``; None restores cpu. A bare
    ``"cuda"`` means the current cuda device at each call."""
    _defaults.device = None if dev is None else device(dev) if not isinstance(dev, device) else dev


def get_default_device() -> device:
    d = _defaults.device
    if d is not None and d.type == "cpu" and d.index is not None:
        return d  # (PyTorch hands back a default set as cpu:0 as it was set; its tensors say cpu)
    return as_device(None)


def as_device(value) -> device:
    """Normalise a device argument; a bare ``cuda`` resolves to the current cuda device; None is
    the default device (cpu unless ``set_default_device`` or a ``with tl.device(...)`` block says).

    Returns one shared object per device, so that tensors made on a device carry the same object
    and the dispatcher's same-device check is an identity test."""
    if value is None:
        value = _defaults.device
        if value is None:
            return CPU
    d = value if isinstance(value, device) else device(value)
    if d.type == "cpu":
        return CPU
    index = d.index
    if index is None:
        from tensorlab_kernels.runtime import current_device

        index = current_device()
    shared = _CUDA.get(index)
    if shared is None:
        shared = _CUDA[index] = device("cuda", index)
    return shared


_CUDA: dict[int, device] = {}
