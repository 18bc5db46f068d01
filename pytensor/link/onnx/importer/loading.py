"""Turn a path, bytes or ``ModelProto`` into a validated ``ModelProto``.

Models may come from untrusted sources. External data is read only from files
inside the model's own folder, every declared size is checked against the
bytes actually present before anything is allocated, and malformed or
truncated input raises :class:`ONNXImportError`.
"""

import math
import os
from pathlib import Path

from google.protobuf.message import DecodeError

import onnx
from onnx import TensorProto, numpy_helper
from pytensor.link.onnx.importer.dtypes import numpy_dtype, type_name
from pytensor.link.onnx.importer.errors import ONNXImportError


MAX_MODEL_BYTES = 2**31 - 1
MAX_TENSOR_BYTES = 2**34
OLDEST_HANDLED_OPSET = 7

TYPED_FIELDS = {
    TensorProto.FLOAT: ("float_data", 1),
    TensorProto.COMPLEX64: ("float_data", 2),
    TensorProto.DOUBLE: ("double_data", 1),
    TensorProto.COMPLEX128: ("double_data", 2),
    TensorProto.INT64: ("int64_data", 1),
    TensorProto.UINT32: ("uint64_data", 1),
    TensorProto.UINT64: ("uint64_data", 1),
}


def load_model(source, *, base_dir=None, max_tensor_bytes=MAX_TENSOR_BYTES):
    """Return ``source`` as a checked ``ModelProto`` with its external data inlined.

    ``source`` is a path, the bytes of a model, or a ``ModelProto``; external
    data is looked up in ``base_dir``, by default the folder of the path.
    """
    if isinstance(source, onnx.ModelProto):
        model = onnx.ModelProto()
        model.CopyFrom(source)
    elif isinstance(source, bytes | bytearray | memoryview):
        model = parse_model(bytes(source))
    else:
        path = Path(source)
        base_dir = path.parent if base_dir is None else base_dir
        model = parse_model(read_model_file(path))
    inline_external_data(model, base_dir, max_tensor_bytes)
    for tensor in all_tensors(model):
        check_tensor_size(tensor, max_tensor_bytes)
    check_structure(model)
    return upgrade_old_opset(model)


def read_model_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_MODEL_BYTES:
            raise ONNXImportError(
                f"{path} is {size} bytes, more than a protobuf can hold"
            )
        return path.read_bytes()
    except OSError as err:
        raise ONNXImportError(f"cannot read the ONNX file {path}: {err}") from err


def parse_model(data: bytes) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as err:
        raise ONNXImportError(
            f"not a valid ONNX model (malformed or truncated protobuf): {err}"
        ) from err
    return model


def check_structure(model: onnx.ModelProto):
    if not model.HasField("graph") or not model.ir_version:
        raise ONNXImportError(
            "not a valid ONNX model: it has no graph or no IR version "
            "(is this an ONNX file?)"
        )
    try:
        onnx.checker.check_model(model)
    except (onnx.checker.ValidationError, RuntimeError, ValueError) as err:
        raise ONNXImportError(f"not a valid ONNX model: {err}") from err


def upgrade_old_opset(model: onnx.ModelProto) -> onnx.ModelProto:
    opset = default_opset(model)
    if opset is None or opset >= OLDEST_HANDLED_OPSET:
        return model
    try:
        return onnx.version_converter.convert_version(model, OLDEST_HANDLED_OPSET)
    except Exception as err:
        raise ONNXImportError(
            f"the model uses opset {opset}; converting it to opset "
            f"{OLDEST_HANDLED_OPSET} failed: {err}"
        ) from err


def default_opset(model) -> int:
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    return versions[0] if versions else None


def graph_tensors(graph: onnx.GraphProto):
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield from (sparse.values, sparse.indices)
    for node in graph.node:
        yield from node_tensors(node)


def node_tensors(node: onnx.NodeProto):
    for attribute in node.attribute:
        if attribute.HasField("t"):
            yield attribute.t
        yield from attribute.tensors
        if attribute.HasField("sparse_tensor"):
            yield from (attribute.sparse_tensor.values, attribute.sparse_tensor.indices)
        for graph in [attribute.g, *attribute.graphs]:
            yield from graph_tensors(graph)


def all_tensors(model: onnx.ModelProto):
    yield from graph_tensors(model.graph)
    for function in model.functions:
        for node in function.node:
            yield from node_tensors(node)


def declared_bytes(tensor: TensorProto, max_tensor_bytes: int) -> int:
    """The byte size ``tensor``'s dims and type declare, refused above the limit."""
    if any(dim < 0 for dim in tensor.dims):
        raise ONNXImportError(f"tensor {tensor.name!r} has negative dims {tensor.dims}")
    try:
        itemsize = numpy_dtype(tensor.data_type).itemsize
    except NotImplementedError:
        return 0
    size = math.prod(tensor.dims) * itemsize
    if size > max_tensor_bytes:
        raise ONNXImportError(
            f"tensor {tensor.name!r} declares {size} bytes (dims {list(tensor.dims)}), "
            f"more than the limit of {max_tensor_bytes}"
        )
    return size


def check_tensor_size(tensor: TensorProto, max_tensor_bytes: int):
    """Refuse a tensor whose data does not hold exactly what its dims declare."""
    size = declared_bytes(tensor, max_tensor_bytes)
    if tensor.data_location == TensorProto.EXTERNAL or tensor.data_type == 0:
        return
    count = math.prod(tensor.dims)
    if tensor.HasField("raw_data"):
        present, expected = len(tensor.raw_data), size
    elif tensor.data_type in TYPED_FIELDS:
        field, per_element = TYPED_FIELDS[tensor.data_type]
        present, expected = len(getattr(tensor, field)), count * per_element
    elif tensor.data_type == TensorProto.STRING:
        present, expected = len(tensor.string_data), count
    else:
        present, expected = len(tensor.int32_data), count
    if present != expected:
        raise ONNXImportError(
            f"tensor {tensor.name!r} of type {type_name(tensor.data_type)} and dims "
            f"{list(tensor.dims)} holds {present} values/bytes instead of {expected}"
        )


def inline_external_data(model, base_dir, max_tensor_bytes):
    for tensor in all_tensors(model):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        if base_dir is None:
            raise ONNXImportError(
                f"tensor {tensor.name!r} is stored in an external file, but the "
                "model was not loaded from a path: pass base_dir"
            )
        tensor.raw_data = read_external_data(tensor, base_dir, max_tensor_bytes)
        del tensor.external_data[:]
        tensor.data_location = TensorProto.DEFAULT


def read_external_data(tensor, base_dir, max_tensor_bytes) -> bytes:
    info = {entry.key: entry.value for entry in tensor.external_data}
    path = confined_path(info.get("location", ""), base_dir, tensor.name)
    try:
        offset = int(info.get("offset", 0))
        expected = declared_bytes(tensor, max_tensor_bytes)
        length = int(info.get("length", expected))
    except ValueError as err:
        raise ONNXImportError(
            f"tensor {tensor.name!r} has a malformed external data entry: {err}"
        ) from err
    if offset < 0 or length != expected:
        raise ONNXImportError(
            f"tensor {tensor.name!r} declares {expected} bytes but its external "
            f"data entry says offset {offset}, length {length}"
        )
    available = path.stat().st_size - offset
    if available < length:
        raise ONNXImportError(
            f"tensor {tensor.name!r} needs {length} bytes from {path.name} at offset "
            f"{offset}, but the file holds only {max(available, 0)}"
        )
    with path.open("rb") as file:
        file.seek(offset)
        return file.read(length)


def confined_path(location: str, base_dir, tensor_name: str) -> Path:
    """The file ``location`` names inside ``base_dir``, refusing any way out of it."""
    relative = Path(location)
    if not location or relative.is_absolute() or ".." in relative.parts:
        raise ONNXImportError(
            f"tensor {tensor_name!r}: external data location {location!r} must be a "
            "relative path inside the model's folder (no absolute path, no '..')"
        )
    base = Path(os.path.realpath(base_dir))
    path = Path(os.path.realpath(base / relative))
    if not path.is_relative_to(base):
        raise ONNXImportError(
            f"tensor {tensor_name!r}: external data location {location!r} leaves "
            f"the model's folder {base} (through a symbolic link)"
        )
    if not path.is_file():
        raise ONNXImportError(
            f"tensor {tensor_name!r}: external data file {location!r} does not exist "
            f"in {base}"
        )
    return path


def tensor_to_array(tensor: TensorProto, float_dtype=None):
    """The NumPy value of a checked tensor, floats as ``float_dtype`` when given."""
    dtype = numpy_dtype(tensor.data_type, float_dtype)
    return numpy_helper.to_array(tensor).astype(dtype, copy=False)
