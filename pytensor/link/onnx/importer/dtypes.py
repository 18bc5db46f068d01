"""ONNX element types and the NumPy dtypes PyTensor holds them in."""

import numpy as np

from onnx import TensorProto


ONNX_TO_NUMPY = {
    TensorProto.FLOAT: np.dtype("float32"),
    TensorProto.DOUBLE: np.dtype("float64"),
    TensorProto.FLOAT16: np.dtype("float16"),
    TensorProto.INT8: np.dtype("int8"),
    TensorProto.INT16: np.dtype("int16"),
    TensorProto.INT32: np.dtype("int32"),
    TensorProto.INT64: np.dtype("int64"),
    TensorProto.UINT8: np.dtype("uint8"),
    TensorProto.UINT16: np.dtype("uint16"),
    TensorProto.UINT32: np.dtype("uint32"),
    TensorProto.UINT64: np.dtype("uint64"),
    TensorProto.BOOL: np.dtype("bool"),
    TensorProto.COMPLEX64: np.dtype("complex64"),
    TensorProto.COMPLEX128: np.dtype("complex128"),
}
NUMPY_TO_ONNX = {dtype: code for code, dtype in ONNX_TO_NUMPY.items()}


def type_name(elem_type: int) -> str:
    return (
        TensorProto.DataType.Name(elem_type)
        if elem_type in TensorProto.DataType.values()
        else str(elem_type)
    )


def is_supported(elem_type: int) -> bool:
    return elem_type in ONNX_TO_NUMPY


def numpy_dtype(elem_type: int, float_dtype=None) -> np.dtype:
    """The dtype of ``elem_type``, floats as ``float_dtype`` when it is given."""
    try:
        dtype = ONNX_TO_NUMPY[elem_type]
    except KeyError:
        raise NotImplementedError(
            f"ONNX type {type_name(elem_type)} has no PyTensor dtype"
        ) from None
    if float_dtype is not None and dtype.kind == "f":
        return np.dtype(float_dtype)
    return dtype


def onnx_type(dtype) -> int:
    return NUMPY_TO_ONNX[np.dtype(dtype)]
