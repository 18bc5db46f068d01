"""What a quantized or half-precision export costs in accuracy and saves in bytes.

Every export with ``quantize=`` or ``dtype="float16"`` measures its model
against the float32 model it was made from and stores the result, a
:class:`PrecisionReport`, in the file's metadata (key
:data:`PRECISION_REPORT_METADATA`); :func:`precision_report` reads it back.
"""

import json
from dataclasses import asdict, dataclass, replace

import numpy as np

import onnx
from onnx import helper


PRECISION_REPORT_METADATA = "precision_report"


@dataclass(frozen=True)
class OutputError:
    """How far one output of the model is from the float32 model's.

    Attributes
    ----------
    name
        The output.
    max_abs_error
        The largest absolute difference.
    max_rel_error
        ``max_abs_error`` relative to the largest magnitude of the float32
        output.
    argmax_agreement
        For a float output of rank 2 or more whose last axis (the class axis)
        has a static size of at least 2: the share of rows whose argmax over
        that axis is the float32 model's. ``None`` for other outputs.
    """

    name: str
    max_abs_error: float
    max_rel_error: float
    argmax_agreement: float | None = None


@dataclass(frozen=True)
class PrecisionReport:
    """The size and accuracy of a quantized or half-precision model.

    Attributes
    ----------
    conversion
        What was done: ``"quantize='static'"``, ``"quantize='dynamic'"`` or
        ``"dtype='float16'"``.
    bytes_before, bytes_after
        Size of the float32 model and of the converted one (its file, with
        this report), serialized with their weights.
    data
        Where the inputs of the comparison came from: ``"calibration"``,
        ``"example_inputs"`` or ``"generated"`` (random values of the input
        types).
    batches
        How many input sets (calls) were compared.
    outputs
        The error of each output.
    details
        The settings of the conversion (calibration method, per-channel
        weights, ...).
    """

    conversion: str
    bytes_before: int
    bytes_after: int
    data: str
    batches: int
    outputs: tuple[OutputError, ...]
    details: dict

    @property
    def size_ratio(self) -> float:
        """How many times smaller the converted model is."""
        return self.bytes_before / self.bytes_after

    def to_dict(self) -> dict:
        """The report as plain data (JSON-serialisable)."""
        data = asdict(self)
        data["outputs"] = [asdict(output) for output in self.outputs]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "PrecisionReport":
        outputs = tuple(OutputError(**output) for output in data["outputs"])
        return cls(**{**data, "outputs": outputs})

    def __str__(self):
        lines = [
            f"{self.conversion}: {self.bytes_before:,} -> {self.bytes_after:,} bytes "
            f"({self.size_ratio:.2f}x smaller); against the float32 model on "
            f"{self.batches} input set(s) ({self.data}):"
        ]
        for output in self.outputs:
            line = (
                f"  {output.name}: max abs error {output.max_abs_error:.3g}, "
                f"max rel error {output.max_rel_error:.3g}"
            )
            if output.argmax_agreement is not None:
                line += f", argmax agrees on {output.argmax_agreement:.1%}"
            lines.append(line)
        return "\n".join(lines)


def precision_report(model) -> PrecisionReport | None:
    """The :class:`PrecisionReport` stored in a model (a ``ModelProto`` or a path).

    ``None`` for a model exported without ``quantize`` or ``dtype="float16"``.

    Examples
    --------
    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from pytensor.link.onnx import export_onnx
    >>> from pytensor.link.onnx.export import precision_report
    >>> x = pt.matrix("x", dtype="float32")
    >>> w = pytensor.shared(np.ones((256, 64), dtype="float32"), name="w")
    >>> model = export_onnx(pytensor.function([x], x @ w), dtype="float16")
    >>> report = precision_report(model)
    >>> report.conversion, report.bytes_after < report.bytes_before
    ("dtype='float16'", True)
    """
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(str(model), load_external_data=False)
    props = {prop.key: prop.value for prop in model.metadata_props}
    if PRECISION_REPORT_METADATA not in props:
        return None
    return PrecisionReport.from_dict(json.loads(props[PRECISION_REPORT_METADATA]))


def store_report(model, report: PrecisionReport):
    entry = model.metadata_props.add()
    entry.key = PRECISION_REPORT_METADATA
    entry.value = json.dumps(report.to_dict(), sort_keys=True)


def measure(conversion, before, after, feeds_list, data, details) -> PrecisionReport:
    """Compare the serialized models ``after`` and ``before`` on every feed."""
    from pytensor.link.onnx.export.verify import runner

    run_before, run_after = runner("onnxruntime", before), runner("onnxruntime", after)
    names = [o.name for o in onnx.load_model_from_string(before).graph.output]
    after_dtypes = input_dtypes(onnx.load_model_from_string(after))
    pairs = [
        (
            run_before(feeds),
            run_after({n: v.astype(after_dtypes[n]) for n, v in feeds.items()}),
        )
        for feeds in feeds_list
    ]
    outputs = tuple(
        output_error(
            name,
            [np.asarray(expected[i]) for expected, _ in pairs],
            [np.asarray(actual[i]) for _, actual in pairs],
        )
        for i, name in enumerate(names)
    )
    return PrecisionReport(
        conversion=conversion,
        bytes_before=len(before),
        bytes_after=len(after),
        data=data,
        batches=len(feeds_list),
        outputs=outputs,
        details=details,
    )


def input_dtypes(model) -> dict[str, np.dtype]:
    return {
        info.name: helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type)
        for info in model.graph.input
    }


def output_error(name, expected, actual) -> OutputError:
    expected_flat = np.concatenate([e.astype("float64").ravel() for e in expected])
    actual_flat = np.concatenate([a.astype("float64").ravel() for a in actual])
    errors = np.abs(actual_flat - expected_flat)
    max_abs = float(errors.max(initial=0.0))
    scale = float(np.abs(expected_flat).max(initial=0.0))
    agreement = None
    first = expected[0]
    if first.dtype.kind == "f" and first.ndim >= 2 and first.shape[-1] >= 2:
        equal = [
            (e.argmax(-1) == a.argmax(-1)).ravel()
            for e, a in zip(expected, actual, strict=True)
        ]
        agreement = float(np.concatenate(equal).mean())
    return OutputError(
        name=name,
        max_abs_error=max_abs,
        max_rel_error=max_abs / scale if scale > 0 else max_abs,
        argmax_agreement=agreement,
    )


def to_float16(model: onnx.ModelProto, float16_io: bool) -> onnx.ModelProto:
    """``model`` computing in float16 (onnxruntime's converter), inputs and
    outputs in float32 unless ``float16_io``."""
    from onnxruntime.transformers.float16 import convert_float_to_float16
    from onnxruntime.transformers.onnx_model import OnnxModel

    converted = OnnxModel(convert_float_to_float16(model, keep_io_types=not float16_io))
    # the converter appends the casts of the inputs after the nodes reading them
    converted.topological_sort()
    return converted.model


def convert_precision(prepared, model: onnx.ModelProto, options, runtime):
    """``model`` (float32, checked) quantized or in float16 as ``options`` say,
    checked like any export and carrying its :class:`PrecisionReport`."""
    from pytensor.link.onnx.export.quantization import (
        check_float32,
        check_something_to_quantize,
        quantize_model,
    )

    feeds, data = comparison_feeds(prepared, model, options)
    if options.quantize is not None:
        check_float32(model, options.dtype)
        check_something_to_quantize(model, options.quantize)
        # static quantization has calibration data (check_quantize_options)
        converted, details = quantize_model(
            model, options.quantize, feeds, options.calibration_method
        )
        conversion = f"quantize={options.quantize!r}"
    else:
        converted = to_float16(model, options.float16_io)
        details = {"inputs_outputs": "float16" if options.float16_io else "float32"}
        conversion = "dtype='float16'"
    check_converted(converted, prepared, options, runtime)
    before, after = model.SerializeToString(), converted.SerializeToString()
    report = measure(conversion, before, after, feeds, data, details)
    return with_report(converted, report)


def with_report(model, report: PrecisionReport) -> onnx.ModelProto:
    """``model`` with ``report`` in its metadata, ``bytes_after`` its size with it."""
    while True:
        stored = onnx.ModelProto()
        stored.CopyFrom(model)
        store_report(stored, report)
        if stored.ByteSize() == report.bytes_after:
            return stored
        report = replace(report, bytes_after=stored.ByteSize())


def comparison_feeds(prepared, model, options):
    """The input sets the report compares on, and where they come from."""
    from pytensor.link.onnx.export.quantization import calibration_feeds
    from pytensor.link.onnx.export.verify import PyTensorReference, evaluable_feeds

    if options.calibration is not None:
        return calibration_feeds(options.calibration, model.graph.input), "calibration"
    rng = np.random.default_rng(0)
    reference = PyTensorReference(prepared)
    feeds, _ = evaluable_feeds(prepared, reference, options.example_inputs, rng)
    data = "generated" if options.example_inputs is None else "example_inputs"
    return [feeds], data


def check_converted(converted, prepared, options, runtime):
    """The checks every export passes, and the target's kernels."""
    from pytensor.link.onnx.export.report import kernel_problems

    onnx.checker.check_model(converted, full_check=True)
    onnx.shape_inference.infer_shapes(converted, check_type=True, strict_mode=True)
    if runtime is not None:
        gaps = runtime.kernel_gaps(converted)
        if problems := kernel_problems(gaps, prepared.sources):
            raise options.unsupported(problems)
