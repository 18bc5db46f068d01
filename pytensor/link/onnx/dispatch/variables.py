"""What ONNX value each PyTensor variable becomes, and why some cannot convert.

The graph conversion (`pytensor.link.onnx.dispatch.basic`) collects a
`ConversionFailure` for every input, constant and node it cannot convert and
raises them together in one `ONNXConversionError`; export turns them into its
support report.
"""

from dataclasses import dataclass

import numpy as np
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.ops import DeepCopyOp, ViewOp
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.utils import get_variable_trace_string
from pytensor.scalar.basic import ScalarType
from pytensor.scan.op import Scan
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.type import DenseTensorType
from pytensor.tensor.type_other import NoneTypeT, SliceType
from pytensor.typed_list.type import TypedListType

from pytensor.link.onnx.complex_pairs import complex_parts_dtype, is_complex


# PyTensor < 3 passes slices and new axes to advanced indexing as graph values;
# their converters receive them as Python objects rather than ONNX names.
INDEX_VALUE_TYPES = (NoneTypeT, SliceType)

# mode="ONNX" feeds random generators to the model as keys (see dispatch/random.py)
RANDOM_KEY_DTYPE = "uint64"


def variable_shape(var: Variable) -> tuple:
    if isinstance(var.type, DenseTensorType):
        return var.type.shape
    return ()


def value_type(var: Variable) -> tuple[str, tuple]:
    """The dtype and shape of the ONNX value standing for ``var``.

    For a typed list (an ONNX sequence), those of its elements. A complex
    value is a real one with a trailing axis of length 2: its real and
    imaginary parts (see `complex_parts_dtype`).
    """
    if isinstance(var.type, RandomType):
        return RANDOM_KEY_DTYPE, ()
    if is_sequence(var):
        return var.type.ttype.dtype, var.type.ttype.shape
    if is_complex(var):
        return complex_parts_dtype(var.type.dtype), (*variable_shape(var), 2)
    return var.type.dtype, variable_shape(var)


def is_sequence(var: Variable) -> bool:
    """Whether ``var`` is a typed list, which ONNX holds as a sequence of tensors."""
    return isinstance(var.type, TypedListType)


# The Ops that take and return random generators (as keys): a Scan carries
# them through its Loop, an OpFromGraph passes them to its inner graph
RANDOM_GENERATOR_OPS = (RandomVariable, DeepCopyOp, ViewOp, Scan, OpFromGraph)


RANDOM_GENERATOR_REASON = (
    "it is a random generator. Random generators are model inputs and outputs "
    "(as keys, with mode='ONNX' and export_onnx) and inputs of RandomVariable, "
    "Scan and OpFromGraph Ops."
)


@dataclass(frozen=True)
class ConversionFailure:
    """One variable of a graph that the ONNX backend cannot produce.

    Attributes
    ----------
    variable
        The PyTensor variable (an input, constant or node output).
    node
        The node computing ``variable``, or ``None`` for inputs and constants.
    reason
        Why it cannot be converted.
    message
        The full explanation, with the variable's user traceback.
    """

    variable: Variable
    node: Apply | None
    reason: str
    message: str


class ONNXConversionError(NotImplementedError):
    """Raised when parts of a graph cannot be converted; lists every one of them.

    Attributes
    ----------
    failures
        One :class:`ConversionFailure` per unconvertible input, constant or node.
    partial
        The rest of the graph converted, with each unconvertible tensor value
        as an extra input named ``unconverted_*``, or ``None``.
    """

    def __init__(self, failures, partial=None):
        self.failures = tuple(failures)
        self.partial = partial
        if len(self.failures) == 1:
            message = self.failures[0].message
        else:
            message = (
                f"The ONNX backend cannot convert {len(self.failures)} parts of this "
                "graph:\n\n"
                + "\n\n".join(
                    f"{i}. {failure.message}"
                    for i, failure in enumerate(self.failures, start=1)
                )
            )
        super().__init__(message)


def unsupported_message(node, reason: str) -> str:
    op = node.op
    output = node.outputs[0]
    return (
        f"The ONNX backend cannot convert the Op {op} "
        f"(class {type(op).__module__}.{type(op).__name__}) computing the "
        f"variable {output} of type {output.type}: {reason}\n"
        "Compile this function with another mode (for instance mode='FAST_RUN'), "
        "rewrite the graph without this Op, or register a converter with "
        f"`onnx_funcify.register({type(op).__name__})`."
        f"{get_variable_trace_string(output)}"
    )


def unsupported_type_reason(
    var: Variable, random_generators: bool = False
) -> str | None:
    """Why ``var`` cannot be an ONNX value, or ``None`` if it can.

    Random generators can when ``random_generators`` is true.
    """
    if isinstance(var.type, RandomType):
        return None if random_generators else RANDOM_GENERATOR_REASON
    stored_type = var.type.ttype if is_sequence(var) else var.type
    storable = DenseTensorType if is_sequence(var) else (DenseTensorType, ScalarType)
    if isinstance(stored_type, storable):
        if is_sequence(var) and np.dtype(stored_type.dtype).kind == "c":
            return f"typed lists of complex numbers are not supported (type {var.type})"
        return None
    return (
        f"its type {var.type} ({type(var.type).__name__}) has no ONNX "
        "equivalent: only tensors, scalars, typed lists of tensors and random "
        "generators do. Slices, nested typed lists and sparse matrices are not "
        "supported."
    )


def type_failure(
    var: Variable, role: str, node=None, random_generators: bool = False
) -> ConversionFailure | None:
    reason = unsupported_type_reason(var, random_generators)
    if reason is None:
        return None
    message = (
        f"The ONNX backend cannot take the {role} {var}: {reason}"
        f"{get_variable_trace_string(var)}"
    )
    return ConversionFailure(var, node, reason, message)


def random_generator_failure(node) -> ConversionFailure | None:
    """A failure if ``node`` takes a random generator but cannot use one."""
    if isinstance(node.op, RANDOM_GENERATOR_OPS) or not any(
        isinstance(var.type, RandomType) for var in node.inputs
    ):
        return None
    message = unsupported_message(node, RANDOM_GENERATOR_REASON)
    return ConversionFailure(node.outputs[0], node, RANDOM_GENERATOR_REASON, message)


# Why the Ops that converters reject outright cannot convert, by Op class
UNSUPPORTED_OP_REASONS: dict[type, str] = {}


def unsupported_reason(op) -> str | None:
    """The reason `UNSUPPORTED_OP_REASONS` gives for ``op`` (or its core Op)."""
    op = getattr(op, "core_op", op)
    for cls in type(op).__mro__:
        if cls in UNSUPPORTED_OP_REASONS:
            return UNSUPPORTED_OP_REASONS[cls]
    return None
