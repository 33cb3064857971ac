"""Fused optimizer updates and multi-tensor utilities (issue 5).

Every elementwise optimizer (SGD, Adam/AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta)
updates a whole parameter group in ONE Triton launch: :mod:`.multi_tensor` cuts the group's
tensors into chunks and hands the kernel a table of chunk addresses ("multi-tensor apply").
Each file holds one optimizer's kernel, its launcher and its numpy twin (the ``cpu`` path),
with the same arguments. :mod:`.multi_tensor` also has the multi-tensor norm, scale and clamp
used by ``tensorlab.nn.utils.clip_grad_norm_`` / ``clip_grad_value_``.
"""

from __future__ import annotations
