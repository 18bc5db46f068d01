"""int8 models through onnxruntime's quantization tools.

``quantize="static"`` runs ``quant_pre_process`` and ``quantize_static`` (QDQ
format, signed int8 activations and weights, per-channel weights, calibrated
on the ``calibration`` inputs); ``quantize="dynamic"`` runs
``quantize_dynamic`` on the dense layers (int8 weights, activations
quantized at run time). Nothing here quantizes a value itself.
"""

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

import onnx
from onnx import helper


QUANTIZE_MODES = ("dynamic", "static")
CALIBRATION_METHODS = ("minmax", "entropy", "percentile")
# The operators each mode quantizes: those holding the weights (dense layers
# and convolutions). Dynamic quantization leaves convolutions alone: its
# ConvInteger has no kernel in onnxruntime-web's wasm backend.
QUANTIZED_OPS = {"static": ("Conv", "MatMul", "Gemm"), "dynamic": ("MatMul", "Gemm")}
QUANTIZED_MARKS = {"QuantizeLinear", "DynamicQuantizeLinear"}
# Biases stay float: quantized to int32 with a scale per element they grow
# the file, and onnxruntime 1.32 fails to adjust per-channel Gemm weights to
# them ("truth value of an array is ambiguous"). The outputs of the
# quantized operators stay float: quantized, onnxruntime's CPU provider fuses
# convolutions into an int8 kernel whose results stray from the QDQ model's
# (by 0.31 in the digits CNN's probabilities, measured with 1.32, where the
# model without them equals its QDQ semantics and is closer to float32).
STATIC_EXTRA_OPTIONS = {
    "QuantizeBias": False,
    "QDQDisableWeightAdjustForInt32Bias": True,
    "OpTypesToExcludeOutputQuantization": list(QUANTIZED_OPS["static"]),
}


def check_quantize_options(quantize, calibration, calibration_method, dtype):
    """Reject option values and combinations before anything is converted."""
    if quantize is not None and quantize not in QUANTIZE_MODES:
        raise ValueError(
            f"quantize must be None, 'dynamic' or 'static', not {quantize!r}"
        )
    if calibration_method not in CALIBRATION_METHODS:
        raise ValueError(
            f"calibration_method must be one of {CALIBRATION_METHODS}, not "
            f"{calibration_method!r}"
        )
    if quantize is None and calibration is not None and dtype != "float16":
        raise ValueError(
            "calibration is the data that quantize='static' calibrates on (and "
            "that the accuracy report of quantize or dtype='float16' uses): pass "
            "quantize='static', or leave calibration out"
        )
    if quantize is not None and dtype == "float16":
        raise ValueError(
            "quantize and dtype='float16' cannot be combined: quantization starts "
            "from a float32 model (dtype='float32')"
        )
    if quantize == "static" and calibration is None:
        raise ValueError(
            "quantize='static' needs calibration data: calibration=[inputs, ...], "
            "each a tuple of values for the model's inputs or a dict by input name, "
            "representative of what the model will see (a few hundred rows)"
        )


def check_float32(model: onnx.ModelProto, dtype):
    """Quantization starts from float32: reject a float64 model."""
    float64 = [
        info.name
        for info in [*model.graph.input, *model.graph.output]
        if info.type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    ] + [
        t.name
        for t in model.graph.initializer
        if t.data_type == onnx.TensorProto.DOUBLE
    ]
    if float64:
        raise ValueError(
            f"quantize needs a float32 model, and this graph computes in float64 "
            f"(PyTensor's default floatX; {', '.join(sorted(float64)[:5])} are "
            f"float64): pass dtype='float32' as well"
            + ("" if dtype is None else f", not dtype={dtype!r}")
        )


def check_something_to_quantize(model: onnx.ModelProto, mode):
    ops = QUANTIZED_OPS[mode]
    if not any(node.op_type in ops for node in model.graph.node):
        raise ValueError(
            f"quantize={mode!r}: the graph has nothing to quantize (no "
            f"{', '.join(ops)} node: quantization stores the weights of matrix "
            "products and convolutions in int8); export it without quantize"
        )


def calibration_feeds(calibration, inputs) -> list[dict[str, np.ndarray]]:
    """Each element of ``calibration`` as a feed by input name, checked against ``inputs``.

    ``inputs`` are the model's ``ValueInfoProto`` inputs. An element is a
    tuple of values (in input order) or a dict by input name; values are cast
    to the input's dtype if they are of the same kind (float, signed or
    unsigned integer, bool), and must have its rank and fixed sizes.
    """
    if isinstance(calibration, Mapping | np.ndarray) or not hasattr(
        calibration, "__iter__"
    ):
        raise TypeError(
            "calibration must be an iterable of input sets (tuples of values in "
            f"input order, or dicts by input name), not {type(calibration).__name__}"
        )
    feeds = [calibration_feed(element, inputs) for element in calibration]
    if not feeds:
        raise ValueError("calibration is empty: it needs at least one input set")
    return feeds


def calibration_feed(element, inputs) -> dict[str, np.ndarray]:
    names = [info.name for info in inputs]
    if isinstance(element, Mapping):
        given = dict(element)
    elif isinstance(element, Sequence) and not isinstance(element, str):
        if len(element) != len(names):
            raise ValueError(
                f"calibration: an input set has {len(element)} values for the "
                f"{len(names)} inputs {names}"
            )
        given = dict(zip(names, element, strict=True))
    else:
        raise TypeError(
            "calibration: each input set must be a tuple of values in input "
            f"order or a dict by input name ({names}), not {type(element).__name__}"
        )
    if missing := [n for n in names if n not in given]:
        raise ValueError(f"calibration: an input set has no value for {missing}")
    if unknown := sorted(set(given) - set(names)):
        raise ValueError(
            f"calibration: the model has no input {unknown}; its inputs are {names}"
        )
    sizes = {}
    return {info.name: checked_value(given[info.name], info, sizes) for info in inputs}


def checked_value(value, info, sizes) -> np.ndarray:
    value = np.asarray(value)
    dtype = helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type)
    dims = list(info.type.tensor_type.shape.dim)
    expected = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims]
    described = f"{dtype.name}{expected}"
    if value.dtype.kind != dtype.kind:
        raise ValueError(
            f"calibration: input {info.name!r} is {described}, but a value given "
            f"for it is {value.dtype.name}"
        )
    mismatch = value.ndim != len(dims)
    for dim, size in zip(dims, value.shape, strict=False):
        if dim.HasField("dim_value"):
            mismatch |= dim.dim_value != size
        elif dim.dim_param:
            mismatch |= sizes.setdefault(dim.dim_param, size) != size
    if mismatch:
        raise ValueError(
            f"calibration: input {info.name!r} has shape {expected}, but a value "
            f"given for it has shape {list(value.shape)}"
        )
    return value.astype(dtype, copy=False)


def quantize_model(model: onnx.ModelProto, mode, feeds, calibration_method):
    """``model`` quantized by onnxruntime; returns it and the settings used."""
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as directory:
        original = Path(directory, "float.onnx")
        prepared, quantized = Path(directory, "pre.onnx"), Path(directory, "q.onnx")
        onnx.save(model, original)
        quant_pre_process(original, prepared, skip_symbolic_shape=True)
        if mode == "static":
            methods = {
                "minmax": CalibrationMethod.MinMax,
                "entropy": CalibrationMethod.Entropy,
                "percentile": CalibrationMethod.Percentile,
            }
            details = {
                "format": "QDQ",
                "activations": "int8",
                "weights": "int8",
                "per_channel": True,
                "bias": "float32",
                "calibration_method": calibration_method,
            }
            quantize_static(
                prepared,
                quantized,
                feed_reader(feeds),
                quant_format=QuantFormat.QDQ,
                op_types_to_quantize=list(QUANTIZED_OPS[mode]),
                per_channel=True,
                activation_type=QuantType.QInt8,
                weight_type=QuantType.QInt8,
                calibrate_method=methods[calibration_method],
                extra_options=dict(STATIC_EXTRA_OPTIONS),
            )
        else:
            details = {"weights": "int8", "activations": "uint8, at run time"}
            quantize_dynamic(
                prepared,
                quantized,
                op_types_to_quantize=list(QUANTIZED_OPS[mode]),
                weight_type=QuantType.QInt8,
            )
        result = onnx.load(str(quantized))
    details["quantized_ops"] = list(QUANTIZED_OPS[mode])
    if not any(node.op_type in QUANTIZED_MARKS for node in result.graph.node):
        raise ValueError(
            f"quantize={mode!r}: onnxruntime's quantizer found nothing to quantize "
            "in this graph; export it without quantize"
        )
    return tidied(result, model), details


def feed_reader(feeds):
    from onnxruntime.quantization import CalibrationDataReader

    class FeedReader(CalibrationDataReader):
        def __init__(self):
            self.remaining = iter(feeds)

        def get_next(self):
            return next(self.remaining, None)

    return FeedReader()


def tidied(quantized: onnx.ModelProto, original: onnx.ModelProto) -> onnx.ModelProto:
    """``quantized`` with ``original``'s producer and metadata, without the
    shapes, the default-valued attributes and the unused opset imports the
    quantizer's passes added."""
    del quantized.graph.value_info[:]
    drop_default_attributes(quantized)
    used = {node.domain for node in quantized.graph.node} | {""}
    imports = [o for o in quantized.opset_import if o.domain in used]
    del quantized.opset_import[:]
    quantized.opset_import.extend(imports)
    quantized.producer_name = original.producer_name
    quantized.producer_version = original.producer_version
    quantized.doc_string = original.doc_string
    quantized.model_version = original.model_version
    quantized.graph.name = original.graph.name
    del quantized.metadata_props[:]
    quantized.metadata_props.extend(original.metadata_props)
    return quantized


def drop_default_attributes(model: onnx.ModelProto):
    """Remove the attributes that only restate their operator's default
    (``quant_pre_process`` writes out every one: ``auto_pad="NOTSET"``,
    ``ceil_mode=0``, ``alpha=1.0``, ...)."""
    opsets = {onnx_domain(o.domain): o.version for o in model.opset_import}
    for node in model.graph.node:
        defaults = operator_defaults(node.op_type, onnx_domain(node.domain), opsets)
        kept = [a for a in node.attribute if defaults.get(a.name) != a]
        if len(kept) < len(node.attribute):
            del node.attribute[:]
            node.attribute.extend(kept)


def operator_defaults(op_type, domain, opsets) -> dict[str, onnx.AttributeProto]:
    try:
        schema = onnx.defs.get_schema(op_type, opsets[domain], domain)
    except (KeyError, onnx.defs.SchemaError):
        return {}
    return {
        name: attribute.default_value
        for name, attribute in schema.attributes.items()
        if attribute.default_value.name
    }


def onnx_domain(domain):
    return "" if domain == "ai.onnx" else domain
