"""The steps of an export: convert, name, shape and check a model
(`prepare_export`), then verify, convert its precision and write it
(`write_export`). The options are :class:`~pytensor.link.onnx.export.api.ExportOptions`."""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from pytensor.tensor.random.op import RandomVariable

import onnx
from onnx import TensorProto, helper
from pytensor.link.onnx.builder import OpsetError
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.dispatch.variables import ONNXConversionError
from pytensor.link.onnx.export.dims import name_output_dims, set_input_dims
from pytensor.link.onnx.export.exportable import (
    ExportableGraph,
    RebuildError,
    exportable_graph,
)
from pytensor.link.onnx.export.files import check_file, staged_files
from pytensor.link.onnx.export.metadata import set_metadata
from pytensor.link.onnx.export.names import InputOutputNames
from pytensor.link.onnx.export.precision import convert_precision
from pytensor.link.onnx.export.quantization import check_quantize_options
from pytensor.link.onnx.export.report import (
    SupportProblem,
    conversion_problems,
    kernel_problems,
    partial_kernel_problems,
    rebuild_problem,
    typed_list_problems,
)
from pytensor.link.onnx.export.targets import MIN_OPSET, get_target
from pytensor.link.onnx.export.verify import verify_export
from pytensor.link.onnx.export.weights import (
    add_initializer,
    bake_weights,
    kept_weights,
    skeleton_of,
)
from pytensor.link.onnx.passes import PassContext, run_graph_passes
from pytensor.link.onnx.passes.graphs import model_without
from pytensor.link.onnx.pymc import register_converters


PROTOBUF_LIMIT = 2**31 - 1


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


def write_export(source, path, options) -> onnx.ModelProto:
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


def check_precision_options(options):
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


def prepare_export(source, options) -> PreparedExport:
    """Convert, name, shape and check a model (see :func:`export_onnx`)."""
    runtime = get_target(options.target) if options.target is not None else None
    check_opset(options.opset, runtime)
    try:
        graph = exportable_graph(source, options.graph_dtype)
    except RebuildError as err:
        raise options.unsupported([rebuild_problem(err, options.dtype)]) from err
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


def check_opset(opset, runtime):
    newest = runtime.max_opset if runtime else onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        loads = f"{runtime.description} loads" if runtime else "onnx knows"
        raise ValueError(
            f"opset must be between {MIN_OPSET} and {newest} ({loads}), not {opset}"
        )
