"""Export PyTensor graphs as ONNX model files to deploy."""

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

import numpy as np
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.tensor.random.op import RandomVariable

import onnx
from onnx import TensorProto, helper, numpy_helper
from pytensor.link.onnx.builder import (
    DEFAULT_OPSET,
    OpsetError,
    UniqueNames,
    sanitize_name,
)
from pytensor.link.onnx.complex_pairs import as_onnx_array
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.dispatch.variables import ONNXConversionError, is_sequence
from pytensor.link.onnx.export.exportable import (
    ExportableGraph,
    RebuildError,
    exportable_graph,
    is_random_generator,
)
from pytensor.link.onnx.export.files import check_file, staged_files
from pytensor.link.onnx.export.precision import (
    PRECISION_REPORT_METADATA,
    convert_precision,
)
from pytensor.link.onnx.export.quantization import check_quantize_options
from pytensor.link.onnx.export.report import (
    SupportProblem,
    SupportReport,
    UnsupportedGraphError,
    conversion_problems,
    kernel_problems,
    user_traceback,
)
from pytensor.link.onnx.export.targets import MIN_OPSET, get_target
from pytensor.link.onnx.export.verify import verify_export
from pytensor.link.onnx.generator_keys import generator_origin
from pytensor.link.onnx.passes import PassContext, run_graph_passes
from pytensor.link.onnx.passes.graphs import (
    model_without,
    names_used_inside,
    replace_uses,
)
from pytensor.link.onnx.pymc import register_converters


PRODUCER = "pytensor-onnx"
# Metadata key of the JSON object {key input: advanced key output or null}
RANDOM_KEYS_METADATA = "random_keys"
PROTOBUF_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class ExportOptions:
    """Everything :func:`export_onnx` was asked for: its keyword parameters."""

    opset: int = DEFAULT_OPSET
    target: str | None = "onnxruntime"
    dtype: str | None = None
    input_names: Sequence | Mapping | None = None
    output_names: Sequence | Mapping | None = None
    dims: Mapping | None = None
    weights_as_inputs: Sequence = ()
    doc_string: str = ""
    model_version: int = 0
    verify: bool | str | Sequence = False
    example_inputs: Sequence | Mapping | None = None
    test_data: bool = False
    external_data: bool | None = None
    quantize: str | None = None
    calibration: Iterable | None = None
    calibration_method: str = "minmax"
    float16_io: bool = False
    metadata: Mapping | None = None

    @property
    def graph_dtype(self) -> str | None:
        """The dtype the PyTensor graph is rebuilt in (float16 converts float32)."""
        return "float32" if self.dtype == "float16" else self.dtype

    @property
    def changes_precision(self) -> bool:
        """Whether the float model is quantized or converted to float16."""
        return self.quantize is not None or self.dtype == "float16"

    @classmethod
    def of_arguments(cls, arguments: Mapping) -> "ExportOptions":
        """The options among the keyword ``arguments`` of :func:`export_onnx`."""
        return cls(**{field.name: arguments[field.name] for field in fields(cls)})

    def unsupported(self, problems) -> UnsupportedGraphError:
        """The error reporting ``problems`` for an export with these options."""
        report = SupportReport(self.target, self.opset, self.dtype, tuple(problems))
        return UnsupportedGraphError(report)


@dataclass(frozen=True)
class PreparedExport:
    """A converted, named, shaped and checked model, not yet written.

    Attributes
    ----------
    graph
        The PyTensor graph the model computes.
    structure
        The model without the weights stored as initializers (small whatever
        the size of the weights).
    skeleton
        ``structure`` with those weights declared as inputs, shapes inferred:
        a valid model to check and analyse.
    weights
        The weights stored as initializers: ``{name: value}``.
    input_names
        ONNX name of each input of ``graph.fgraph`` (``None`` for weights
        stored as initializers).
    output_names
        ONNX name of each output.
    sources
        PyTensor node each ONNX node of the main graph comes from.
    """

    graph: ExportableGraph
    structure: onnx.ModelProto
    skeleton: onnx.ModelProto
    weights: Mapping[str, np.ndarray]
    input_names: tuple[str | None, ...]
    output_names: tuple[str, ...]
    sources: Mapping

    @property
    def too_large_for_protobuf(self) -> bool:
        """Whether the complete model exceeds protobuf's 2 GiB (with a 1 MiB margin)."""
        size = self.structure.ByteSize()
        size += sum(value.nbytes for value in self.weights.values())
        return size >= PROTOBUF_LIMIT - 2**20

    def with_weights(self) -> onnx.ModelProto:
        """The complete model, weights stored in it."""
        model = model_without(self.structure, ())
        for name, value in self.weights.items():
            add_initializer(model.graph, name, value)
        return model

    def with_external_weights(self, location: str, offsets) -> onnx.ModelProto:
        """The model with the weights in ``offsets`` (``{name: (offset, length)}``) in ``location``."""
        model = model_without(self.structure, ())
        for name, value in self.weights.items():
            if name not in offsets:
                add_initializer(model.graph, name, value)
                continue
            tensor = model.graph.initializer.add()
            tensor.name = name
            tensor.data_type = helper.np_dtype_to_tensor_dtype(value.dtype)
            tensor.dims.extend(value.shape)
            tensor.data_location = TensorProto.EXTERNAL
            offset, length = offsets[name]
            for key, entry_value in (
                ("location", location),
                ("offset", str(offset)),
                ("length", str(length)),
            ):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, entry_value
        return model


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


def write_export(source, path, options: ExportOptions) -> onnx.ModelProto:
    """Prepare the export of ``source`` and write it to ``path`` (see :func:`export_onnx`)."""
    if options.test_data and path is None:
        raise ValueError("test_data=True needs a path to write the test data next to")
    check_precision_options(options)
    runtime = get_target(options.target) if options.target is not None else None
    prepared = prepare_export(source, options)
    if (options.verify or options.test_data) and draws_random_numbers(prepared.graph):
        raise ValueError(
            "verify and test_data compare the model with PyTensor's Python "
            "implementation, whose random draws are NumPy's, not the model's: "
            "they cannot check a graph that draws random numbers. Compare the "
            "model with the function compiled with mode='ONNX' instead: fed the "
            "same key (see pytensor.link.onnx.random_key), it draws the same numbers."
        )
    external_data = options.external_data
    if external_data is None:
        external_data = prepared.too_large_for_protobuf
    if external_data and options.changes_precision:
        raise ValueError(
            "The float32 model exceeds protobuf's 2 GiB: quantize and "
            "dtype='float16' do not convert models with external data yet"
        )
    with staged_files(path) as stage:
        if external_data:
            model_file, model = stage.write_external(prepared)
            check_file(model_file)
            runnable = str(model_file)
            if path is None:
                model = prepared.with_weights()
        else:
            model = prepared.with_weights()
            onnx.checker.check_model(model, full_check=True)
            runnable = model.SerializeToString()
        if options.verify or options.test_data:
            feeds, expected = verify_export(
                prepared,
                runnable,
                runtimes=runtimes_to_verify(options.verify),
                example_inputs=options.example_inputs,
            )
            if options.test_data:
                stage.write_test_data(prepared, feeds, expected)
        if options.changes_precision:
            model = convert_precision(prepared, model, options, runtime)
            runnable = model.SerializeToString()
        if path is not None:
            if not external_data:
                stage.write_model_bytes(runnable)
            stage.commit()
    return model


def check_precision_options(options: ExportOptions):
    if options.dtype not in (None, "float64", "float32", "float16"):
        raise ValueError(
            f"dtype must be None, 'float32' or 'float16', not {options.dtype!r}"
        )
    check_quantize_options(
        options.quantize, options.calibration, options.calibration_method, options.dtype
    )
    if options.float16_io and options.dtype != "float16":
        raise ValueError("float16_io=True is an option of dtype='float16'")
    if options.changes_precision and (options.external_data or options.test_data):
        raise ValueError(
            "quantize and dtype='float16' do not write external data or test data "
            "yet: export without external_data and test_data"
        )


def draws_random_numbers(graph: ExportableGraph) -> bool:
    return any(isinstance(node.op, RandomVariable) for node in graph.fgraph.apply_nodes)


def runtimes_to_verify(verify) -> tuple[str, ...]:
    if verify is True:
        return ("onnxruntime",)
    if not verify:
        return ()
    runtimes = (verify,) if isinstance(verify, str) else tuple(verify)
    unknown = set(runtimes) - {"onnxruntime", "reference"}
    if unknown:
        raise ValueError(
            f"verify accepts 'onnxruntime' and 'reference', not {sorted(unknown)}"
        )
    return runtimes


def prepare_export(source, options: ExportOptions) -> PreparedExport:
    """Convert, name, shape and check a model (see :func:`export_onnx`)."""
    runtime = get_target(options.target) if options.target is not None else None
    check_opset(options.opset, runtime)
    try:
        graph = exportable_graph(source, options.graph_dtype)
    except RebuildError as err:
        problem = SupportProblem(
            kind="unsupported_dtype",
            variable=str(err.node.outputs[0]),
            op=str(err.node.op),
            reason=f"dtype={options.dtype!r}: {err.reason}",
            traceback=user_traceback(err.node.outputs[0]),
        )
        raise options.unsupported([problem]) from err
    if problems := typed_list_problems(graph.fgraph):
        raise options.unsupported(problems)
    names = InputOutputNames.of(graph, options.input_names, options.output_names)
    kept = kept_weights(names.weights, options.weights_as_inputs)
    kept |= {names.all_inputs[i] for i in graph.generator_inputs}
    register_converters()
    try:
        converted = onnx_funcify(
            graph.fgraph,
            opset=options.opset,
            input_names=names.all_inputs,
            output_names=names.outputs,
            keep_checks=False,
            random_generators=True,
        )
    except ONNXConversionError as err:
        problems = conversion_problems(err)
        if runtime is not None and err.partial is not None:
            problems += partial_kernel_problems(err.partial, runtime, options.opset)
        raise options.unsupported(problems) from None
    except OpsetError as err:
        problem = SupportProblem(kind="opset", variable="", op="", reason=str(err))
        raise options.unsupported([problem]) from err
    model = converted.model
    actual = [info.name for info in model.graph.input] + [
        info.name for info in model.graph.output
    ]
    assert actual == names.all_inputs + names.outputs, actual
    weights = bake_weights(model, names.weights, graph.weights, kept)
    static_dims_relaxed = set_input_dims(model, options.dims or {})
    context = PassContext(model=model, weights=weights)
    run_graph_passes(model.graph, context)
    weights = context.weights
    set_metadata(model, options, names.random_keys)
    skeleton = skeleton_of(model, weights)
    name_output_dims(model, skeleton, static_dims_relaxed)
    onnx.checker.check_model(skeleton, full_check=True)
    skeleton = onnx.shape_inference.infer_shapes(
        skeleton, check_type=True, strict_mode=True
    )
    if runtime is not None:
        gaps = runtime.kernel_gaps(skeleton)
        if problems := kernel_problems(gaps, converted.sources):
            raise options.unsupported(problems)
    input_map = names.inputs + [n if n in kept else None for n in names.weights]
    return PreparedExport(
        graph=graph,
        structure=model,
        skeleton=skeleton,
        weights=weights,
        input_names=tuple(input_map),
        output_names=tuple(names.outputs),
        sources=converted.sources,
    )


TYPED_LIST_REASON = (
    "typed lists run as ONNX sequences under mode='ONNX', but export_onnx does "
    "not write sequence inputs or outputs yet: pass the elements as separate "
    "tensors, or stack them into one tensor"
)


def typed_list_problems(fgraph) -> tuple[SupportProblem, ...]:
    return tuple(
        SupportProblem(
            kind="unsupported_type",
            variable=str(var),
            op="" if var.owner is None else str(var.owner.op),
            reason=TYPED_LIST_REASON,
            traceback=user_traceback(var),
        )
        for var in (*fgraph.inputs, *fgraph.outputs)
        if is_sequence(var)
    )


def check_opset(opset, runtime):
    newest = runtime.max_opset if runtime else onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        loads = f"{runtime.description} loads" if runtime else "onnx knows"
        raise ValueError(
            f"opset must be between {MIN_OPSET} and {newest} ({loads}), not {opset}"
        )


def partial_kernel_problems(partial, runtime, opset):
    """The kernel gaps of the convertible part of a graph, at its ``opset``."""
    model = partial.model
    if opset < model.opset_import[0].version:
        return []
    try:
        onnx.checker.check_model(model, full_check=True)
        gaps = runtime.kernel_gaps(model)
    except Exception:
        return []
    return kernel_problems(gaps, partial.sources)


@dataclass(frozen=True)
class InputOutputNames:
    """The ONNX names of the explicit inputs, the weights and the outputs.

    ``random_keys`` maps the name of each random generator's key input to the
    name of the output that returns its advanced key (``None`` if the
    function neither updates nor returns that generator).
    """

    inputs: list[str]
    weights: list[str]
    outputs: list[str]
    random_keys: dict[str, str | None]

    @property
    def all_inputs(self) -> list[str]:
        return self.inputs + self.weights

    @classmethod
    def of(cls, graph: ExportableGraph, input_renames, output_renames):
        """Default names (unnamed random generators are ``key_<i>``), then renames."""
        unique = UniqueNames()
        keys = (f"key_{i}" for i in itertools.count())

        def defaults(names, prefix, variables=None):
            def default(i):
                if variables is not None and is_random_generator(variables[i]):
                    return next(keys)
                return f"{prefix}_{i}"

            return [unique.reserve(name or default(i)) for i, name in enumerate(names)]

        weight_names = [w.name for w in graph.weight_inputs]
        inputs = defaults(graph.input_names, "input", graph.explicit_inputs)
        weights = defaults(weight_names, "weight", graph.weight_inputs)
        outputs = defaults(graph.output_names, "output")
        inputs = renamed(inputs, input_renames, "input")
        outputs = renamed(outputs, output_renames, "output")
        all_inputs = inputs + weights
        outputs += [
            unique.reserve(f"{all_inputs[i]}_next") for i in graph.updated_generators
        ]
        random_keys = advanced_keys(graph, all_inputs, outputs)
        all_names = all_inputs + outputs
        duplicates = sorted({n for n in all_names if all_names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Input and output names must be unique: {duplicates}")
        return cls(inputs, weights, outputs, random_keys)


def advanced_keys(graph: ExportableGraph, input_names, output_names):
    """``{key input: the output of its advanced key, or None}``.

    The new value of a generator the function updates, else the first output
    that is the generator advanced by the function's draws.
    """
    fgraph = graph.fgraph
    advanced = {}
    for position, out in enumerate(fgraph.outputs):
        origin = generator_origin(out, fgraph.inputs)
        if origin is not None and origin[1] > 0:
            advanced.setdefault(origin[0], output_names[position])
    n_own = len(graph.output_names)
    for offset, generator in enumerate(graph.updated_generators):
        advanced[generator] = output_names[n_own + offset]
    return {input_names[i]: advanced.get(i) for i in graph.generator_inputs}


def renamed(names, renames, role):
    if renames is None:
        return names
    if isinstance(renames, Mapping):
        unknown = set(renames) - set(names)
        if unknown:
            raise ValueError(
                f"No {role} called {sorted(unknown)}; the {role}s are {names}"
            )
        new = [renames.get(name, name) for name in names]
    else:
        new = list(renames)
        if len(new) != len(names):
            raise ValueError(
                f"{role}_names has {len(new)} names for {len(names)} {role}s {names}"
            )
    for name in new:
        if not isinstance(name, str) or sanitize_name(name) != name:
            raise ValueError(
                f"{name!r} is not a valid {role} name: use letters, digits and "
                "underscores, not starting with a digit"
            )
    return new


def kept_weights(weight_names, weights_as_inputs) -> set[str]:
    kept = set()
    for weight in weights_as_inputs:
        name = weight.name if isinstance(weight, SharedVariable) else weight
        if name not in weight_names:
            raise ValueError(
                f"weights_as_inputs: the graph has no weight {name!r}; its weights "
                f"are {weight_names}"
            )
        kept.add(name)
    return kept


def bake_weights(model, weight_names, values, kept) -> dict[str, np.ndarray]:
    """Remove the weights from the inputs and merge equal values.

    Returns the distinct weights to store as initializers, by name; weights
    and constants equal to an earlier one are replaced by it, and unused
    constants are dropped.
    """
    graph = model.graph
    stored = {
        name: as_onnx_array(value)
        for name, value in zip(weight_names, values, strict=True)
        if name not in kept
    }
    inputs = [info for info in graph.input if info.name not in stored]
    del graph.input[:]
    graph.input.extend(inputs)
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    first_use = names_used_inside(graph)
    same_as = duplicates({n: stored[n] for n in first_use if n in stored} | constants)
    replace_uses(graph, same_as)
    used = names_used_inside(graph)
    kept_constants = [
        t for t in graph.initializer if t.name not in same_as and t.name in used
    ]
    del graph.initializer[:]
    graph.initializer.extend(kept_constants)
    return {n: stored[n] for n in used if n in stored and n not in same_as}


def add_initializer(graph, name, value):
    """Append ``value`` to the initializers, copying its data only once."""
    tensor = graph.initializer.add()
    tensor.name = name
    tensor.data_type = helper.np_dtype_to_tensor_dtype(value.dtype)
    tensor.dims.extend(value.shape)
    tensor.raw_data = np.asarray(
        value, dtype=value.dtype.newbyteorder("<"), order="C"
    ).tobytes()


def duplicates(arrays: Mapping[str, np.ndarray]) -> dict[str, str]:
    """``{name: name of the first array with the same dtype, shape and bytes}``."""
    same_as = {}
    first_of_kind: dict[tuple, list[str]] = {}
    for name, array in arrays.items():
        candidates = first_of_kind.setdefault((array.dtype.str, array.shape), [])
        for other in candidates:
            if same_bytes(array, arrays[other]):
                same_as[name] = other
                break
        else:
            candidates.append(name)
    return same_as


def same_bytes(a, b) -> bool:
    return np.array_equal(
        np.ascontiguousarray(a).reshape(-1).view(np.uint8),
        np.ascontiguousarray(b).reshape(-1).view(np.uint8),
    )


def set_input_dims(model, dims: Mapping) -> bool:
    """Name or fix input dims as ``dims`` says; return whether a static one became symbolic."""
    inputs = {info.name: info for info in model.graph.input}
    relaxed = False
    for name, sizes in dims.items():
        if name not in inputs:
            raise ValueError(
                f"dims: the model has no input {name!r}; its inputs are {list(inputs)}"
            )
        shape = inputs[name].type.tensor_type.shape
        sizes = list(sizes)
        if len(sizes) != len(shape.dim):
            raise ValueError(
                f"dims[{name!r}] has {len(sizes)} entries for an input of rank "
                f"{len(shape.dim)}"
            )
        for axis, (dim, size) in enumerate(zip(shape.dim, sizes, strict=True)):
            if size is None:
                continue
            if isinstance(size, str) and size:
                relaxed |= dim.HasField("dim_value")
                dim.dim_param = size
            elif isinstance(size, int | np.integer) and size >= 0:
                if dim.HasField("dim_value") and dim.dim_value != size:
                    raise ValueError(
                        f"dims[{name!r}][{axis}] = {size} contradicts the static size "
                        f"{dim.dim_value} of the variable's type"
                    )
                dim.dim_value = int(size)
            else:
                raise ValueError(
                    f"dims[{name!r}][{axis}] must be a name, a size or None, not "
                    f"{size!r}"
                )
    return relaxed


def set_metadata(model, options: ExportOptions, random_keys):
    import pytensor

    model.producer_name = PRODUCER
    model.producer_version = package_version()
    model.doc_string = options.doc_string
    model.model_version = int(options.model_version)
    props = {"pytensor_version": pytensor.__version__}
    if random_keys:
        props[RANDOM_KEYS_METADATA] = json.dumps(random_keys)
    extra = dict(options.metadata or {})
    reserved = sorted(
        set(extra) & {*props, RANDOM_KEYS_METADATA, PRECISION_REPORT_METADATA}
    )
    if reserved:
        raise ValueError(f"metadata: the export writes {reserved} itself")
    if not all(isinstance(v, str) and isinstance(k, str) for k, v in extra.items()):
        raise TypeError("metadata: keys and values must be strings")
    helper.set_model_props(model, props | extra)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PRODUCER)
    except PackageNotFoundError:
        return "unknown"


def skeleton_of(model, weights) -> onnx.ModelProto:
    """``model`` with each weight declared as an input of its type and shape."""
    skeleton = model_without(model, ())
    skeleton.graph.input.extend(
        helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
        )
        for name, value in weights.items()
    )
    return skeleton


def name_output_dims(model, skeleton, static_dims_relaxed: bool):
    """Declare the output dims that shape inference derives from the inputs.

    Replaces the default symbolic dims, and also the static ones (which come
    from PyTensor's types) when some input dims the types fix were made
    symbolic. The dims inference cannot derive stay or become
    ``<output>_dim<axis>``.
    """
    probe = model_without(skeleton, ())
    cleared = []
    for index, info in enumerate(probe.graph.output):
        for axis, dim in enumerate(info.type.tensor_type.shape.dim):
            default = dim.dim_param == f"{info.name}_dim{axis}"
            if default or (static_dims_relaxed and dim.HasField("dim_value")):
                cleared.append((index, axis))
                dim.Clear()
    if not cleared:
        return
    inferred = onnx.shape_inference.infer_shapes(probe, data_prop=True)
    for index, axis in cleared:
        dim = inferred.graph.output[index].type.tensor_type.shape.dim[axis]
        for declaring in (model, skeleton):
            info = declaring.graph.output[index]
            declared = info.type.tensor_type.shape.dim[axis]
            if dim.HasField("dim_value"):
                declared.dim_value = dim.dim_value
            else:
                # shape inference names dims it cannot relate "unk__<n>"
                inferred_name = dim.dim_param.removeprefix("unk__") != dim.dim_param
                declared.dim_param = (
                    dim.dim_param
                    if dim.dim_param and not inferred_name
                    else f"{info.name}_dim{axis}"
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
