"""The one object through which ONNX graphs are built.

Converters (``onnx_funcify`` handlers) never write ONNX protos or invent names
themselves: they ask an :class:`ONNXGraphBuilder` for nodes, constants and
casts, and get back the names of the values it created.
"""

import re
from collections import Counter

import numpy as np
from pytensor.raise_op import CheckAndRaise

import onnx
from onnx import TensorProto, helper, numpy_helper
from pytensor.link.onnx.kernels import DEFAULT_OPSET
from pytensor.link.onnx.passes import PassContext, run_graph_passes
from pytensor.link.onnx.passes.graphs import rename_input
from pytensor.link.onnx.value import Value


NUMPY_TO_ONNX_DTYPE = {
    "bool": TensorProto.BOOL,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "float16": TensorProto.FLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
}


def onnx_dtype(dtype) -> int:
    """Return the ``TensorProto`` data type of a NumPy/PyTensor dtype."""
    try:
        return NUMPY_TO_ONNX_DTYPE[str(np.dtype(dtype))]
    except (KeyError, TypeError):
        raise NotImplementedError(
            f"dtype {dtype} has no ONNX equivalent supported by this backend"
        ) from None


class OpsetError(NotImplementedError):
    """Raised when a model cannot be expressed at the opset asked for."""


def at_opset(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """``model``, made by a builder, at the default-domain ``opset``.

    Converters write the operators of :data:`DEFAULT_OPSET`; a model is
    declared at a newer opset as it is, and converted down to an older one
    by onnx's version converter.
    """
    if opset >= model.opset_import[0].version:
        return model
    from onnx import version_converter

    try:
        return version_converter.convert_version(model, opset)
    except Exception as err:
        raise OpsetError(
            f"the model cannot be expressed at opset {opset}: {err}"
        ) from err


def sanitize_name(name: str) -> str:
    """Turn an arbitrary variable name into a plain ONNX value name."""
    cleaned = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_")
    if not cleaned or cleaned[0].isdigit():
        cleaned = f"v_{cleaned}"
    return cleaned


class UniqueNames:
    """Hand out names that are unique within one model: ``x``, ``x_1``, ``x_2``..."""

    def __init__(self):
        self._used: Counter[str] = Counter()

    def reserve(self, name: str) -> str:
        base = sanitize_name(name)
        candidate = base
        while candidate in self._used:
            candidate = f"{base}_{self._used[base]}"
            self._used[base] += 1
        self._used[candidate] += 1
        return candidate


NONDETERMINISTIC_OPS = frozenset(
    (
        "Bernoulli",
        "Dropout",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    )
)
PLAIN_ATTRIBUTE_TYPES = (int, float, str, bytes)


def node_key(op_type, inputs, n_outputs, attributes) -> tuple | None:
    """What a node computes, for nodes that a second identical one can reuse.

    ``None`` for nodes that draw random numbers and nodes with attributes
    other than numbers, strings and lists of them (subgraphs, tensors).
    """
    if op_type in NONDETERMINISTIC_OPS:
        return None
    plain = []
    for name, value in sorted(attributes.items()):
        if isinstance(value, list | tuple):
            value = tuple(value)
            if not all(isinstance(v, PLAIN_ATTRIBUTE_TYPES) for v in value):
                return None
        elif not isinstance(value, PLAIN_ATTRIBUTE_TYPES):
            return None
        plain.append((name, value))
    return (op_type, tuple(inputs), n_outputs, tuple(plain))


class ONNXGraphBuilder:
    """Accumulate the nodes, constants, inputs and outputs of one ONNX graph.

    Parameters
    ----------
    opset
        The ONNX opset of the default domain that handlers may rely on.
    keep_checks
        Whether runtime assertions (``CheckAndRaise``) are kept: their
        conditions are collected in ``checks`` and become extra outputs, or,
        for the checks onnxruntime makes itself, in ``failure_checks``.
    """

    def __init__(self, opset: int = DEFAULT_OPSET, keep_checks: bool = True):
        self.opset = opset
        self.keep_checks = keep_checks
        self.checks: list[tuple[str, object]] = []
        self.failure_checks: list[tuple[str, object]] = []
        # Checks that hold only where a branch is taken, by branch (see `defer_checks`)
        self.branch_checks: dict[object, list[tuple[str, object]]] = {}
        self.nested = False
        self.names = UniqueNames()
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self._constants: dict[tuple, str] = {}
        self._constant_arrays: dict[str, np.ndarray] = {}
        self._producer: dict[str, onnx.NodeProto] = {}
        # Nodes already added, by what they compute (see `node_key`)
        self._computed: dict[tuple, list[str]] = {}
        self._renamed: dict[str, str] = {}
        self.graph_name = "pytensor_graph"
        # Node names converters marked for a graph pass, by mark (see `mark`)
        self.marks: dict[str, set[str]] = {}

    def value(self, name: str, dtype, numbers=None) -> Value:
        """The value ``name`` of this graph, of ``dtype``, as a :class:`Value`."""
        return Value(self, name, dtype, numbers)

    def mark(self, mark: str, value: str):
        """Mark the node computing ``value`` for the graph pass that reads ``mark``."""
        self.marks.setdefault(mark, set()).add(self.producer(value).name)

    def require(
        self, condition, exc_type, message: str, *, is_scalar=False, after_failure=False
    ):
        """Make the compiled function raise ``exc_type(message)`` unless ``condition`` holds.

        ``condition`` is a bool :class:`Value` (or value name) whose elements
        must all be true; ``is_scalar`` says it is 0-d already. Nothing is
        added when the graph is built without runtime checks (for export), nor
        when the same check was already required.

        ``after_failure`` says that onnxruntime fails on its own whenever the
        condition is false (``MatMul`` of unaligned shapes, ``Split`` into
        invalid lengths): the condition is then computed only after a failed
        run, to raise PyTensor's exception, and costs nothing to the runs
        that succeed. A nested graph (a ``Loop`` body, an ``If`` branch)
        leaves such a check to onnxruntime: as an ordinary check it would
        cost every iteration.
        """
        if not self.keep_checks or (after_failure and self.nested):
            return
        if not isinstance(condition, Value):
            condition = self.value(condition, "bool")
        holds = condition if is_scalar else condition.all()
        check = (holds.name, CheckAndRaise(exc_type, message))
        checks = self.failure_checks if after_failure else self.checks
        if check not in checks:
            checks.append(check)

    def defer_checks(self, first: int, branch):
        """Move the checks required since ``len(self.checks)`` was ``first`` to
        ``branch``: they must hold only where ``branch`` is taken. The converter
        of the branching node takes them with `branch_checks_of`."""
        deferred = self.checks[first:]
        del self.checks[first:]
        self.branch_checks.setdefault(branch, []).extend(deferred)

    def branch_checks_of(self, branch) -> list[tuple[str, object]]:
        """The checks deferred to ``branch`` (see `defer_checks`), taken out."""
        return self.branch_checks.pop(branch, [])

    def fresh_name(self, hint: str) -> str:
        """Reserve a new value name based on ``hint``."""
        return self.names.reserve(hint)

    def add(
        self, op_type: str, inputs, *, hint: str | None = None, **attributes
    ) -> str:
        """Add a single-output node and return the name of its output."""
        [output] = self.add_multi(op_type, inputs, n_outputs=1, hint=hint, **attributes)
        return output

    def add_multi(
        self,
        op_type: str,
        inputs,
        *,
        n_outputs: int,
        hint: str | None = None,
        **attributes,
    ) -> list[str]:
        """Add a node with ``n_outputs`` outputs and return their names.

        ``inputs`` may contain ``""`` for omitted optional inputs.
        """
        key = node_key(op_type, inputs, n_outputs, attributes)
        if key in self._computed:
            return self._computed[key]
        hint = hint or op_type.lower()
        outputs = [self.fresh_name(hint) for _ in range(n_outputs)]
        node = helper.make_node(
            op_type,
            list(inputs),
            outputs,
            name=self.fresh_name(f"{op_type}_node"),
            **attributes,
        )
        self.nodes.append(node)
        for output in outputs:
            self._producer[output] = node
        if key is not None:
            self._computed[key] = outputs
        return outputs

    def constant(self, value, dtype=None, *, hint: str = "const") -> str:
        """Return the name of an initializer holding ``value`` as ``dtype``.

        Equal constants (same dtype, shape and bytes) share one initializer.
        """
        # not np.ascontiguousarray: it turns 0-d arrays into 1-d ones
        array = np.asarray(value, dtype=dtype, order="C")
        onnx_dtype(array.dtype)
        key = (array.dtype.str, array.shape, array.tobytes())
        if key not in self._constants:
            name = self.fresh_name(hint)
            self.initializers.append(numpy_helper.from_array(array, name))
            self._constants[key] = name
            self._constant_arrays[name] = array
        return self._constants[key]

    def sequence_constant(self, values, dtype, *, hint: str = "const_list") -> str:
        """Return the name of a sequence holding the arrays ``values`` as ``dtype``."""
        if not values:
            return self.add("SequenceEmpty", [], dtype=onnx_dtype(dtype), hint=hint)
        elements = [self.constant(value, dtype) for value in values]
        return self.add("SequenceConstruct", elements, hint=hint)

    def producer(self, value: str) -> onnx.NodeProto | None:
        """The node of this graph that computes ``value``, if any."""
        return self._producer.get(self._renamed.get(value, value))

    def cast(self, name: str, from_dtype, to_dtype) -> str:
        """Return ``name`` converted to ``to_dtype`` (``name`` itself if it already is).

        A constant of this graph is cast when the graph is built, unless it
        is a float cast to an integer (whose NaN and overflow ONNX leaves
        undefined).
        """
        if np.dtype(from_dtype) == np.dtype(to_dtype):
            return name
        array = self._constant_arrays.get(name)
        if array is not None and not (
            array.dtype.kind == "f" and np.dtype(to_dtype).kind in "biu"
        ):
            return self.constant(array.astype(to_dtype), hint="const")
        return self.add("Cast", [name], to=onnx_dtype(to_dtype), hint="cast")

    def add_input(
        self,
        hint: str,
        dtype,
        shape,
        dim_prefix: str | None = None,
        *,
        sequence: bool = False,
    ) -> str:
        """Declare a graph input and return its name.

        With ``sequence``, the input is a sequence of tensors of ``dtype`` and
        ``shape`` rather than one tensor.
        """
        name = self.fresh_name(hint)
        self.inputs.append(
            self._value_info(name, dtype, shape, dim_prefix or name, sequence)
        )
        return name

    def add_output(
        self,
        value: str,
        hint: str,
        dtype,
        shape,
        dim_prefix: str | None = None,
        *,
        name: str | None = None,
        sequence: bool = False,
    ) -> str:
        """Declare ``value`` as a graph output named after ``hint`` and return its name.

        A value computed by a node is renamed in place; graph inputs, constants
        and values that are already outputs are exposed through an ``Identity``.
        ``name``, reserved beforehand with :meth:`fresh_name`, is used as is.
        ``sequence`` declares a sequence of tensors, as in :meth:`add_input`.
        """
        name = name or self.fresh_name(hint)
        exposed = {info.name for info in self.outputs}
        value = self._renamed.get(value, value)
        producer = self._producer.pop(value, None)
        if producer is not None and value not in exposed:
            self._rename(value, name, producer)
        else:
            self.add_identity(value, name)
        self.outputs.append(
            self._value_info(name, dtype, shape, dim_prefix or name, sequence)
        )
        return name

    def add_identity(self, value: str, name: str):
        node = helper.make_node(
            "Identity", [value], [name], name=self.fresh_name("Identity_node")
        )
        self.nodes.append(node)
        self._producer[name] = node

    def _rename(self, old: str, new: str, producer: onnx.NodeProto):
        self._renamed[old] = new
        producer.output[list(producer.output).index(old)] = new
        self._producer[new] = producer
        for node in self.nodes:
            rename_input(node, old, new)

    @staticmethod
    def _value_info(name, dtype, shape, dim_prefix, sequence=False):
        dims = None  # unknown rank
        if shape is not None:
            dims = [
                dim if dim is not None else f"{dim_prefix}_dim{axis}"
                for axis, dim in enumerate(shape)
            ]
        if sequence:
            return helper.make_tensor_sequence_value_info(name, onnx_dtype(dtype), dims)
        return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)

    def subgraph(self, hint: str) -> "ONNXGraphBuilder":
        """A builder for a graph nested in this one (an ``If`` branch, a ``Loop`` body).

        A subgraph reads the values of its enclosing graphs by name and must not
        reuse their names, so it shares this builder's name generator. Its
        constants are its own initializers; it keeps runtime checks if this
        builder does, in its own ``checks``, for the caller to pass on.
        """
        sub = ONNXGraphBuilder(opset=self.opset, keep_checks=self.keep_checks)
        sub.names = self.names
        sub.nested = True
        sub.graph_name = sanitize_name(hint)
        return sub

    def loop_body(self, hint: str = "loop_body") -> "ONNXGraphBuilder":
        """A :meth:`subgraph` for the body of a ``Loop``.

        Its first two inputs, the int64 iteration number and the incoming
        bool condition, are already declared.
        """
        body = self.subgraph(hint)
        body.add_input("iteration", "int64", ())
        body.add_input("condition", "bool", ())
        return body

    def make_graph(self, graph_name: str | None = None) -> onnx.GraphProto:
        """Assemble the accumulated graph into a ``GraphProto``."""
        graph = helper.make_graph(
            self.nodes,
            graph_name or self.graph_name,
            self.inputs,
            self.outputs,
            initializer=self.initializers,
        )
        run_graph_passes(graph, PassContext(self.marks))
        return graph

    def make_model(self, graph_name: str = "pytensor_graph", **model_kwargs):
        """Assemble the accumulated graph into a ``ModelProto``."""
        graph = self.make_graph(graph_name)
        opset_imports = [helper.make_opsetid("", self.opset)]
        # onnx stamps its newest IR version by default, which onnxruntime may not
        # load yet: pin the oldest IR version that supports the opset instead.
        return helper.make_model(
            graph,
            opset_imports=opset_imports,
            ir_version=helper.find_min_ir_version_for(opset_imports),
            producer_name="pytensor-onnx",
            **model_kwargs,
        )
