"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each works as a context manager and as a decorator, and the state is per thread (as in
PyTorch: a DataLoader thread does not see the main thread's ``no_grad``).
"""

from __future__ import annotations

import functools
import inspect
import threading


class _GradState(threading.local):
    """Each thread's grad modes; the class attributes are a new thread's values. (Read as plain
    attributes: every op asks, and ``getattr(local, name, default)`` on a thread that never set
    the attribute raises and catches an AttributeError, ten times the cost.)"""

    enabled = True
    inference = False


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether operations are recorded: grad mode on and inference mode off (inside
    ``inference_mode()`` an ``enable_grad()`` records nothing, as in PyTorch, whose own
    ``is_grad_enabled()`` then says True)."""
    return _state.enabled


def _set(enabled: bool) -> None:
    _state.enabled = enabled and not _state.inference


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions and generators."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError("grad-mode decorators apply to functions, not classes")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as done:  # the generator finished: so does this one, with its value
                    return done.value

            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also a decorator without parentheses: ``@no_grad`` as ``@no_grad()`` (PyTorch allows both)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable recording of operations for autograd inside the block."""

    def __enter__(self):
        self.prev = is_grad_enabled()
        _set(False)

    def __exit__(self, *exc):
        _set(self.prev)
        return False


class enable_grad(_NoParamDecoratorContextManager):
    """Enable recording inside the block (e.g. within ``no_grad``)."""

    def __enter__(self):
        self.prev = is_grad_enabled()
        _set(True)

    def __exit__(self, *exc):
        _set(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect immediately, and is undone on leaving a ``with``."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = is_grad_enabled()
        self.mode = mode
        _set(self.mode)

    def __call__(self, fn):
        # As a decorator, @set_grad_enabled(False) only applies inside the function: the mode the
        # constructor set is undone at once (PyTorch's rule), else it would leak into the caller.
        _set(self.prev)
        return super().__call__(fn)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and ``enable_grad``/``set_grad_enabled(True)`` inside it record nothing;
    ``inference_mode(False)`` turns grad mode on, as PyTorch's (tensorlab has no separate
    inference-tensor kind: ``Tensor.is_inference()`` is always False and tensors made here have
    no restrictions)."""

    def __new__(cls, mode=True):
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses: ``mode`` is the function

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = _state.enabled, _state.inference
        _state.inference = self.mode
        _state.enabled = not self.mode

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)
