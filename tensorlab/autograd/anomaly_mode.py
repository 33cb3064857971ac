"""``detect_anomaly`` / ``set_detect_anomaly``: find the forward op whose backward produced NaN.

While enabled, every recorded node keeps the stack of the forward call that created it, and the
engine checks every gradient a backward rule returns; the first NaN raises a RuntimeError that
names the node, the forward op and where it was called.
"""

from __future__ import annotations

import warnings

from . import graph
from .grad_mode import _DecoratorContextManager


class detect_anomaly(_DecoratorContextManager):  # noqa: N801 - PyTorch's name
    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = dict(graph._anomaly)
        graph._anomaly.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc):
        graph._anomaly.update(self.prev)
        return False

    def clone(self):
        return self.__class__(self.check_nan)


class set_detect_anomaly(_DecoratorContextManager):  # noqa: N801
    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = dict(graph._anomaly)
        self.mode, self.check_nan = bool(mode), check_nan
        graph._anomaly.update(enabled=self.mode, check_nan=check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        graph._anomaly.update(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode, self.check_nan)


def is_anomaly_enabled() -> bool:
    return graph.anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode also checks backward results for NaN (``detect_anomaly(check_nan=...)``)."""
    return bool(graph._anomaly.get("check_nan", True))
