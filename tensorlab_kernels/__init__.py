"""tensorlab_kernels: Triton kernels with numpy twins, and the device runtime.

The low-level layer of tensorlab. It never imports ``tensorlab``: launchers take
:class:`~tensorlab_kernels.runtime.DeviceArray` views, twins take numpy arrays, both with the
same arguments. Families live in their own modules (``copy``, ``random``, ...).
"""

from ._triton import TRITON_AVAILABLE

__all__ = ["TRITON_AVAILABLE"]
