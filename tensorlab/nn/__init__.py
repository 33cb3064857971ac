"""tensorlab.nn: modules, layers, losses and ``functional``, shaped like ``torch.nn``."""

from __future__ import annotations

from . import attention, functional, init, utils
from .modules import *  # noqa: F401,F403
from .modules import Module, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
