"""The shape / data-movement family: kernels, launchers and numpy twins.

Most of these ops move every element exactly once, which is what the strided copy kernel
(``tensorlab_kernels.copy``) already does for any pair of strided views, with the dtype cast in
registers. So the launchers here mostly *describe geometry* and call it:

``concat``      cat/stack: one strided copy per input into its slab of the output
``reorder``     flip (a copy from a view with negated strides) and roll (its own kernel)
``replicate``   repeat/tile and integer repeat_interleave (one copy from a stride-0 view);
                tensor-repeats repeat_interleave (a scan, a segment search, a gather) and its
                deterministic segment-sum backward
``triangular``  tril/triu (a masked copy kernel) and diag_embed (zero fill + diagonal copy)
"""
