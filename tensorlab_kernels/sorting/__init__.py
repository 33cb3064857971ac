"""The sorting kernel family: sort/argsort/topk/kthvalue/median (``sort``), searchsorted (``search``),
unique/unique_consecutive (``unique``). Each module: Triton kernels, launchers, numpy twins."""
