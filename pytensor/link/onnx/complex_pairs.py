"""Complex values as ONNX holds them: real tensors with a trailing axis of 2
(the real and the imaginary part), the representation torch.onnx uses.

The runtime converts arrays at the function boundary with these, and the
converters read and make values with them; nothing here imports onnx.
"""

import numpy as np
from pytensor.graph.basic import Variable
from pytensor.scalar.basic import ScalarType
from pytensor.tensor.type import DenseTensorType


def complex_parts_dtype(dtype) -> str:
    """The real dtype of the parts of a complex ``dtype`` (complex128: float64)."""
    return str(np.finfo(np.dtype(dtype)).dtype)


def as_real_pairs(array: np.ndarray, dtype=None) -> np.ndarray:
    """A complex ``array`` as ONNX holds it: the real and imaginary parts along
    a trailing axis of length 2, of ``dtype`` (by default the parts' own),
    without a copy when ``array`` is C-contiguous."""
    parts = complex_parts_dtype(array.dtype)
    pairs = np.asarray(array, order="C").reshape(-1).view(parts)
    return np.asarray(pairs.reshape((*array.shape, 2)), dtype=dtype or parts)


def as_onnx_array(value) -> np.ndarray:
    """``value`` as the array ONNX holds: a complex one as its real pairs."""
    array = np.asarray(value)
    return as_real_pairs(array) if array.dtype.kind == "c" else array


def from_real_pairs(pairs: np.ndarray, dtype) -> np.ndarray:
    """The complex array of ``dtype`` whose parts ``pairs`` holds along its
    last axis (`as_real_pairs` reversed; a view of ``pairs`` if it is C-contiguous)."""
    parts = np.asarray(pairs, dtype=complex_parts_dtype(dtype), order="C")
    return parts.view(dtype).reshape(parts.shape[:-1])


def is_complex(var: Variable) -> bool:
    """Whether ``var`` is a complex tensor or scalar, which ONNX holds as the
    real pair of its parts along a trailing axis."""
    return (
        isinstance(var.type, DenseTensorType | ScalarType)
        and np.dtype(var.type.dtype).kind == "c"
    )
