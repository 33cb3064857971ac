"""Fused kernels for ``tensorlab.nn`` (issue 5), one module per op group: ``layer_norm`` (LayerNorm and
RMSNorm), ``dropout``, ``embedding``, and the losses' and attention's kernels."""
