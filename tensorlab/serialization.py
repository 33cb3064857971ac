"""``tensorlab.save`` / ``tensorlab.load``: checkpoints in the safetensors layout, never pickle.

File layout (readable by the ``safetensors`` library):

    8 bytes      little-endian u64 N: the header length
    N bytes      JSON header: {"__metadata__": {...strings...}, "<name>": {"dtype": "F32", "shape": [...],
                 "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
    the rest     every tensor's bytes (C order), back to back, in header order

The object saved (a tensor or Parameter, a state dict, an optimizer state dict, nested
dicts/lists/tuples of tensors, numbers, strings, bools, None, dtypes and Sizes) is described in
``__metadata__["tensorlab.structure"]`` as JSON in which each tensor is a reference
``{"__tensor__": name, "device": ..., "requires_grad": ...}`` (``"parameter": true`` for a
Parameter). ``__metadata__["tensorlab.crc32"]`` holds a CRC-32 of the data section, so a flipped bit
anywhere in the file is reported rather than loaded.

Writes are atomic: the bytes go to a temporary file in the same directory, are fsync'ed, and
replace the target with ``os.replace`` — an interrupted save leaves the old file intact.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import struct
import tempfile
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np

from . import _dtype as D
from ._layout import non_overlapping_and_dense
from ._tensor import Size, Tensor

FORMAT = "tensorlab-1"
MAX_HEADER_BYTES = 100 * 1024 * 1024
_DTYPE_CODES = {
    D.bool: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16", D.int32: "I32", D.int64: "I64",
    D.float16: "F16", D.bfloat16: "BF16", D.float32: "F32", D.float64: "F64",
}
_CODE_DTYPES = {v: k for k, v in _DTYPE_CODES.items()}


class CheckpointError(RuntimeError):
    """A checkpoint file is truncated, corrupted or not a tensorlab/safetensors file."""


# ----------------------------------------------------------------------------------------------
# save
# ----------------------------------------------------------------------------------------------


def _encode(obj, tensors: list, names: dict, path: str):
    """JSON-able structure for ``obj``; tensors are appended to ``tensors`` with unique names."""
    if isinstance(obj, Tensor):
        name = path or "tensor"
        if name in names:
            i = 1
            while f"{name}.{i}" in names:
                i += 1
            name = f"{name}.{i}"
        names[name] = True
        tensors.append((name, obj))
        ref = {"__tensor__": name, "device": str(obj.device), "requires_grad": obj.requires_grad}
        if obj.dim() > 1 and not obj.is_contiguous() and non_overlapping_and_dense(obj._shape, obj._stride):
            ref["stride"] = list(obj._stride)  # (a transposed/permuted tensor loads back laid out as it was)
        if _is_parameter(obj):  # loads back as a Parameter (assignable to a module's weight)
            ref["parameter"] = True
        return ref
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, Size):
        return {"__size__": list(obj)}
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        v = float(obj)
        return v if math.isfinite(v) else {"__float__": repr(v)}
    if isinstance(obj, D.dtype):
        return {"__dtype__": obj.name}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, str | int | float | bool) and k is not None:
                raise TypeError(f"save: dict keys must be str, int, float, bool or None, got {type(k).__name__}")
            items.append([k, _encode(v, tensors, names, f"{path}.{k}" if path else str(k))])
        return {"__dict__": items, "ordered": isinstance(obj, OrderedDict)}
    if isinstance(obj, list | tuple):
        enc = [_encode(v, tensors, names, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]
        return {"__tuple__": enc} if isinstance(obj, tuple) else enc
    raise TypeError(
        f"save: cannot save an object of type {type(obj).__name__}; tensorlab checkpoints hold tensors, numbers, "
        "strings, bools, None and dicts/lists/tuples of them (no pickle)"
    )


def _is_parameter(t: Tensor) -> bool:
    from .nn.parameter import Parameter

    return isinstance(t, Parameter)


def _tensor_bytes(t: Tensor) -> bytes:
    arr = np.ascontiguousarray(t.detach()._host_array())
    return arr.tobytes()


def save(obj, f, *, metadata: dict | None = None) -> None:
    """Write ``obj`` to ``f`` (a path, or a binary file object) in the safetensors layout."""
    tensors: list = []
    # "__metadata__" is the header's own entry: a tensor at that path is stored under another name
    structure = _encode(obj, tensors, {"__metadata__": True}, "")
    header: dict = {}
    chunks = []
    offset = 0
    crc = 0
    for name, t in tensors:
        data = _tensor_bytes(t)
        crc = zlib.crc32(data, crc)
        header[name] = {"dtype": _DTYPE_CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    structure_json = json.dumps(structure)
    meta.update({"format": FORMAT, "tensorlab.structure": structure_json,
                 "tensorlab.crc32": str(_checksum(structure_json, header, crc))})
    header = {"__metadata__": meta, **header}
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)
    payload = [struct.pack("<Q", len(head)), head, *chunks]
    if hasattr(f, "write"):
        for part in payload:
            f.write(part)
        return
    _write_file(Path(f), payload)


def _write_file(path: Path, parts: list) -> None:
    """Write a checkpoint to ``path`` as PyTorch writes through it, but atomically where that is
    safe: a regular file (the target of a symlink, which keeps pointing at it) is replaced by a
    complete new file with the old one's permissions (a new one gets 0666 less the umask); a device,
    a FIFO or a file with other hard links is written in place."""
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and (not stat.S_ISREG(st.st_mode) or st.st_nlink > 1):
        with open(target, "wb") as out:
            for part in parts:
                out.write(part)
        return
    if st is not None:
        mode = stat.S_IMODE(st.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    _atomic_write(target, parts, mode)


def _checksum(structure_json: str, entries: dict, data_crc: int) -> int:
    """CRC-32 over the structure, every tensor entry and the data: any flipped bit that changes
    a value the loader uses (not JSON whitespace) changes it."""
    crc = zlib.crc32(structure_json.encode("utf-8"))
    crc = zlib.crc32(json.dumps(entries, sort_keys=True, separators=(",", ":")).encode("utf-8"), crc)
    return zlib.crc32(struct.pack("<I", data_crc), crc)


def _atomic_write(path: Path, parts: list, mode: int) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():  # (else mkstemp's error names the temporary file, not the user's path)
        raise RuntimeError(f"save: Parent directory {directory} does not exist.")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)  # (mkstemp makes it 0600)
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                out.write(part)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ----------------------------------------------------------------------------------------------
# load
# ----------------------------------------------------------------------------------------------


def _read_all(f) -> tuple[bytes, str]:
    if hasattr(f, "read"):
        return f.read(), getattr(f, "name", "<file object>")
    path = Path(f)
    if not path.exists():
        raise FileNotFoundError(f"load: no such file: '{path}'")
    return path.read_bytes(), str(path)


def _fail(where: str, what: str):
    raise CheckpointError(f"load: {where} is not a valid tensorlab checkpoint: {what}")


def _parse(blob: bytes, where: str) -> tuple[dict, dict, memoryview]:
    if len(blob) < 8:
        _fail(where, f"file is {len(blob)} bytes, shorter than the 8-byte header length (truncated?)")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > MAX_HEADER_BYTES:
        _fail(where, f"header length {n} exceeds the limit of {MAX_HEADER_BYTES} bytes (corrupted?)")
    if 8 + n > len(blob):
        _fail(where, f"header length {n} runs past the end of the {len(blob)}-byte file (truncated?)")
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        _fail(where, f"header is not valid JSON ({exc})")
    if not isinstance(header, dict):
        _fail(where, "header is not a JSON object")
    meta = header.pop("__metadata__", {}) or {}
    if not isinstance(meta, dict):
        _fail(where, "__metadata__ is not an object")
    data = memoryview(blob)[8 + n:]
    spans = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) - {"dtype", "shape", "data_offsets"}:
            _fail(where, f"tensor '{name}' has a malformed entry {entry!r}")
        dtype = _CODE_DTYPES.get(entry.get("dtype"))
        if dtype is None:
            _fail(where, f"tensor '{name}' has unsupported dtype {entry.get('dtype')!r}")
        shape = entry.get("shape")
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            _fail(where, f"tensor '{name}' has an invalid shape {shape!r}")
        offs = entry.get("data_offsets")
        if (not isinstance(offs, list) or len(offs) != 2 or not all(isinstance(o, int) for o in offs)
                or not 0 <= offs[0] <= offs[1]):
            _fail(where, f"tensor '{name}' has invalid data_offsets {offs!r}")
        if offs[1] > len(data):
            _fail(where, f"tensor '{name}' ends at byte {offs[1]} of a {len(data)}-byte data section (truncated?)")
        expected = math.prod(shape) * dtype.itemsize
        if offs[1] - offs[0] != expected:
            _fail(where, f"tensor '{name}' holds {offs[1] - offs[0]} bytes but dtype {dtype.name} and shape "
                         f"{shape} need {expected}")
        spans.append((offs[0], offs[1], name))
    spans.sort()
    for (_, e0, n0), (b1, _, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            _fail(where, f"tensors '{n0}' and '{n1}' overlap")
    ours = [k for k in ("format", "tensorlab.structure", "tensorlab.crc32")
            if k in meta and (k != "format" or str(meta[k]).startswith("tensorlab"))]
    if ours or any(str(k).startswith("tensorlab") for k in meta):
        # A tensorlab checkpoint: all three entries must be there and the checksum must match.
        if len(ours) != 3:
            _fail(where, f"metadata entries are damaged (found {sorted(meta)})")
        end = spans[-1][1] if spans else 0
        if end != len(data):
            _fail(where, f"data section is {len(data)} bytes, the tensors cover {end} (truncated or appended?)")
        crc = 0
        for b, e, _ in spans:
            crc = zlib.crc32(data[b:e], crc)
        if str(_checksum(meta["tensorlab.structure"], header, crc)) != meta["tensorlab.crc32"]:
            _fail(where, "checksum mismatch (the file is corrupted)")
    return header, meta, data


def _target_device(saved: str, map_location):
    from ._device import device as Device

    if map_location is None:
        return saved
    if callable(map_location) and not isinstance(map_location, str | Device):
        return map_location
    if isinstance(map_location, dict):
        return map_location.get(saved, saved)
    return str(Device(map_location)) if not isinstance(map_location, Device) else str(map_location)


def _materialise(name: str, header: dict, data: memoryview, saved_device: str, requires_grad: bool,
                 map_location, where: str, strides=None) -> Tensor:
    from ._factories import from_numpy

    entry = header.get(name)
    if entry is None:
        _fail(where, f"the structure refers to tensor '{name}', which the header does not list")
    dtype = _CODE_DTYPES[entry["dtype"]]
    b, e = entry["data_offsets"]
    arr = np.frombuffer(data[b:e], dtype=dtype.np).reshape(entry["shape"]).copy()
    t = from_numpy(arr)
    target = _target_device(saved_device, map_location)
    if callable(target):
        t = target(t, saved_device)
    elif target != "cpu":
        from . import cuda

        if target.startswith("cuda") and not cuda.is_available():
            raise RuntimeError(
                f"load: Attempting to deserialize object on a CUDA device ('{target}') but "
                "tensorlab.cuda.is_available() is False. Use tensorlab.load(..., map_location='cpu') to map your "
                "tensors to the CPU."
            )
        t = t.to(target)
    if strides is not None:
        t = _laid_out(t, tuple(strides), where)
    if requires_grad and t.dtype.is_floating_point:
        t.requires_grad_(True)
    return t


def _laid_out(t: Tensor, strides: tuple, where: str) -> Tensor:
    """``t``'s values in the dense layout ``strides`` (the one the saved tensor had)."""
    if len(strides) != t.dim() or not non_overlapping_and_dense(t._shape, strides):
        _fail(where, f"strides {list(strides)} do not lay out a dense tensor of shape {list(t._shape)}")
    from . import no_grad
    from .ops.composite import empty_strided

    with no_grad():
        return empty_strided(t._shape, strides, dtype=t.dtype, device=t.device).copy_(t)


def _decode(node, header, data, map_location, where):
    if isinstance(node, list):
        return [_decode(v, header, data, map_location, where) for v in node]
    if isinstance(node, dict):
        if "__tensor__" in node:
            requires_grad = bool(node.get("requires_grad", False))
            t = _materialise(node["__tensor__"], header, data, node.get("device", "cpu"), requires_grad,
                             map_location, where, node.get("stride"))
            if node.get("parameter"):
                from .nn.parameter import Parameter

                t = Parameter(t.detach(), requires_grad=requires_grad)
            return t
        if "__size__" in node:
            return Size(node["__size__"])
        if "__tuple__" in node:
            return tuple(_decode(v, header, data, map_location, where) for v in node["__tuple__"])
        if "__float__" in node:
            return float(node["__float__"])
        if "__dtype__" in node:
            return D._dtype_by_name(node["__dtype__"])
        if "__dict__" in node:
            cls = OrderedDict if node.get("ordered") else dict
            return cls((k, _decode(v, header, data, map_location, where)) for k, v in node["__dict__"])
        _fail(where, f"unknown structure node {sorted(node)}")
    return node


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **pickle_load_args):
    """Read an object written by :func:`save` (or a plain safetensors file: a dict of tensors).

    ``map_location``: None (each tensor to the device it was saved from), a device or string, a
    dict mapping saved device strings to new ones, or ``fn(tensor, saved_device_str)``.
    ``pickle_module``, ``weights_only``, ``mmap`` and PyTorch's pickle arguments (``encoding=``...)
    are taken as PyTorch's calls pass them and change nothing: the file holds no pickle, so loading
    it runs no code whatever they say.
    """
    blob, where = _read_all(f)
    header, meta, data = _parse(blob, where)
    structure = meta.get("tensorlab.structure")
    if structure is None:  # a safetensors file from elsewhere: a flat dict of tensors
        return OrderedDict((name, _materialise(name, header, data, "cpu", False, map_location, where))
                           for name in header)
    try:
        tree = json.loads(structure)
    except json.JSONDecodeError as exc:
        _fail(where, f"the structure metadata is not valid JSON ({exc})")
    return _decode(tree, header, data, map_location, where)


def save_to_bytes(obj) -> bytes:
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


__all__ = ["CheckpointError", "load", "save"]
