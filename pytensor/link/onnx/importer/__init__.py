"""Import ONNX models as PyTensor graphs.

:func:`import_onnx` loads a model safely (:mod:`.loading`), checks that every
op and type in it can be imported (one :class:`UnsupportedONNXError` lists all
that cannot), then builds the PyTensor graph node by node (:mod:`.graph`).
Each ONNX op is imported by a handler of the op family modules in
:mod:`.ops`; see that package's docstring for the handler signature and how
to register one.
"""

from dataclasses import dataclass, field

import pytensor.tensor as pt

from pytensor.link.onnx.importer.errors import ONNXImportError, UnsupportedONNXError


__all__ = ["ImportedModel", "ONNXImportError", "UnsupportedONNXError", "import_onnx"]


@dataclass
class ImportedModel:
    """The PyTensor graph of an imported ONNX model.

    Attributes
    ----------
    inputs
        The variables bound to the model's inputs, in the model's order.
    outputs
        The variables of the model's outputs, in the model's order.
    input_names, output_names
        The ONNX names of the inputs and outputs.
    shared
        The shared variables made from initializers, by initializer name
        (empty unless ``shared_initializers=True``).
    updates
        The updates of the random generators of the model's random ops, to
        pass to ``pytensor.function`` so that each call draws anew.
    """

    inputs: list
    outputs: list
    input_names: list
    output_names: list
    shared: dict
    updates: dict = field(default_factory=dict)

    def __getitem__(self, name):
        """The output variable named ``name`` in the ONNX model."""
        return self.outputs[self.output_names.index(name)]


def import_onnx(
    model,
    inputs=None,
    *,
    input_shapes=None,
    float_dtype=None,
    shared_initializers=False,
    base_dir=None,
) -> ImportedModel:
    """Build the PyTensor graph of an ONNX model.

    Parameters
    ----------
    model
        A ``onnx.ModelProto``, the bytes of one, or the path of an ``.onnx``
        file. Files are untrusted: external data is read only from inside
        the model's folder and every declared size is checked first.
    inputs
        PyTensor variables to use as the model's inputs, as a list in the
        model's input order or a dict by input name; inputs not given get new
        variables of the declared type.
    input_shapes
        Shapes, by input name, that replace the declared ones for the new
        input variables (for a sequence, the shape of its elements); ``None``
        marks a dimension of any length (files often fix a batch of 1).
    float_dtype
        ``"float32"`` or ``"float64"``: every floating-point value (inputs,
        weights, constants, casts) gets this dtype. By default each keeps the
        model's.
    shared_initializers
        Make the initializers shared variables (to train or swap them)
        instead of constants.
    base_dir
        Folder of the external data when ``model`` is not a path.

    Returns
    -------
    ImportedModel
        The input and output variables.

    Raises
    ------
    UnsupportedONNXError
        Listing every op and type of the model that cannot be imported.
    ONNXImportError
        If the file is not a valid ONNX model or refers to data outside its
        folder.

    Examples
    --------
    >>> from pytensor.link.onnx import import_onnx  # doctest: +SKIP
    >>> net = import_onnx("mlp.onnx", input_shapes={"x": (None, 4)})  # doctest: +SKIP
    >>> y = net.outputs[0]  # doctest: +SKIP
    """
    from pytensor.link.onnx.importer.graph import (
        Options,
        Scope,
        opset_versions,
        unsupported_items,
    )
    from pytensor.link.onnx.importer.loading import load_model

    proto = load_model(model, base_dir=base_dir)
    graph = proto.graph
    opsets = opset_versions(proto.opset_import)
    functions = {(f.domain, f.name): f for f in proto.functions}
    if problems := unsupported_items(graph, opsets, functions):
        raise UnsupportedONNXError(problems)
    options = Options(float_dtype, shared_initializers, dict(input_shapes or {}))
    scope = Scope(options, opsets, functions)
    initializers = {t.name for t in graph.initializer}
    real_inputs = [i for i in graph.input if i.name not in initializers]
    variables = input_variables(real_inputs, inputs, scope)
    outputs = scope.import_graph(graph, variables)
    return ImportedModel(
        inputs=variables,
        outputs=outputs,
        input_names=[i.name for i in real_inputs],
        output_names=[o.name for o in graph.output],
        shared=scope.shared,
        updates=scope.updates,
    )


def input_variables(value_infos, given, scope):
    names = [info.name for info in value_infos]
    if given is None:
        given = {}
    elif not isinstance(given, dict):
        given = dict(zip(names, given, strict=True))
    if unknown := set(given) - set(names):
        raise ValueError(f"the model has no inputs named {sorted(unknown)}")
    if unknown := set(scope.options.input_shapes) - set(names):
        raise ValueError(f"input_shapes names unknown inputs {sorted(unknown)}")
    return [
        pt.as_tensor_variable(given[info.name])
        if info.name in given and not declares_sequence(info)
        else given.get(info.name) or new_input(info, scope)
        for info in value_infos
    ]


def declares_sequence(info):
    return info.type.WhichOneof("value") == "sequence_type"


def declared_shape(tensor_type):
    if not tensor_type.HasField("shape"):
        return None
    return tuple(
        dim.dim_value if dim.HasField("dim_value") else None
        for dim in tensor_type.shape.dim
    )


def new_input(info, scope):
    from pytensor.typed_list import TypedListType

    kind = info.type.WhichOneof("value")
    if kind == "sequence_type":
        element = info.type.sequence_type.elem_type.tensor_type
        shape = scope.options.input_shapes.get(info.name, declared_shape(element))
        if shape is None:
            raise ONNXImportError(
                f"input {info.name!r} is a sequence of tensors of unknown rank: "
                "give the shape of its elements in input_shapes"
            )
        tensor = pt.TensorType(
            scope.dtype(element.elem_type), shape=(None,) * len(shape)
        )
        return TypedListType(tensor)(name=info.name)
    tensor_type = info.type.tensor_type
    shape = scope.options.input_shapes.get(info.name, declared_shape(tensor_type))
    if shape is None:
        raise ONNXImportError(
            f"input {info.name!r} has no declared rank: give its shape in input_shapes"
        )
    return pt.tensor(
        name=info.name, dtype=scope.dtype(tensor_type.elem_type), shape=shape
    )
