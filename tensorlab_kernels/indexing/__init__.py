"""The indexing kernel family: gather/index_select/take/advanced indexing reads, the deterministic
scatter family (scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill,
index_put), masked ops with data-dependent output sizes (masked_select, nonzero,
masked_scatter), masked_fill, one_hot and the index-range check.

Modules (each: Triton kernels, launchers, numpy twins):

``segments``  exclusive scan and a stable radix sort by key (integer-only, no atomics)
``index``     min/max of an index tensor (host-side range validation), one_hot
``gather``    reads through an index: gather, index_select, take, advanced getitem
``scatter``   writes through an index, deterministic: sort by destination, reduce each run
``masked``    masked_fill, masked_select, masked_scatter, nonzero (count pass + compaction pass)
``layout``    host-side geometry shared with ``tensorlab`` (advanced-index canonical form)
"""
