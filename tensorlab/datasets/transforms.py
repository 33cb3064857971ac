"""Composable image transforms (torchvision's names): ``Compose``, ``ToTensor``, ``Normalize``,
``RandomCrop``, ``RandomHorizontalFlip``, ``Lambda``.

The rule for what they take and return:

* ``ToTensor`` takes a numpy image (``H x W`` or ``H x W x C``; ``uint8`` is scaled to [0, 1] in
  the default float dtype, other dtypes are kept) or a tensor, and returns a cpu tensor ``C x H x W``.
* The others take a numpy array *or* a cpu tensor laid out ``[..., H, W]`` (``Normalize``:
  ``[..., C, H, W]``) and return the same kind they were given.

numpy inputs are transformed with numpy on the host, so the transforms are cheap in DataLoader
workers and never touch a GPU. Tensor inputs are transformed with tensorlab ops, so autograd
follows them as in torchvision (``Normalize(m, s)(x).requires_grad`` for an ``x`` that requires grad).

Random transforms draw from a numpy generator that is seeded from a tensorlab generator (the
default cpu generator, or ``generator=``) and re-seeded whenever that generator's state was
changed by anything else: ``tensorlab.manual_seed(s)`` therefore reproduces the augmentations,
in the main process and in workers (which are seeded from the loader's base seed). Drawing each
number from tensorlab's Philox generator directly would cost ~0.2 ms per call.
"""

from __future__ import annotations

import numbers
import weakref
from collections.abc import Sequence

import numpy as np

__all__ = ["Compose", "Lambda", "Normalize", "RandomCrop", "RandomHorizontalFlip", "ToTensor"]


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def _is_tensor(x) -> bool:
    from .._tensor import Tensor

    return isinstance(x, Tensor)


def _check_cpu_tensor(x, op: str) -> None:
    if not x.is_cpu:
        raise TypeError(f"{op}: expected a cpu tensor or numpy array, got a tensor on '{x.device}' (transforms run "
                        "on the host, before the batch moves to the device)")


def _host(x, op: str) -> tuple[np.ndarray, bool]:
    """(numpy array, was it a tensor)."""
    if _is_tensor(x):
        _check_cpu_tensor(x, op)
        return x.detach()._np_view(), True
    if isinstance(x, np.ndarray):
        return x, False
    raise TypeError(f"{op}: expected a numpy array or a tensor, got {type(x).__name__}")


def _back(arr: np.ndarray, as_tensor: bool):
    if not as_tensor:
        return arr
    from .._factories import wrap_numpy

    return wrap_numpy(np.ascontiguousarray(arr))


_rngs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _rng(generator) -> np.random.Generator:
    """A numpy generator tied to a tensorlab generator's state (see the module docstring)."""
    from .. import _random
    from .._device import CPU

    g = generator if generator is not None else _random._generator_for(CPU, None, "transforms")
    entry = _rngs.get(g)
    if entry is None or entry[0] != (g._seed, g._offset):
        from .. import _dtype, _factories

        seed = int(_factories.empty((), dtype=_dtype.int64).random_(generator=g).item())
        entry = ((g._seed, g._offset), np.random.default_rng(seed))
        _rngs[g] = entry
    return entry[1]


# ----------------------------------------------------------------------------------------------
# transforms
# ----------------------------------------------------------------------------------------------


class Compose:
    """Apply transforms one after another."""

    def __init__(self, transforms: Sequence):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self) -> str:
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}({inner}\n)"


class Lambda:
    """Apply a user function."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Lambda: argument should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToTensor:
    """numpy image ``H x W`` or ``H x W x C`` -> cpu tensor ``C x H x W``, as torchvision: ``uint8``
    becomes the default float dtype (``tensorlab.get_default_dtype()``) divided by 255; every other
    dtype is kept, values unscaled. A tensor is taken as ``H x W`` or already ``C x H x W`` under
    the same dtype rule (torchvision refuses tensors)."""

    def __call__(self, pic):
        from .. import _dtype as D
        from .._factories import wrap_numpy

        if _is_tensor(pic):
            _check_cpu_tensor(pic, "ToTensor")
            shape = tuple(pic.shape)
        elif isinstance(pic, np.ndarray):
            shape = pic.shape
        else:
            raise TypeError(f"ToTensor: pic should be a numpy array or a tensor, got {type(pic).__name__}")
        if len(shape) not in (2, 3):
            raise ValueError(f"ToTensor: pic should be 2 or 3 dimensional (H x W or H x W x C), got {len(shape)} "
                             f"dimensions (shape {shape})")
        default = D.get_default_dtype()
        if _is_tensor(pic):
            t = pic[None] if pic.ndim == 2 else pic
            return t.to(default).div(255) if t.dtype is D.uint8 else t
        arr = pic[None, :, :] if pic.ndim == 2 else pic.transpose(2, 0, 1)
        if arr.dtype == np.uint8:
            out = arr.astype(default.np, order="C")  # a fresh contiguous copy
            out /= default.np.type(255)  # x / 255 in the default dtype, as torchvision
            return wrap_numpy(out)
        if arr.dtype.kind == "u":
            raise TypeError(f"ToTensor: numpy dtype {arr.dtype} has no tensorlab counterpart (torchvision keeps it); "
                            f"convert the image first, e.g. pic.astype(np.int64)")
        return wrap_numpy(np.ascontiguousarray(arr))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Normalize:
    """``(x - mean[c]) / std[c]`` per channel of a float ``[..., C, H, W]`` image."""

    def __init__(self, mean, std, inplace: bool = False):
        self.mean = np.atleast_1d(np.asarray(mean, dtype=np.float64))
        self.std = np.atleast_1d(np.asarray(std, dtype=np.float64))
        if self.mean.ndim != 1 or self.std.ndim != 1:
            raise ValueError(f"Normalize: mean and std must be numbers or 1-d sequences, got {mean} and {std}")
        if np.any(self.std == 0):
            raise ValueError(f"Normalize: std evaluated to zero, leading to division by zero (std={std})")
        self.inplace = inplace

    def __call__(self, x):
        if _is_tensor(x):
            _check_cpu_tensor(x, "Normalize")
            self._check(x.dtype.is_floating_point, x.dtype, tuple(x.shape))
            from .._factories import as_tensor

            # tensorlab ops (not numpy on a detached view), so autograd follows, as in torchvision
            mean = as_tensor(self.mean, dtype=x.dtype).reshape(-1, 1, 1)
            std = as_tensor(self.std, dtype=x.dtype).reshape(-1, 1, 1)
            # in place through sub_/div_ so autograd's in-place checks (leaf, saved tensor, expanded) apply
            return x.sub_(mean).div_(std) if self.inplace else (x - mean) / std
        arr, _ = _host(x, "Normalize")
        self._check(np.issubdtype(arr.dtype, np.floating) or str(arr.dtype) == "bfloat16", arr.dtype, arr.shape)
        mean = self.mean.astype(arr.dtype).reshape(-1, 1, 1)
        std = self.std.astype(arr.dtype).reshape(-1, 1, 1)
        if self.inplace:
            np.subtract(arr, mean, out=arr)
            np.divide(arr, std, out=arr)
            return x
        return (arr - mean) / std

    def _check(self, is_float: bool, dtype, shape: tuple) -> None:
        if not is_float:
            raise TypeError(f"Normalize: input should be a float image, got {dtype} (use ToTensor first)")
        if len(shape) < 3:
            raise ValueError(f"Normalize: expected an image of shape [..., C, H, W], got shape {shape}")
        c = shape[-3]
        for name, v in (("mean", self.mean), ("std", self.std)):
            if v.size not in (1, c):
                raise ValueError(f"Normalize: {name} has {v.size} values but the image has {c} channels")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mean={self.mean.tolist()}, std={self.std.tolist()})"


def _pair(size, what: str) -> tuple[int, int]:
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{what}: please provide only two dimensions (h, w) for size, got {size!r}")


class RandomCrop:
    """A random ``size`` crop of ``[..., H, W]``, after optional padding (torchvision's arguments)."""

    _MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0, padding_mode: str = "constant",
                 generator=None):
        self.size = _pair(size, "RandomCrop")
        if padding is not None:
            if isinstance(padding, numbers.Integral):
                padding = (int(padding),) * 4
            elif isinstance(padding, Sequence) and len(padding) == 2:
                padding = (int(padding[0]), int(padding[1])) * 2  # (left/right, top/bottom)
            elif isinstance(padding, Sequence) and len(padding) == 4:
                padding = tuple(int(p) for p in padding)  # (left, top, right, bottom)
            else:
                raise ValueError(f"RandomCrop: padding must be an int or a 2- or 4-element sequence, got {padding!r}")
            if any(p < 0 for p in padding):
                raise ValueError(f"RandomCrop: padding must be non-negative, got {padding}")
        if padding_mode not in self._MODES:
            raise ValueError(f"RandomCrop: padding_mode should be one of {list(self._MODES)}, got {padding_mode!r}")
        if fill is not None and not isinstance(fill, numbers.Real):
            # torchvision takes a per-channel fill only for PIL images; for tensors it raises TypeError
            raise TypeError(f"RandomCrop: fill should be a number (or None for 0), got {fill!r}; a per-channel fill "
                            "is not supported")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode
        self.generator = generator

    def _window(self, n: int, stages: list[tuple[int, int]], start: int, size: int) -> np.ndarray:
        """Indices into an axis of length n of the crop window [start, start + size) of that axis padded
        stage after stage (torchvision pads `padding`, then the `pad_if_needed` amount on the result,
        which differs from one padding by the sum in reflect and symmetric modes)."""
        idx = np.arange(n)
        for before, after in stages:
            idx = np.pad(idx, (before, after), mode=self._MODES[self.padding_mode])
        return idx[start:start + size]

    def __call__(self, x):
        arr, was_tensor = _host(x, "RandomCrop")
        if arr.ndim < 2:
            raise ValueError(f"RandomCrop: expected an image of shape [..., H, W], got shape {arr.shape}")
        left, top, right, bottom = self.padding if self.padding is not None else (0, 0, 0, 0)
        th, tw = self.size
        h, w = arr.shape[-2] + top + bottom, arr.shape[-1] + left + right  # padded size
        row_stages, col_stages = [(top, bottom)], [(left, right)]
        if self.pad_if_needed and (h < th or w < tw):
            dh, dw = max(th - h, 0), max(tw - w, 0)
            left, top, right, bottom = left + dw, top + dh, right + dw, bottom + dh
            h, w = h + 2 * dh, w + 2 * dw
            row_stages.append((dh, dh))
            col_stages.append((dw, dw))
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: required crop size {(th, tw)} is larger than the input image size {(h, w)}")
        rng = _rng(self.generator)
        i = int(rng.integers(0, h - th + 1))
        j = int(rng.integers(0, w - tw + 1))
        fill = 0 if self.fill is None else self.fill  # torchvision: None pads with 0
        if was_tensor:
            return self._crop_tensor(x, i, j, (left, top, right, bottom), fill, row_stages, col_stages)
        if self.padding_mode == "constant":
            # Materialise only the crop: the fill, then the part of the image that falls inside it.
            out = np.full((*arr.shape[:-2], th, tw), fill, dtype=arr.dtype)
            r0, c0 = max(i - top, 0), max(j - left, 0)  # image rows/cols inside the window
            r1, c1 = min(i + th - top, arr.shape[-2]), min(j + tw - left, arr.shape[-1])
            if r1 > r0 and c1 > c0:
                out[..., r0 + top - i:r1 + top - i, c0 + left - j:c1 + left - j] = arr[..., r0:r1, c0:c1]
        else:
            rows = self._window(arr.shape[-2], row_stages, i, th)
            cols = self._window(arr.shape[-1], col_stages, j, tw)
            out = np.ascontiguousarray(arr[..., rows, :][..., cols])
        return _back(out, was_tensor)

    def _crop_tensor(self, x, i: int, j: int, pads: tuple[int, int, int, int], fill, row_stages, col_stages):
        # tensorlab ops (not numpy on a detached view), so autograd follows, as in torchvision
        left, top, right, bottom = pads
        th, tw = self.size
        if self.padding_mode == "constant":
            from ..nn import functional as F

            padded = F.pad(x, (left, right, top, bottom), value=fill) if any(pads) else x
            return padded[..., i:i + th, j:j + tw].contiguous()
        # edge/reflect/symmetric: gather the window's rows and columns of the padded image from x
        from .._factories import as_tensor

        rows = self._window(x.shape[-2], row_stages, i, th)
        cols = self._window(x.shape[-1], col_stages, j, tw)
        return x.index_select(-2, as_tensor(rows)).index_select(-1, as_tensor(cols))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip:
    """Flip ``[..., H, W]`` left-right with probability ``p``."""

    def __init__(self, p: float = 0.5, generator=None):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"RandomHorizontalFlip: p must be in [0, 1], got {p}")
        self.p = p
        self.generator = generator

    def __call__(self, x):
        arr, was_tensor = _host(x, "RandomHorizontalFlip")
        if arr.ndim < 2:
            raise ValueError(f"RandomHorizontalFlip: expected an image of shape [..., H, W], got shape {arr.shape}")
        if _rng(self.generator).random() < self.p:
            # a tensor is flipped with tensorlab's flip, so autograd follows, as in torchvision
            return x.flip(-1) if was_tensor else np.ascontiguousarray(arr[..., ::-1])
        return x

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p})"
