"""Current device, streams and events, per thread, over the active backend.

Mirrors ``torch.cuda``: each thread has a current device and, per device, a current stream
(initially the device's default stream, handle 0 = CUDA's legacy stream, which orders with
every blocking stream). Kernels launch on the current stream of the current device.
"""

from __future__ import annotations

import contextlib
import threading


class _ThreadState(threading.local):
    """Each thread's current device and the streams it made current; the class attributes are a
    new thread's values (read as plain attributes on every launch)."""

    device = 0
    streams = None  # {device index: Stream} once this thread sets a stream (set_stream)


_tls = _ThreadState()

# tensorlab replaces this so Stream.device answers a tensorlab.device; the kernel layer itself
# only knows device indices.
device_factory = int


def _backend():
    from . import get_backend

    b = get_backend()
    if b is None:
        from . import unavailable_reason

        raise RuntimeError(f"cuda is not available: {unavailable_reason()}")
    return b


def current_device() -> int:
    return _tls.device


def set_device(index: int) -> None:
    index = int(index)
    b = _backend()
    if not 0 <= index < b.device_count():
        raise RuntimeError(f"set_device: invalid device ordinal {index} (there are {b.device_count()} devices)")
    b.activate(index)
    _tls.device = index


class Stream:
    """A CUDA stream. ``Stream()`` creates a new non-blocking stream on the current device."""

    def __init__(self, device=None, priority: int = 0, *, _handle: int | None = None):
        self.device_index = current_device() if device is None else _index_of(device)
        self.priority = priority
        if _handle is None:
            self.handle = _backend().stream_create(self.device_index)
            self._owned = True
        else:
            self.handle, self._owned = _handle, False

    @property
    def device(self):
        return device_factory(self.device_index)

    @property
    def cuda_stream(self) -> int:
        return self.handle

    def synchronize(self) -> None:
        _backend().stream_synchronize(self.handle, self.device_index)

    def query(self) -> bool:
        return _backend().stream_query(self.handle, self.device_index)

    def wait_event(self, event: Event) -> None:
        if event.handle is not None:
            _backend().stream_wait_event(self.handle, event.handle, self.device_index)

    def wait_stream(self, stream: Stream) -> None:
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.handle, self.device_index) == (other.handle, other.device_index)

    def __hash__(self):
        return hash((self.handle, self.device_index))

    def __repr__(self):
        return f"<tensorlab.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.handle:#x}>"

    def __del__(self):
        if getattr(self, "_owned", False):
            try:
                _backend().stream_destroy(self.handle, self.device_index)
            except Exception:
                pass


class Event:
    """A CUDA event; created on first ``record`` on the recording stream's device."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        if interprocess:
            raise NotImplementedError("Event(interprocess=True) is not supported by tensorlab")
        self.enable_timing, self.blocking = enable_timing, blocking
        self.handle: int | None = None
        self.device_index: int | None = None

    def record(self, stream: Stream | None = None) -> None:
        stream = current_stream() if stream is None else stream
        b = _backend()
        if self.handle is None:
            self.device_index = stream.device_index
            self.handle = b.event_create(self.device_index, self.enable_timing)
        elif stream.device_index != self.device_index:
            raise RuntimeError(
                f"Event.record: event belongs to cuda:{self.device_index}, stream to cuda:{stream.device_index}"
            )
        b.event_record(self.handle, stream.handle, self.device_index)

    def wait(self, stream: Stream | None = None) -> None:
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        return True if self.handle is None else _backend().event_query(self.handle, self.device_index)

    def synchronize(self) -> None:
        if self.handle is not None:
            _backend().event_synchronize(self.handle, self.device_index)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and ``end_event`` (both recorded, timing enabled)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("elapsed_time: both events must be created with enable_timing=True")
        if self.handle is None or end_event.handle is None:
            raise RuntimeError("elapsed_time: both events must be recorded before calling elapsed_time")
        return _backend().event_elapsed_ms(self.handle, end_event.handle, self.device_index)

    def __repr__(self):
        return f"<tensorlab.cuda.Event handle={self.handle} timing={self.enable_timing}>"

    def __del__(self):
        if getattr(self, "handle", None) is not None:
            try:
                _backend().event_destroy(self.handle, self.device_index)
            except Exception:
                pass


def _index_of(device) -> int:
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    if isinstance(device, str):  # (before the attribute: a str's .index is its method)
        if device == "cuda":
            return current_device()
        if device.startswith("cuda:") and device[5:].isdecimal():
            return int(device[5:])
        raise ValueError(f"Expected a cuda device, but got: {device!r}")
    if hasattr(device, "type"):  # (a device object)
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return current_device() if device.index is None else int(device.index)
    raise ValueError(f"Expected a cuda device, but got {device!r}")


def default_stream(device=None) -> Stream:
    index = _index_of(device)
    defaults = _default_streams()
    s = defaults.get(index)
    if s is None:
        s = defaults[index] = Stream(index, _handle=0)
    return s


def _default_streams() -> dict:
    # Shared across threads: the legacy stream is the same object everywhere.
    return _DEFAULTS


_DEFAULTS: dict[int, Stream] = {}


def current_stream(device=None) -> Stream:
    index = device if device.__class__ is int else _index_of(device)  # every launch and allocation asks
    per_thread = _tls.streams
    if per_thread is not None:
        s = per_thread.get(index)
        if s is not None:
            return s
    s = _DEFAULTS.get(index)
    return s if s is not None else default_stream(index)


def current_stream_handle(device=None) -> int:
    """``current_stream(device).handle``, the question of every launch and allocation: 0 (the
    default stream's handle, CUDA's legacy stream) while this thread has set no stream."""
    if _tls.streams is None:
        return 0
    return current_stream(device).handle


def set_stream(stream: Stream) -> None:
    per_thread = _tls.streams
    if per_thread is None:
        per_thread = _tls.streams = {}
    per_thread[stream.device_index] = stream


@contextlib.contextmanager
def stream(s: Stream | None):
    """Make ``s`` the current stream of its device inside the block (``None`` does nothing)."""
    if s is None:
        yield None
        return
    prev_stream = current_stream(s.device_index)
    prev_device = current_device()
    if s.device_index != prev_device:
        set_device(s.device_index)
    set_stream(s)
    try:
        yield s
    finally:
        set_stream(prev_stream)
        if s.device_index != prev_device:
            set_device(prev_device)


def synchronize(device=None) -> None:
    _backend().synchronize(_index_of(device))
