"""The export API: `export_onnx` and `onnx_support_report`.

`export_onnx`'s keyword parameters are the export options, written once:
`ExportOptions` is made from its signature.
"""

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, fields, make_dataclass
from typing import Any

import onnx
from pytensor.link.onnx.builder import DEFAULT_OPSET
from pytensor.link.onnx.export.pipeline import prepare_export, write_export
from pytensor.link.onnx.export.report import SupportReport, UnsupportedGraphError


def export_onnx(
    source,
    path=None,
    *,
    opset: int = DEFAULT_OPSET,
    target: str | None = "onnxruntime",
    dtype: str | None = None,
    input_names=None,
    output_names=None,
    dims: Mapping | None = None,
    weights_as_inputs: Sequence = (),
    doc_string: str = "",
    model_version: int = 0,
    verify=False,
    example_inputs=None,
    test_data: bool = False,
    external_data: bool | None = None,
    quantize: str | None = None,
    calibration: Iterable | None = None,
    calibration_method: str = "minmax",
    float16_io: bool = False,
    metadata: Mapping | None = None,
) -> onnx.ModelProto:
    """Export a PyTensor function or graph as a self-contained ONNX model.

    The model computes the outputs from the explicit inputs. Shared variables
    become initializers holding their current values (equal values are stored
    once); updates are not part of the model; runtime assertions
    (``CheckAndRaise``/``Assert``) are dropped, the model computes the outputs
    as if every assertion held.

    Before anything is written, the model passes
    ``onnx.checker.check_model(full_check=True)``, strict shape inference and,
    if a ``target`` is given, a check that the target runtime has a kernel for
    every operator and dtype in it. Everything that prevents the export is
    reported at once, in an :class:`~pytensor.link.onnx.export.UnsupportedGraphError`.

    Every export with ``quantize`` or ``dtype="float16"`` measures the model
    against the float32 model (bytes, errors per output, argmax agreement)
    and stores the :class:`~pytensor.link.onnx.export.PrecisionReport` in its
    metadata: read it with :func:`~pytensor.link.onnx.export.precision_report`.
    ``verify`` checks the float32 model against PyTensor, before conversion.

    Parameters
    ----------
    source
        A function compiled with ``pytensor.function`` (in any mode: its
        rewritten graph is exported), or a pair ``(inputs, outputs)`` of
        symbolic variables, rewritten as ``mode="ONNX"`` does.
    path
        Where to write the ``.onnx`` file. Writing is atomic: if anything
        fails, an existing file is untouched and no partial file is left.
    opset
        Opset of the default ONNX domain: 18 by default, any from 17 to the
        newest the ``target`` loads. The IR version is the oldest that supports
        the opset.
    target
        ``"onnxruntime"`` (CPU), ``"onnxruntime-web"`` (wasm) or ``None`` (no
        kernel check). See :data:`pytensor.link.onnx.export.targets.TARGETS`.
    dtype
        ``"float32"`` builds the model from a float32 version of the graph:
        float64 inputs, weights, constants and computations become float32, so
        results carry float32 rounding errors (relative ~1e-7 per operation,
        more through cancellation and long reductions). ``"float16"`` converts
        that float32 model with onnxruntime's ``convert_float_to_float16``
        (values beyond float16's range are clamped), its inputs and outputs
        staying float32 unless ``float16_io``. ``None`` keeps the graph's
        dtypes.
    input_names, output_names
        New names for the explicit inputs and the outputs: a list (one per
        input/output) or a dict from the default name to the new one. By
        default, names are the variables' names made ONNX-safe and unique
        (``x.T`` becomes ``x_T``; a second ``x`` becomes ``x_1``); unnamed
        variables are called ``input_<i>``/``output_<i>`` and unnamed shared
        variables ``weight_<i>``.
    dims
        ``{input name: dims}`` with one entry per axis: an ``int`` fixes the
        size, a ``str`` names a symbolic dimension (inputs sharing a name
        must agree on its size), ``None`` keeps the default: the static size of
        the variable's type, else a symbolic dimension ``<input>_dim<axis>``.
        Output dimensions are inferred from the inputs' where ONNX shape
        inference can tell (an output's batch dimension carries the name
        given to the input's, ``"batch"``), else named ``<output>_dim<axis>``.
    weights_as_inputs
        Shared variables (or their names) to keep as model inputs instead of
        storing their values, to feed other weights at run time.
    doc_string, model_version
        Stored in the model, with the producer (``pytensor-onnx`` and its
        version) and the PyTensor version in the metadata. Nothing about the
        machine or the user (paths, names) is stored, and the same graph
        exported twice gives byte-identical files.
    verify
        ``True`` runs the model in onnxruntime on ``example_inputs`` (or
        generated inputs) and compares it with PyTensor's Python
        implementation of the same graph; it also runs it with every symbolic
        dimension at 0, 1 and 7 and reports a dimension that does not follow
        (e.g. one baked into a constant). A list of runtimes among
        ``"onnxruntime"`` and ``"reference"`` (``onnx.reference.ReferenceEvaluator``)
        selects them. A mismatch raises
        :class:`~pytensor.link.onnx.export.ONNXVerificationError` naming the
        first PyTensor node whose ONNX value diverges; nothing is written.
    example_inputs
        Values of the explicit inputs, as a list or a dict by ONNX input name,
        for ``verify`` and ``test_data``.
    test_data
        Also write the inputs and PyTensor's outputs next to the model in the
        ONNX test-data layout (``test_data_set_0/input_0.pb``...,
        ``output_0.pb``...) for any runtime to check itself. Needs ``path``.
    external_data
        Store initializers of 1 KiB or more in a separate file
        ``<path>.<digest>.data`` next to the model. ``None`` (default) does so
        exactly when the model would exceed protobuf's 2 GiB limit.
    quantize
        ``"static"`` quantizes the float32 model (``dtype="float32"`` for a
        float64 graph) with onnxruntime's ``quant_pre_process`` and
        ``quantize_static``: QDQ format, int8 activations and weights,
        per-channel weights, biases kept float32, calibrated on
        ``calibration``; only the inputs and outputs of matrix products and
        convolutions are quantized. ``"dynamic"`` runs ``quantize_dynamic`` on
        the matrix products (int8 weights, activations quantized at run time;
        convolutions stay float, since onnxruntime-web has no
        ``ConvInteger``). The quantized model passes the checks of any
        export, the ``target``'s kernels included.
    calibration
        Input sets representative of the model's use (a few hundred rows in
        all), each a tuple of values in input order or a dict by input name:
        what ``quantize="static"`` calibrates on, and what the accuracy
        report compares on (else ``example_inputs``, else generated inputs).
    calibration_method
        ``"minmax"`` (default), ``"entropy"`` or ``"percentile"``: how
        onnxruntime picks each activation's range from the calibration data.
    float16_io
        With ``dtype="float16"``: make the inputs and outputs float16 too.
    metadata
        ``{key: text}`` added to the model's metadata (``metadata_props``),
        next to the keys the export writes itself, which it cannot replace.

    Returns
    -------
    onnx.ModelProto
        The model, weights included.

    Raises
    ------
    UnsupportedGraphError
        Listing every unsupported Op, type and missing kernel of the graph.
    ONNXVerificationError
        If ``verify`` finds a mismatch.

    Examples
    --------
    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from pytensor.link.onnx import export_onnx
    >>> x = pt.vector("x")
    >>> w = pytensor.shared(np.array([1.0, 2.0]), name="w")
    >>> y = (x * w).sum()
    >>> y.name = "y"
    >>> model = export_onnx(pytensor.function([x], y), dims={"x": (2,)})
    >>> [i.name for i in model.graph.input], [o.name for o in model.graph.output]
    (['x'], ['y'])
    >>> "w" in {t.name for t in model.graph.initializer}
    True
    """
    options = ExportOptions.of_arguments(locals())
    return write_export(source, path, options)


class ExportChoices:
    """What the options of an export imply (`ExportOptions` holds them)."""

    @property
    def graph_dtype(self) -> str | None:
        """The dtype the PyTensor graph is rebuilt in (float16 converts float32)."""
        return "float32" if self.dtype == "float16" else self.dtype

    @property
    def changes_precision(self) -> bool:
        """Whether the float model is quantized or converted to float16."""
        return self.quantize is not None or self.dtype == "float16"

    @classmethod
    def of_arguments(cls, arguments: Mapping):
        """The options among the keyword ``arguments`` of :func:`export_onnx`."""
        return cls(**{option.name: arguments[option.name] for option in fields(cls)})

    def unsupported(self, problems) -> UnsupportedGraphError:
        """The error reporting ``problems`` for an export with these options."""
        report = SupportReport(self.target, self.opset, self.dtype, tuple(problems))
        return UnsupportedGraphError(report)


def keyword_fields(function) -> list[tuple]:
    """The keyword-only parameters of ``function`` as dataclass fields."""
    return [
        (
            parameter.name,
            Any if parameter.annotation is parameter.empty else parameter.annotation,
            field(default=parameter.default),
        )
        for parameter in inspect.signature(function).parameters.values()
        if parameter.kind is parameter.KEYWORD_ONLY
    ]


ExportOptions = make_dataclass(
    "ExportOptions",
    keyword_fields(export_onnx),
    bases=(ExportChoices,),
    frozen=True,
    namespace={
        "__doc__": "Everything :func:`export_onnx` was asked for: its keyword parameters."
    },
)


def onnx_support_report(
    source,
    *,
    target: str | None = "onnxruntime",
    opset: int = DEFAULT_OPSET,
    dtype: str | None = None,
) -> SupportReport:
    """List everything that prevents exporting a graph, all at once.

    Parameters
    ----------
    source
        A function compiled with ``pytensor.function`` (in any mode), or a pair
        ``(inputs, outputs)`` of symbolic variables (rewritten like
        ``mode="ONNX"`` does).
    target, opset, dtype
        As for :func:`~pytensor.link.onnx.export.export_onnx`.

    Returns
    -------
    SupportReport
        Every Op without a converter, every value ONNX cannot carry and every
        ONNX node the target has no kernel for, each with the PyTensor
        variable and the user code that created it. ``str(report)`` is a
        readable summary, ``report.to_dict()`` plain data.

    Examples
    --------
    >>> import pytensor.tensor as pt
    >>> from pytensor.link.onnx import onnx_support_report
    >>> x = pt.vector("x")
    >>> onnx_support_report(([x], pt.exp(x))).ok
    True
    """
    try:
        prepare_export(source, ExportOptions(opset=opset, target=target, dtype=dtype))
    except UnsupportedGraphError as err:
        return err.report
    return SupportReport(target=target, opset=opset, dtype=dtype, problems=())
