"""``tensorlab.utils.deterministic``: PyTorch's ``fill_uninitialized_memory`` switch.

While deterministic algorithms are on (``tl.use_deterministic_algorithms(True)``) and this flag is
True (the default), the memory of ``empty``, ``empty_like``, ``empty_strided``, ``empty_permuted``,
``new_empty`` and the new elements of ``resize_`` is filled, so a program that reads it by mistake
reads the same values on every run: NaN for floating dtypes, the largest value for integers, True
for bool (PyTorch's values). An ``out=`` tensor that grows is not filled, as in PyTorch.
"""

from __future__ import annotations

fill_uninitialized_memory: bool = True
