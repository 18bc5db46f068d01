"""The vocabulary converters and numerics build ONNX values with.

A :class:`Value` is the name of an ONNX value in the graph of one
:class:`~pytensor.link.onnx.builder.ONNXGraphBuilder`, with its dtype. Its
Python operators and methods add nodes, so that an algorithm reads like the
formula it computes::

    where(x.eq(0.0), 0.0, x * x.log())

Python numbers mixed into an expression become constants of the value's
``numbers`` dtype: its own dtype, or, for the booleans of a comparison, the
dtype of the values compared. So ``where(x < 0, -1.0, 1.0)`` is of ``x``'s
dtype.

Index and shape arithmetic works on *scalars*: Python ints and bools when
they are known at conversion time (static lengths, constant indices), 0-d
int64 and bool values otherwise. Python's operators (``+ - * < <= > >=``,
unary ``-``) already fold two Python ints; `product`, `equal`,
`logical_not`, `logical_and`, `logical_or`, `where`, `maximum` and
`minimum` also fold, and skip identities (``x * 1``, ``True & x``), so
that a graph of static shapes gets no nodes for them. `length` and
`strides` give the lengths and strides of an array as such scalars, and
:meth:`Value.indices` stacks them into an int64 vector.
"""

import numpy as np

from pytensor.link.onnx.kernels import (
    WRONG_RESULTS,
    moved_kernel_dtype,
    widened_kernel_dtype,
)


BOOL_RESULTS = frozenset(
    (
        *("Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Equal"),
        *("Not", "And", "Or", "Xor", "IsNaN", "IsInf"),
    )
)
INT64_RESULTS = frozenset(("ArgMax", "ArgMin", "Shape", "Size", "NonZero"))
INT64_MAX = int(np.iinfo(np.int64).max)


class Value:
    """An ONNX value whose Python operators add graph nodes.

    Parameters
    ----------
    builder
        The builder of the (sub)graph the value belongs to.
    name
        The ONNX value name.
    dtype
        Its NumPy dtype name.
    numbers
        The dtype Python numbers mixed in become: ``dtype`` unless given.
    """

    __slots__ = ("builder", "dtype", "name", "numbers")

    def __init__(self, builder, name: str, dtype, numbers=None):
        self.builder = builder
        self.name = name
        self.dtype = str(np.dtype(dtype))
        self.numbers = self.dtype if numbers is None else str(np.dtype(numbers))

    def __repr__(self):
        return f"Value({self.name!r}, {self.dtype})"

    def operand(self, operand) -> str:
        """The ONNX name of ``operand``: a value's, a new constant's, or ``""``
        for ``None`` (an omitted optional input)."""
        if isinstance(operand, Value):
            return operand.name
        if operand is None:
            return ""
        return self.builder.constant(operand, self.numbers)

    def result_dtype(self, op_type: str) -> str:
        """bool for comparisons and logic, int64 for indices, else this dtype."""
        if op_type in BOOL_RESULTS:
            return "bool"
        return "int64" if op_type in INT64_RESULTS else self.dtype

    def apply(self, op_type: str, *operands, dtype=None, **attributes) -> "Value":
        """Add an ``op_type`` node of ``operands`` and return its output.

        Its dtype is ``dtype``, by default :meth:`result_dtype`; Python numbers
        among ``operands`` become constants of this value's ``numbers`` dtype.
        """
        names = [self.operand(operand) for operand in operands]
        output = self.builder.add(op_type, names, **attributes)
        return self.result(output, dtype or self.result_dtype(op_type))

    def result(self, name: str, dtype) -> "Value":
        """The value ``name`` computed from this one: booleans keep its numbers."""
        numbers = self.numbers if str(np.dtype(dtype)) in ("bool", self.dtype) else None
        return Value(self.builder, name, dtype, numbers)

    def apply_multi(self, op_type: str, *operands, dtypes, **attributes):
        """Add an ``op_type`` node with one output per entry of ``dtypes``."""
        names = [self.operand(operand) for operand in operands]
        outputs = self.builder.add_multi(
            op_type, names, n_outputs=len(dtypes), **attributes
        )
        return [
            self.result(output, dtype)
            for output, dtype in zip(outputs, dtypes, strict=True)
        ]

    def into(self, builder) -> "Value":
        """This value, read from the (sub)graph of ``builder``."""
        return Value(builder, self.name, self.dtype, self.numbers)

    def constant(self, value, dtype=None) -> "Value":
        """A constant of ``dtype`` (this value's ``numbers`` dtype by default)."""
        dtype = dtype or self.numbers
        return Value(self.builder, self.builder.constant(value, dtype), dtype)

    def indices(self, values) -> "Value":
        """An int64 constant, for axes, shapes and positions.

        A list of scalars holding 0-d int64 values is stacked into a vector.
        """
        if isinstance(values, list | tuple) and any(
            isinstance(v, Value) for v in values
        ):
            parts = [
                v.unsqueeze([0]) if isinstance(v, Value) else self.indices([v])
                for v in values
            ]
            return parts[0] if len(parts) == 1 else concat(parts, axis=0)
        return self.constant(np.asarray(values, dtype="int64"), "int64")

    def cast(self, dtype) -> "Value":
        if np.dtype(dtype) == np.dtype(self.dtype):
            return self
        name = self.builder.cast(self.name, self.dtype, dtype)
        return Value(self.builder, name, dtype)

    def __add__(self, other):
        return self.apply("Add", self, other)

    def __radd__(self, other):
        return self.apply("Add", other, self)

    def __sub__(self, other):
        return self.apply("Sub", self, other)

    def __rsub__(self, other):
        return self.apply("Sub", other, self)

    def __mul__(self, other):
        return self.apply("Mul", self, other)

    def __rmul__(self, other):
        return self.apply("Mul", other, self)

    def __truediv__(self, other):
        return self.apply("Div", self, other)

    def __rtruediv__(self, other):
        return self.apply("Div", other, self)

    def __mod__(self, other):
        return self.apply("Mod", self, other)

    def __pow__(self, other):
        return self.apply("Pow", self, other)

    def __matmul__(self, other):
        return self.apply("MatMul", self, other)

    def __neg__(self):
        return self.apply("Neg", self)

    def __abs__(self):
        return self.apply("Abs", self)

    def compare(self, op_type: str, other) -> "Value":
        """The ONNX comparison ``op_type`` (``Less``, ``Equal``...) of this value
        and ``other``, both in a dtype with a kernel that holds their values
        (booleans are ordered as uint8)."""
        compute = widened_kernel_dtype(op_type, self.dtype, self.builder.opset)
        if compute == self.dtype:
            return self.apply(op_type, self, other)
        wide = self.cast(compute)
        other = other.cast(compute) if isinstance(other, Value) else other
        return self.result(wide.apply(op_type, wide, other).name, "bool")

    def __lt__(self, other):
        return self.compare("Less", other)

    def __le__(self, other):
        return self.compare("LessOrEqual", other)

    def __gt__(self, other):
        return self.compare("Greater", other)

    def __ge__(self, other):
        return self.compare("GreaterOrEqual", other)

    def __or__(self, other):
        return self.apply("Or", self, other)

    def __and__(self, other):
        return self.apply("And", self, other)

    def __xor__(self, other):
        return self.apply("Xor", self, other)

    def __invert__(self):
        return self.apply("Not", self)

    def shift_right(self, bits) -> "Value":
        """``BitShift`` to the right by ``bits`` (unsigned integers)."""
        return self.apply("BitShift", self, bits, direction="RIGHT")

    def bitwise_and(self, other) -> "Value":
        return self.apply("BitwiseAnd", self, other)

    def bitwise_xor(self, other) -> "Value":
        return self.apply("BitwiseXor", self, other)

    def eq(self, other):
        return self.compare("Equal", other)

    def ne(self, other):
        return ~self.eq(other)

    def exp(self):
        return self.apply("Exp", self)

    def log(self):
        return self.apply("Log", self)

    def sqrt(self):
        return self.apply("Sqrt", self)

    def floor(self):
        return self.apply("Floor", self)

    def ceil(self):
        return self.apply("Ceil", self)

    def round(self):
        return self.apply("Round", self)

    def isinf(self):
        return self.apply("IsInf", self)

    def isnan(self):
        return self.apply("IsNaN", self)

    def sin(self):
        return self.apply("Sin", self)

    def cos(self):
        return self.apply("Cos", self)

    def take(self, index, axis: int) -> "Value":
        """The elements at ``index`` (an int64 value or a list) along ``axis``."""
        if not isinstance(index, Value):
            index = self.indices(index)
        return self.apply("Gather", self, index, axis=axis)

    def compress(self, condition: "Value") -> "Value":
        """The elements along the first axis where the bool vector ``condition`` holds."""
        return self.apply("Compress", self, condition, axis=0)

    def take_along(self, index, axis: int) -> "Value":
        return self.apply("GatherElements", self, index, axis=axis)

    def take_rows(self, index: "Value") -> "Value":
        """``self[b, index[b, i, 0]]`` for each stack ``b`` of ``self`` (its
        axis 0) and row ``i``: the rows (along axis 1, all that follows them)
        that the int64 ``index`` ``(batch, k, 1)`` picks in each stack, by
        ``GatherND`` with one batch dimension; no index per element is built."""
        return self.apply("GatherND", self, index, batch_dims=1)

    def slice(self, start, end=None, axis: int = 0) -> "Value":
        """``self[start:end]`` along ``axis``; bounds are ints or int64 vectors
        of one element, and ``end=None`` slices to the end."""
        start, end = (
            self.indices([bound]) if isinstance(bound, int) else bound
            for bound in (start, INT64_MAX if end is None else end)
        )
        return self.apply("Slice", self, start, end, self.indices([axis]))

    def sum(self, axes, keepdims: bool = True) -> "Value":
        """The sum along ``axes``, kept with length 1 unless ``keepdims`` is false."""
        return self.apply("ReduceSum", self, self.indices(axes), keepdims=int(keepdims))

    def prod(self, axes, keepdims: bool = True) -> "Value":
        """The product along ``axes``, kept with length 1 unless ``keepdims`` is false."""
        return self.apply(
            "ReduceProd", self, self.indices(axes), keepdims=int(keepdims)
        )

    def max(self, axes, keepdims: bool = True) -> "Value":
        """The maximum along ``axes``, kept with length 1 unless ``keepdims`` is false."""
        return self.apply("ReduceMax", self, self.indices(axes), keepdims=int(keepdims))

    def cumsum(self, axis: int) -> "Value":
        """The cumulative sum along ``axis``."""
        return self.apply("CumSum", self, self.indices(axis))

    def any(self) -> "Value":
        """Whether any element is true, a 0-d bool."""
        as_uint8 = self.cast("uint8")
        return as_uint8.apply("ReduceMax", as_uint8, keepdims=0).cast("bool")

    def all(self) -> "Value":
        """Whether every element is true, a 0-d bool (true when empty, where
        ``ReduceMin`` gives the largest uint8)."""
        as_uint8 = self.cast("uint8")
        return as_uint8.apply("ReduceMin", as_uint8, keepdims=0).cast("bool")

    def any_along(self, axes, keepdims: bool = True) -> "Value":
        """Whether any element is true along ``axes`` (kept, of length 1, unless
        ``keepdims`` is false); false along empty axes."""
        return self.cast("uint8").max(axes, keepdims).cast("bool")

    def expand(self, shape) -> "Value":
        return self.apply("Expand", self, shape)

    def reshape(self, shape) -> "Value":
        return self.apply("Reshape", self, shape, allowzero=1)

    def unsqueeze(self, axes) -> "Value":
        return self.apply("Unsqueeze", self, self.indices(axes))

    def squeeze(self, axes) -> "Value":
        return self.apply("Squeeze", self, self.indices(axes))

    def transpose(self, perm) -> "Value":
        return self.apply("Transpose", self, perm=list(perm))

    def matrix_transpose(self) -> "Value":
        """The transpose of the matrices of the last two axes, of any batch shape."""
        return self.apply("Einsum", self, equation="...ij->...ji")

    def shape(self, start: int = 0, end: int | None = None) -> "Value":
        """``Shape``: the lengths of the axes ``start:end``, an int64 vector."""
        bounds = {"start": start} if end is None else {"start": start, "end": end}
        return self.apply("Shape", self, **bounds)

    def dim(self, axis: int) -> "Value":
        """The length of ``axis`` (negative counts from the end), a 0-d int64."""
        return self.shape(axis, None if axis == -1 else axis + 1).squeeze([0])

    def full_like(self, value) -> "Value":
        """An array shaped and typed like this one, filled with ``value``."""
        return self.constant(value, self.dtype).expand(self.shape())


def where(condition: Value | bool, if_true, if_false) -> Value:
    """``Where``; Python numbers become constants of the other branch's dtype,
    or of the condition's ``numbers`` dtype if both branches are numbers.

    Branches of a dtype without a ``Where`` kernel (bool, int16, uint16,
    uint64) are moved through one that has one. A Python bool ``condition``
    chooses a branch without a node.
    """
    if isinstance(condition, bool | np.bool_):
        return if_true if condition else if_false
    values = [v for v in (if_true, if_false) if isinstance(v, Value)]
    like = values[0] if values else condition.constant(if_true)
    compute = moved_kernel_dtype("Where", like.dtype, like.builder.opset)
    if compute == like.dtype:
        return like.apply("Where", condition, if_true, if_false, dtype=like.dtype)
    branches = [
        (v if isinstance(v, Value) else like.constant(v)).cast(compute)
        for v in (if_true, if_false)
    ]
    moved = like.apply("Where", condition, *branches, dtype=compute)
    return like.result(moved.cast(like.dtype).name, like.dtype)


def where_keeping_zero_signs(condition: Value, if_true: Value, if_false: Value):
    """`where` of two floating-point values that keeps the sign of a zero
    chosen from ``if_true``, which onnxruntime's ``Where`` turns into +0.0
    (one from ``if_false`` keeps its sign): six more nodes."""
    chosen = where(condition, if_true, if_false)
    negative_zero = condition & if_true.eq(0.0) & ((1.0 / if_true) < 0.0)
    return chosen * where(negative_zero, -1.0, 1.0)


def branch(condition: Value, if_true, if_false) -> Value:
    """`either` of one value each: ``if_true`` if the one-element bool
    ``condition`` holds, else ``if_false``; only the branch taken runs.

    One node where `where` runs both branches: for one value, the choice of
    a method by its range. Python numbers become constants of the other
    branch's dtype.
    """
    like = if_true if isinstance(if_true, Value) else if_false
    values = [
        v if isinstance(v, Value) else like.constant(v) for v in (if_true, if_false)
    ]
    [result] = either(condition, values[:1], values[1:])
    return like.result(result.name, like.dtype)


def only_if(needed: Value, value: Value) -> Value:
    """``value`` if the 0-d bool ``needed`` holds, else a 0-d zero: an ``If``
    (`either`) into whose branch the nodes that only ``value`` needs move,
    so that they run only when ``needed``."""
    [result] = either(needed, [value], [value.constant(0)])
    return value.result(result.name, value.dtype)


def where_rare(condition: Value, if_true, if_false) -> Value:
    """`where` whose ``if_true`` is computed only if some element of
    ``condition`` (of the result's shape) holds: for a method of a
    vectorized function that data seldom needs, such as a reflection
    formula for negative arguments. Four nodes more than `where` (none for
    a Python number ``if_true``)."""
    if isinstance(if_true, Value):
        if_true = only_if(condition.any(), if_true)
    return where(condition, if_true, if_false)


def where_lazily(condition: Value, if_true, if_false) -> Value:
    """`where` whose sides are each computed only if some element of
    ``condition`` (of the result's shape) takes it: for two costly methods
    of a vectorized function over ranges that data may not both reach, and
    for the methods of a function of few values. Nine nodes more than
    `where` (fewer for Python numbers)."""
    if isinstance(if_false, Value):
        if_false = only_if((~condition).any(), if_false)
    return where_rare(condition, if_true, if_false)


def maximum(a, b):
    """The elementwise maximum; of two Python numbers, a Python number.

    Through ``Where`` for dtypes whose ``Max`` kernel computes wrong results
    (int64, see `kernels.WRONG_RESULTS`).
    """
    values = [v for v in (a, b) if isinstance(v, Value)]
    if not values:
        return max(a, b)
    if ("Max", values[0].dtype) in WRONG_RESULTS:
        return where(a < b, b, a)
    return values[0].apply("Max", a, b)


def minimum(a, b):
    """The elementwise minimum (see `maximum`)."""
    values = [v for v in (a, b) if isinstance(v, Value)]
    if not values:
        return min(a, b)
    if ("Min", values[0].dtype) in WRONG_RESULTS:
        return where(a > b, b, a)
    return values[0].apply("Min", a, b)


def product(a, b):
    """The scalar ``a * b``; a factor of 1 adds no node."""
    if isinstance(b, int) and b == 1:
        return a
    if isinstance(a, int) and a == 1:
        return b
    return a * b


def equal(a, b):
    """Whether the scalars ``a`` and ``b`` are equal."""
    if isinstance(a, Value):
        return a.eq(b)
    return b.eq(a) if isinstance(b, Value) else a == b


def logical_not(a):
    return ~a if isinstance(a, Value) else not a


def logical_and(a, b):
    """``a and b`` of bool scalars; a Python bool adds no node."""
    if not isinstance(a, Value):
        return b if a else False
    if not isinstance(b, Value):
        return a if b else False
    return a & b


def logical_or(a, b):
    """``a or b`` of bool scalars; a Python bool adds no node."""
    if not isinstance(a, Value):
        return True if a else b
    if not isinstance(b, Value):
        return True if b else a
    return a | b


def length(x: Value, axis: int, static: int | None = None):
    """The length of ``x`` along ``axis``: ``static`` if known, else a 0-d int64."""
    if static is not None:
        return static
    return x.shape().take(x.indices(axis), axis=0)


def strides(lengths) -> list:
    """The row-major strides, in elements, of an array of ``lengths`` (scalars)."""
    result, stride = [], 1
    for dim in reversed(lengths):
        result.append(stride)
        stride = product(stride, dim)
    return result[::-1]


def concat(parts, axis: int) -> Value:
    return parts[0].apply("Concat", *parts, axis=axis)


def either(
    condition: Value,
    if_true: list[Value],
    if_false: list[Value],
    ndim: int | None = None,
) -> list[Value]:
    """The values ``if_true`` where the 0-d bool ``condition`` holds, else
    ``if_false``, through an ``If`` whose branches return them (of rank
    ``ndim`` if given).

    The graph pass `~pytensor.link.onnx.passes.if_branches.move_into_branches`
    then moves into each branch the nodes that only it reads, so that only
    the values of the branch taken are computed.
    """
    builder = condition.builder
    shape = None if ndim is None else (None,) * ndim
    branches = {}
    for branch, values in (("then_branch", if_true), ("else_branch", if_false)):
        sub = builder.subgraph(branch)
        for value in values:
            sub.add_output(value.name, branch, value.dtype, shape)
        branches[branch] = sub.make_graph()
    names = builder.add_multi(
        "If", [condition.name], n_outputs=len(if_true), hint="either", **branches
    )
    return [
        builder.value(name, value.dtype)
        for name, value in zip(names, if_true, strict=True)
    ]


def along_runtime_axis(axis: Value, ndim: int, compute) -> list[Value]:
    """``compute(k)`` (a list of values) for the non-negative ``k`` that the
    0-d int64 ``axis`` (negative from the end) names at run time, among the
    ``ndim`` axes.

    Only the branch of that axis runs (`either`); an axis out of range
    raises NumPy's ``AxisError``.
    """
    builder = axis.builder
    axis = where(axis < 0, axis + ndim, axis)
    builder.require(
        (axis >= 0) & (axis < ndim),
        np.exceptions.AxisError,
        f"axis is out of bounds for array of dimension {ndim}",
        is_scalar=True,
    )
    results = compute(ndim - 1)
    for k in reversed(range(ndim - 1)):
        results = either(axis.eq(k), compute(k), results)
    return results


def arange(length: Value) -> Value:
    """``numpy.arange(length)`` for a 0-d int64 ``length``."""
    return length.apply("Range", length.constant(0), length, length.constant(1))


def polevl(x: Value, coefficients) -> Value:
    """Evaluate a polynomial by Horner's rule, coefficients from the highest degree.

    A leading coefficient of 1 is not multiplied (Cephes' ``p1evl``).
    """
    head, *middle, last = coefficients
    result = x if head == 1.0 else head * x
    for coefficient in middle:
        result = (result + coefficient) * x
    return result + last
