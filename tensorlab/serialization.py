"""``tensorlab.save`` / ``tensorlab.load``: checkpoints in the safetensors layout, never pickle.

File layout (readable by the ``safetensors`` library):

    8 bytes      little-endian u64 N: the header length
    N bytes      JSON header: {"__metadata__": {...strings...}, "<name>": {"dtype": "F32", "shape": [...],
                 "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
    the rest     every entry's bytes (C order), back to back, in header order

Format ``tensorlab-2`` (``__metadata__["format"]``; written since storage sharing was kept): each
header entry is one *storage* — the whole memory block behind one or more of the saved tensors,
written once however many tensors view it, as PyTorch writes each storage once. An entry is named
after a tensor over it (the path of the first one saved, or of one that is exactly the whole
storage, whose shape the entry then has; else the entry is 1-D), so a plain state dict still
reads as ``{name: tensor}`` with the ``safetensors`` library. Tensors that view a storage (tied
weights, a tensor and its slices) come back as views of one new storage, with the saved storage
offsets, shapes and strides: a write through one is seen by the others, on cpu and on cuda.

The object saved is described in ``__metadata__["tensorlab.structure"]`` as JSON. A tensor is
``{"__storage__": entry, "offset": ..., "shape": [...], "stride": [...], "device": ...,
"requires_grad": ...}`` plus ``"class": "Parameter"`` / ``"Buffer"`` (it loads back as one) and
``"attrs"`` (the Python attributes set on it, ``t.foo = ...``, as PyTorch keeps its ``__dict__``).
Also saved: numbers (complex too), strings, bools, None, bytes, bytearrays, dtypes, devices and
Sizes, and dicts (any saveable hashable keys, tuples included; OrderedDict, Counter and a
defaultdict whose default factory is a builtin type keep their type — one with any other factory,
code, is refused; a dict's instance attributes, such as a state dict's ``_metadata`` of module
versions, are kept, and another dict subclass carrying some loads back as an OrderedDict), lists,
tuples, sets and frozensets of them. Anything else, an attribute's value included, is a TypeError.
As pickle's memo does, an object saved more than once (the same tensor, list, dict, set or
bytearray) is written once (``"__id__": n``, later ``{"__ref__": n}``) and loads back as one
object, cycles included. ``__metadata__["tensorlab.crc32"]`` holds a CRC-32 of the structure, the
entries and the data section, so a flipped bit anywhere in the file is reported rather than loaded.

As in PyTorch, a view saves its whole storage (``t[:2]`` of a large tensor writes all of it);
save ``t[:2].clone()`` to write two elements. An entry has one dtype: saving a tensor together with a
``view(dtype)`` of it in another dtype is refused, with PyTorch's RuntimeError.

Files of format ``tensorlab-1`` (one entry per tensor, each holding that tensor's values in C
order, referenced as ``{"__tensor__": entry, ...}``; no sharing, memo or attributes) still load;
a format this module does not know (a newer one) is refused with a CheckpointError.

Writes are atomic: the bytes go to a temporary file in the same directory, are fsync'ed, and
replace the target with ``os.replace`` — an interrupted save leaves the old file intact.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import stat
import struct
import tempfile
import zlib
from collections import Counter, OrderedDict, defaultdict
from pathlib import Path

import numpy as np

from . import _dtype as D
from ._device import device as _Device
from ._layout import non_overlapping_and_dense
from ._tensor import Size, Tensor

FORMAT = "tensorlab-2"
READABLE_FORMATS = ("tensorlab-1", "tensorlab-2")
MAX_HEADER_BYTES = 100 * 1024 * 1024
_DTYPE_CODES = {
    D.bool: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16", D.int32: "I32", D.int64: "I64",
    D.float16: "F16", D.bfloat16: "BF16", D.float32: "F32", D.float64: "F64",
}
_CODE_DTYPES = {v: k for k, v in _DTYPE_CODES.items()}
# defaultdicts keep their type when their default factory is one of these (a factory is code: others are refused)
_FACTORIES = {f.__name__: f for f in (int, float, complex, str, bytes, bool, list, dict, set, frozenset, tuple,
                                      OrderedDict, Counter)}
# objects pickle's memo would send once: saved once and loaded back as one object
_MEMOIZED = (Tensor, list, dict, set, bytearray)


class CheckpointError(RuntimeError):
    """A checkpoint file is truncated, corrupted or not a tensorlab/safetensors file."""


# ----------------------------------------------------------------------------------------------
# save
# ----------------------------------------------------------------------------------------------


def _is_parameter(t: Tensor) -> bool:
    from .nn.parameter import Parameter

    return isinstance(t, Parameter)


def _tensor_class_name(t: Tensor) -> str | None:
    from .nn.parameter import Buffer, Parameter

    if isinstance(t, Parameter):
        return "Parameter"
    if isinstance(t, Buffer):
        return "Buffer"
    return None


def _tensor_attributes(t: Tensor) -> dict:
    from ._tensor_copying import _attributes

    return _attributes(t)


def _instance_attributes(obj) -> dict:
    try:
        return dict(vars(obj))
    except TypeError:  # (a C type without a __dict__: dict, defaultdict)
        return {}


class _Storage:
    """One storage to write: the tensors over it decide the entry's name and shape."""

    __slots__ = ("storage", "dtype", "numel", "nodes", "paths", "covering")

    def __init__(self, storage, dtype):
        self.storage = storage
        self.dtype = dtype
        self.numel = storage.nbytes // dtype.itemsize
        self.nodes: list = []  # the structure nodes that name this storage's entry
        self.paths: list = []
        self.covering = None  # (path, shape) of a tensor that is exactly the whole storage

    def data(self) -> bytes:
        from ._tensor_copying import storage_on_host

        # (the entry is numel elements of the tensors' dtype: a view(dtype) tensor's storage may end in
        # bytes that make no whole element of it, which no tensor over it can reach)
        raw = np.ascontiguousarray(storage_on_host(self.storage)).view(np.uint8)
        return raw[:self.numel * self.dtype.itemsize].tobytes()


class _Saver:
    def __init__(self):
        self.counts: dict = {}  # id -> how often the object is reached (memoized types only)
        self.ids: dict = {}  # id -> its "__id__"
        self.storages: dict = {}  # id of the memory -> _Storage, in the order first met

    # objects reached more than once get an "__id__" (found by a first pass, so the first occurrence carries it)
    def count(self, obj) -> None:
        stack = [obj]
        while stack:
            o = stack.pop()
            if isinstance(o, _MEMOIZED):
                n = self.counts.get(id(o), 0)
                self.counts[id(o)] = n + 1
                if n:
                    continue
            if isinstance(o, Tensor):
                stack.extend(_tensor_attributes(o).values())
            elif isinstance(o, dict):
                for k, v in o.items():
                    stack.append(k)
                    stack.append(v)
                stack.extend(_instance_attributes(o).values())
            elif isinstance(o, list | tuple | set | frozenset):
                stack.extend(o)

    def memo(self, obj, node_of):
        """``{"__ref__": n}`` for an object already written, else ``node_of(extra)`` with its "__id__" in extra."""
        key = id(obj)
        if key in self.ids:
            return {"__ref__": self.ids[key]}
        extra = {}
        if self.counts.get(key, 0) > 1:
            self.ids[key] = extra["__id__"] = len(self.ids)
        return node_of(extra)

    def encode(self, obj, path: str):
        if isinstance(obj, Tensor):
            return self.memo(obj, lambda extra: self.tensor(obj, path, extra))
        if obj is None or isinstance(obj, bool | str):
            return obj
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, Size):
            return {"__size__": list(obj)}
        if isinstance(obj, int | np.integer):
            return int(obj)
        if isinstance(obj, float | np.floating):
            return _float(obj)
        if isinstance(obj, complex | np.complexfloating):
            return {"__complex__": [_float(obj.real), _float(obj.imag)]}
        if isinstance(obj, D.dtype):
            return {"__dtype__": obj.name}
        if isinstance(obj, _Device):
            return {"__device__": str(obj)}
        if isinstance(obj, bytes):
            return {"__bytes__": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, bytearray):
            return self.memo(obj, lambda extra: {"__bytearray__": base64.b64encode(obj).decode("ascii"), **extra})
        if isinstance(obj, dict):
            return self.memo(obj, lambda extra: self.dict(obj, path, extra))
        if isinstance(obj, list):
            return self.memo(obj, lambda extra: self.sequence(obj, path, extra, "__list__"))
        if isinstance(obj, tuple):
            return {"__tuple__": [self.encode(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]}
        if isinstance(obj, set):
            return self.memo(obj, lambda extra: self.sequence(obj, path, extra, "__set__"))
        if isinstance(obj, frozenset):
            return {"__frozenset__": [self.encode(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]}
        raise TypeError(
            f"save: cannot save an object of type {type(obj).__name__}; tensorlab checkpoints hold tensors, numbers, "
            "strings, bytes, bools, None, dtypes, devices and dicts/lists/tuples/sets of them (no pickle)"
        )

    def sequence(self, obj, path, extra, tag):
        items = [self.encode(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]
        if tag == "__list__" and not extra:
            return items  # (a plain JSON list: a list saved once)
        return {tag: items, **extra}

    def dict(self, obj, path, extra):
        node: dict = {"__dict__": None, **extra}
        if isinstance(obj, defaultdict):
            factory = obj.default_factory
            if factory is not None and _FACTORIES.get(getattr(factory, "__name__", None)) is not factory:
                raise TypeError(
                    f"save: cannot save a defaultdict whose default_factory is {factory!r}: it is code, and tensorlab "
                    f"checkpoints hold no code (no pickle); save dict(d), or a defaultdict of one of "
                    f"{', '.join(_FACTORIES)}"
                )
            node["type"] = "defaultdict"
            node["factory"] = None if factory is None else factory.__name__
        elif isinstance(obj, Counter):
            node["type"] = "Counter"
        node["ordered"] = isinstance(obj, OrderedDict)
        items = []
        for k, v in obj.items():
            items.append([self.encode(k, path), self.encode(v, f"{path}.{k}" if path else str(k))])
        node["__dict__"] = items
        attrs = _instance_attributes(obj)
        if attrs:  # (a state dict's _metadata: the module versions its _load_from_state_dict reads)
            node["attrs"] = self.attributes(attrs, path)
        return node

    def attributes(self, attrs: dict, path: str) -> list:
        return [[k, self.encode(v, f"{path}.{k}" if path else str(k))] for k, v in attrs.items()]

    def tensor(self, t: Tensor, path: str, extra: dict) -> dict:
        storage = t._storage
        key = id(storage.data)  # (Tensor.data's alias storage shares the memory, so the data object)
        rec = self.storages.get(key)
        if rec is None:
            rec = self.storages[key] = _Storage(storage, t.dtype)
        elif rec.dtype is not t.dtype:  # (x and x.view(dtype): an entry has one dtype; PyTorch's refusal)
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        name = path or "tensor"
        rec.paths.append(name)
        if (rec.covering is None and t._offset == 0 and t.numel() == rec.numel and t.numel() > 0
                and t.is_contiguous()):
            rec.covering = (name, list(t._shape))
        node = {"__storage__": None, "offset": t._offset, "shape": list(t._shape), "stride": list(t._stride),
                "device": str(t.device), "requires_grad": t.requires_grad}
        rec.nodes.append(node)
        cls = _tensor_class_name(t)
        if cls:
            node["class"] = cls
        node.update(extra)
        attrs = _tensor_attributes(t)
        if attrs:
            node["attrs"] = self.attributes(attrs, path)
        return node

    def entries(self):
        """(name, dtype code, shape, bytes) of each storage; the structure nodes get their entry's name."""
        names = {"__metadata__": True}  # (the header's own entry: a tensor at that path is stored under another name)
        out = []
        for rec in self.storages.values():
            name, shape = rec.covering or (rec.paths[0], [rec.numel])
            if name in names:
                i = 1
                while f"{name}.{i}" in names:
                    i += 1
                name = f"{name}.{i}"
            names[name] = True
            for node in rec.nodes:
                node["__storage__"] = name
            out.append((name, _DTYPE_CODES[rec.dtype], shape, rec.data()))
        return out


def _float(v):
    v = float(v)
    return v if math.isfinite(v) else {"__float__": repr(v)}


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, metadata: dict | None = None) -> None:
    """Write ``obj`` to ``f`` (a path, or a binary file object) in the safetensors layout.

    ``pickle_module``, ``pickle_protocol``, ``_use_new_zipfile_serialization`` and
    ``_disable_byteorder_record`` are PyTorch's and are taken as its calls pass them (positionally
    too), changing nothing: the file holds no pickle and has one layout. ``metadata``: strings
    added to the header's ``__metadata__``.
    """
    saver = _Saver()
    saver.count(obj)
    structure = saver.encode(obj, "")
    header: dict = {}
    chunks = []
    offset = 0
    crc = 0
    for name, code, shape, data in saver.entries():
        crc = zlib.crc32(data, crc)
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [offset, offset + len(data)]}
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
    if n > MAX_HEADER_BYTES or 8 + n > len(blob):
        # PyTorch's own files (pytorch_model.bin, *.pt) are pickles, whose first bytes read as an
        # impossible header length: name them rather than report a corrupted file (checked only
        # here, as a valid header length may begin with the same bytes)
        kind = ("a zip archive of pickles" if blob[:4] == b"PK\x03\x04"
                else "a pickle" if blob[:1] == b"\x80" and 2 <= blob[1] <= 5 else None)
        if kind is not None:
            _fail(where, f"it is {kind}, as torch.save writes; tensorlab reads the safetensors layout only (no "
                         "pickle): convert it where PyTorch is installed, e.g. with "
                         "safetensors.torch.save_file(torch.load(path), 'model.safetensors')")
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


def _to_device(t: Tensor, target: str) -> Tensor:
    if target != "cpu":
        from . import cuda

        if target.startswith("cuda") and not cuda.is_available():
            raise RuntimeError(
                f"load: Attempting to deserialize object on a CUDA device ('{target}') but "
                "tensorlab.cuda.is_available() is False. Use tensorlab.load(..., map_location='cpu') to map your "
                "tensors to the CPU."
            )
        t = t.to(target)
    return t


def _mapped(t: Tensor, saved_device: str, map_location) -> Tensor:
    """``t`` (on the cpu, as read) where ``map_location`` sends a tensor saved from ``saved_device``."""
    target = _target_device(saved_device, map_location)
    if callable(target):
        moved = target(t, saved_device)
        if moved is None:  # (the default, as PyTorch's)
            return _to_device(t, saved_device)
        if not isinstance(moved, Tensor):
            raise TypeError(f"load: map_location must return a Tensor (or None for the default), but it returned "
                            f"{type(moved).__name__} for a tensor saved on '{saved_device}'")
        return moved
    return _to_device(t, target)


def _materialise(name: str, header: dict, data: memoryview, saved_device: str, requires_grad: bool,
                 map_location, where: str, strides=None) -> Tensor:
    """A tensor of a ``tensorlab-1`` file (or of a plain safetensors file): its own entry, in C order."""
    from ._factories import wrap_numpy

    entry = header.get(name)
    if entry is None:
        _fail(where, f"the structure refers to tensor '{name}', which the header does not list")
    dtype = _CODE_DTYPES[entry["dtype"]]
    b, e = entry["data_offsets"]
    arr = np.frombuffer(data[b:e], dtype=dtype.np).reshape(entry["shape"]).copy()
    t = _mapped(wrap_numpy(arr), saved_device, map_location)
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


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Loader:
    def __init__(self, header: dict, data: memoryview, map_location, where: str):
        self.header, self.data, self.map_location, self.where = header, data, map_location, where
        self.memo: dict = {}  # "__id__" -> the object
        self.storages: dict = {}  # entry name -> (the cpu flat tensor read, the mapped flat tensor or None)

    def fail(self, what: str):
        _fail(self.where, what)

    def register(self, node: dict, obj):
        if "__id__" in node:
            self.memo[node["__id__"]] = obj
        return obj

    def decode(self, node):
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "__ref__" in node:
            try:
                return self.memo[node["__ref__"]]
            except (KeyError, TypeError):
                self.fail(f"reference {node['__ref__']!r} to an object not (yet) loaded")
        if "__storage__" in node:
            return self.tensor(node)
        if "__tensor__" in node:  # (format tensorlab-1)
            requires_grad = bool(node.get("requires_grad", False))
            t = _materialise(node["__tensor__"], self.header, self.data, node.get("device", "cpu"), requires_grad,
                             self.map_location, self.where, node.get("stride"))
            if node.get("parameter"):
                from .nn.parameter import Parameter

                t = Parameter(t.detach(), requires_grad=requires_grad)
            return t
        if "__dict__" in node:
            return self.dict(node)
        if "__list__" in node:
            out = self.register(node, [])
            out.extend(self.decode(v) for v in node["__list__"])
            return out
        if "__set__" in node:
            out = self.register(node, set())
            out.update(self.hashable(v) for v in node["__set__"])
            return out
        if "__frozenset__" in node:
            return frozenset(self.hashable(v) for v in node["__frozenset__"])
        if "__tuple__" in node:
            return tuple(self.decode(v) for v in node["__tuple__"])
        if "__size__" in node:
            return Size(node["__size__"])
        if "__float__" in node:
            return float(node["__float__"])
        if "__complex__" in node:
            re, im = (self.decode(v) for v in node["__complex__"])
            return complex(re, im)
        if "__dtype__" in node:
            return D._dtype_by_name(node["__dtype__"])
        if "__device__" in node:
            return _Device(node["__device__"])
        if "__bytes__" in node:
            return base64.b64decode(node["__bytes__"])
        if "__bytearray__" in node:
            return self.register(node, bytearray(base64.b64decode(node["__bytearray__"])))
        self.fail(f"unknown structure node {sorted(node)}")

    def hashable(self, node):
        v = self.decode(node)
        try:
            hash(v)
        except TypeError:
            self.fail(f"a dict key or set element is an unhashable {type(v).__name__}")
        return v

    def dict(self, node: dict):
        kind = node.get("type")
        if kind == "defaultdict":
            factory = node.get("factory")
            if factory is not None and factory not in _FACTORIES:
                self.fail(f"unknown defaultdict factory {factory!r}")
            out = defaultdict(None if factory is None else _FACTORIES[factory])
        elif kind == "Counter":
            out = Counter()
        elif node.get("ordered") or node.get("attrs"):  # (a dict subclass with attributes: an OrderedDict keeps them)
            out = OrderedDict()
        else:
            out = {}
        self.register(node, out)
        for k, v in node["__dict__"]:
            out[self.hashable(k)] = self.decode(v)
        for k, v in node.get("attrs") or ():
            setattr(out, k, self.decode(v))
        return out

    def storage(self, name: str, saved_device: str):
        """The entry ``name`` read once: (the storage's flat tensor where it is mapped, or None when
        ``map_location`` made something of it that is not a flat tensor; the flat cpu tensor read)."""
        got = self.storages.get(name)
        if got is None:
            from ._factories import wrap_numpy

            entry = self.header.get(name)
            if entry is None:
                self.fail(f"the structure refers to storage '{name}', which the header does not list")
            dtype = _CODE_DTYPES[entry["dtype"]]
            b, e = entry["data_offsets"]
            flat = wrap_numpy(np.frombuffer(self.data[b:e], dtype=dtype.np).copy())
            moved = _mapped(flat, saved_device, self.map_location)
            if not (isinstance(moved, Tensor) and moved._shape == flat._shape
                    and (moved._stride == (1,) or flat.numel() <= 1)):
                moved = None  # (map_location made it something else: it is called on each tensor instead)
            got = self.storages[name] = (moved, flat)
        return got

    def tensor(self, node: dict) -> Tensor:
        from .nn.parameter import Buffer, Parameter

        saved_device = node.get("device", "cpu")
        base, flat = self.storage(node["__storage__"], saved_device)
        shape, stride, offset = node.get("shape"), node.get("stride"), node.get("offset")
        if (not isinstance(shape, list) or not isinstance(stride, list) or len(shape) != len(stride)
                or not all(_is_int(s) and s >= 0 for s in shape + stride) or not _is_int(offset) or offset < 0
                or (math.prod(shape) and offset + sum((n - 1) * s for n, s in zip(shape, stride)) >= flat.numel())):
            self.fail(f"tensor of shape {shape}, strides {stride} and offset {offset} does not fit in storage "
                      f"'{node['__storage__']}' of {flat.numel()} elements")
        cls = {"Parameter": Parameter, "Buffer": Buffer, None: Tensor}.get(node.get("class"))
        if cls is None:
            self.fail(f"unknown tensor class {node.get('class')!r}")
        if base is not None:
            t = cls._make(base._storage, tuple(shape), tuple(stride), base._offset + offset, base.dtype)
        else:  # map_location turned the storage into something else: called on this tensor (its values) alone
            view = Tensor._make(flat._storage, tuple(shape), tuple(stride), offset, flat.dtype)
            moved = _mapped(view, saved_device, self.map_location).detach()
            t = cls._make(moved._storage, moved._shape, moved._stride, moved._offset, moved.dtype)
        t._requires_grad = bool(node.get("requires_grad", False)) and t.dtype.is_floating_point
        self.register(node, t)
        for k, v in node.get("attrs") or ():
            t.__dict__[k] = self.decode(v)
        return t


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **pickle_load_args):
    """Read an object written by :func:`save` (or a plain safetensors file: a dict of tensors).

    ``map_location``: None (each tensor to the device it was saved from), a device or string, a
    dict mapping saved device strings to new ones, or ``fn(tensor, saved_device_str)``, called
    (as PyTorch calls it on each storage) with a 1-D cpu tensor of each storage's elements: the
    tensors over it are made over what it returns (a 1-D tensor of the same length; anything else,
    and it is called on each tensor, which then shares nothing), or over the saved device for None.
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
    if meta.get("format") not in READABLE_FORMATS:
        _fail(where, f"format {meta.get('format')!r} is not one this tensorlab reads ({', '.join(READABLE_FORMATS)}); "
                     "it was written by a newer tensorlab")
    try:
        tree = json.loads(structure)
    except json.JSONDecodeError as exc:
        _fail(where, f"the structure metadata is not valid JSON ({exc})")
    return _Loader(header, data, map_location, where).decode(tree)


def save_to_bytes(obj) -> bytes:
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


__all__ = ["CheckpointError", "load", "save"]
