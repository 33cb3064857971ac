"""tensorlab: a torch-free deep learning framework for NVIDIA GPUs.

Every op is a Triton kernel with a numpy twin; ``cpu`` tensors run the twins, ``cuda`` tensors
the kernels (real on a GPU, interpreted with ``TRITON_INTERPRET=1``). The API follows
PyTorch's names: ``import tensorlab as tl; tl.tensor(...); tl.nn.Linear; tl.optim.AdamW``.
"""

from __future__ import annotations

from tensorlab_kernels.runtime.errors import OutOfMemoryError

# importing these attaches their ops to Tensor as methods
from . import (  # noqa: E402,I001  (after the ops they compose)
    _copy_ops,
    _dlpack,
    _dtype,
    _indexing,
    _resize,
    _views,
    accelerator,
    amp,
    autograd,
    backends,
    compiler,
    cpu,
    cuda,
    datasets,
    distributed,
    distributions,
    func,
    jit,
    library,
    linalg,
    nn,
    optim,
    random,
    return_types,
    special,
    testing,
    utils,
    version,
)
from ._broadcast import public_broadcast_shapes as broadcast_shapes
from ._compile import compile
from ._copy_ops import as_strided_scatter, clone, contiguous
from ._determinism import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from ._device import device, get_default_device, set_default_device
from ._dlpack import from_dlpack
from ._dtype import (
    bfloat16,
    bool,
    can_cast,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from ._dtype import public_result_type as result_type  # (the internal result_type takes any operands)
from ._factories import (
    arange,
    as_tensor,
    asarray,
    empty,
    empty_like,
    eye,
    fill_,
    from_numpy,
    frombuffer,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zero_,
    zeros,
    zeros_like,
)
from ._factories import (
    deprecated_range as range,  # (shadows the builtin in this module's namespace, as torch.range does)
)
from ._layout import channels_last, channels_last_3d, contiguous_format, layout, memory_format, preserve_format, strided
from ._random import (
    Generator,
    bernoulli,
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from ._registry import OpDef, get_op, registered_ops
from ._repr import set_printoptions
from ._sampling import multinomial
from ._tensor import Size, Tensor
from ._threads import get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads
from ._top_level_functional import *  # noqa: F403  (ATen's signatures: dropout(input, p, train), kl_div, ...)
from ._views import (
    adjoint,
    as_strided,
    as_strided_,
    broadcast_to,
    chunk,
    conj,
    conj_physical,
    conj_physical_,
    diagonal,
    expand,
    flatten,
    imag,
    is_conj,
    is_neg,
    moveaxis,
    movedim,
    narrow,
    permute,
    real,
    reshape,
    resolve_conj,
    resolve_neg,
    select,
    split,
    split_with_sizes,
    squeeze,
    swapaxes,
    swapdims,
    t,
    tensor_split,
    transpose,
    unbind,
    unflatten,
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
    unsqueeze,
)
from ._warn_always import is_warn_always_enabled, set_warn_always
from .amp import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled
from .amp.autocast_mode import get_autocast_gpu_dtype
from .autograd import (
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.grad_mode import is_inference_mode_enabled
from .linalg import (
    chain_matmul,  # (PyTorch's deprecated top-level alias of linalg.multi_dot)
    matrix_power,
)
from .nn.functional import (  # (PyTorch has them at the top level too)
    celu,
    celu_,
    cosine_similarity,
    hardshrink,
    pairwise_distance,
    prelu,
    rrelu,
    rrelu_,
    threshold,
    threshold_,
)
from .ops import *  # noqa: F403  (the op families: elementwise, reductions, matmul, indexing, shape, sorting)
from .serialization import load, save
from .utils.dlpack import to_dlpack

__version__ = "0.1.0"

# PyTorch's legacy typed-tensor constructors (tl.FloatTensor(2, 3), tl.cuda.LongTensor([1]))
from ._legacy_tensor_types import CPU_TYPES as _CPU_TYPES  # noqa: E402
from ._legacy_tensor_types import CUDA_TYPES as _CUDA_TYPES  # noqa: E402
from ._legacy_tensor_types import set_default_tensor_type  # noqa: E402,F401
from ._tensor_host_methods import typename  # noqa: E402,F401

globals().update(_CPU_TYPES)
vars(cuda).update(_CUDA_TYPES)

# PyTorch's list-of-tensors ops (tl._foreach_mul_(params, 0.999), ...)
from ._foreach import functions as _foreach_functions  # noqa: E402

globals().update(_foreach_functions())
del _foreach_functions  # (not a _foreach_ op itself)

# PyTorch's constants at the top level
import math as _math  # noqa: E402

e, pi, inf, nan = _math.e, _math.pi, _math.inf, _math.nan
newaxis = None

# the functions that are a method's own body check that their first argument is a Tensor
from ._tensor import checked_function as _checked_function  # noqa: E402

for _name in ("adjoint", "contiguous", "detach", "flatten", "ravel", "reshape", "sum_to_size", "t", "zero_"):
    globals()[_name] = _checked_function(globals()[_name], _name)
for _name in ("is_inference", "is_same_size"):  # (methods only until here)
    globals()[_name] = _checked_function(getattr(Tensor, _name), _name)
del _name

# PyTorch's factory keywords layout= and pin_memory= (requires_grad= where missing) on the public
# factories; tensorlab's own code calls the functions underneath, without the wrapper's cost
from ._factories import torch_factory as _torch_factory  # noqa: E402

for _name in ("zeros", "ones", "full", "empty", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like",
              "full_like", "empty_like", "empty_strided", "scalar_tensor", "tril_indices", "triu_indices", "range",
              "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like"):
    globals()[_name] = _torch_factory(globals()[_name])
del _name, _torch_factory

# PyTorch's NumPy keyword names (axis=, keepdims=) on the public functions and methods
from . import _numpy_names  # noqa: E402

_numpy_names.install(globals(), [n for n in dir() if not n.startswith("_")])
_numpy_names.install(vars(linalg), linalg.__all__)
_numpy_names.install(vars(special), special.__all__)
_numpy_names.install_methods(Tensor)

# every public function pickles by its public name (factory-made functions and wrappers otherwise
# point at a local or a shadowed name)
from . import _pickle_names  # noqa: E402

_pickle_names.publish(__name__, [n for n in dir() if not n.startswith("_") or n.startswith("_foreach_")])
_pickle_names.publish(linalg.__name__, linalg.__all__)
_pickle_names.publish(special.__name__, special.__all__)
_pickle_names.publish(nn.functional.__name__, [n for n in dir(nn.functional) if not n.startswith("_")])
