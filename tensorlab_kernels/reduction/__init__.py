"""Reduction, softmax and scan kernels (tensorlab issue 3): row reductions over strided inputs."""
