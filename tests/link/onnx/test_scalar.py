from decimal import ROUND_HALF_UP, Decimal
from functools import cache, partial

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pytensor.compile.mode import Mode
from pytensor.tensor.elemwise import Elemwise

import pytensor
from pytensor.link.onnx import ONNXLinker
from tests.link.onnx.utils import (
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
    py_mode,
)


# Converts every Op exactly as the test builds it
compare_direct = partial(compare_onnx_and_py, onnx_mode=no_rewrites)

FLOATS = ("float64", "float32")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED + UNSIGNED
ALL_DTYPES = (*FLOATS, *INTS, "bool")


def assert_identical(onnx_value, py_value):
    """Equal dtype, shape and values, with NaN == NaN and -0.0 != 0.0."""
    onnx_value, py_value = np.asarray(onnx_value), np.asarray(py_value)
    assert_same_values(onnx_value, py_value, rtol=0)
    if py_value.dtype.kind == "f":
        number = ~np.isnan(py_value)
        np.testing.assert_array_equal(
            np.signbit(onnx_value[number]), np.signbit(py_value[number])
        )


FLOAT_SAMPLES = [-np.inf, -1e30, -7, -2.5, -1.5, -1, -0.5, -0.0, 0.0, 0.25, 0.5]
FLOAT_SAMPLES += [1, 1.5, 2.5, 3, 8, 100, 1e30, np.inf, np.nan]


def sample_values(dtype):
    """Ordinary values and edge cases of ``dtype``, as a 1-d array."""
    if dtype == "bool":
        return np.array([False, True])
    if np.dtype(dtype).kind == "f":
        return np.array(FLOAT_SAMPLES, dtype=dtype)
    info = np.iinfo(dtype)
    candidates = [info.min, info.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7]
    candidates += [info.max - 1, info.max]
    return np.unique(
        np.array([v for v in candidates if info.min <= v <= info.max], dtype=dtype)
    )


def static_shape(shape):
    """Dims of length 1 must be known to PyTensor to broadcast."""
    return tuple(1 if dim == 1 else None for dim in shape)


def binary_grid(x_dtype, y_dtype, y_values=None):
    """Inputs of shape (n, 1) and (1, m) that pair every sample value."""
    x = pt.tensor("x", dtype=x_dtype, shape=(None, 1))
    y = pt.tensor("y", dtype=y_dtype, shape=(1, None))
    y_values = sample_values(y_dtype) if y_values is None else y_values
    return [x, y], [sample_values(x_dtype)[:, None], y_values[None, :]]


# int32, uint16 and uint32 take the same unary code paths as int64 and uint8
UNARY_DTYPES = (*FLOATS, "int8", "int16", "int64", "uint8", "uint64", "bool")
UNARY = {
    "neg": (pt.neg, UNARY_DTYPES[:-1]),
    "abs": (pt.abs, UNARY_DTYPES),
    "sign": (pt.sign, UNARY_DTYPES[:-1]),
    "sqr": (pt.sqr, UNARY_DTYPES),
    "sqrt": (pt.sqrt, UNARY_DTYPES),
    "reciprocal": (pt.reciprocal, UNARY_DTYPES),
    "exp": (pt.exp, UNARY_DTYPES),
    "exp2": (pt.exp2, UNARY_DTYPES),
    "log": (pt.log, UNARY_DTYPES),
    "log2": (pt.log2, UNARY_DTYPES),
    "log10": (pt.log10, UNARY_DTYPES),
    "sin": (pt.sin, UNARY_DTYPES),
    "cos": (pt.cos, UNARY_DTYPES),
    "tanh": (pt.tanh, UNARY_DTYPES),
    "deg2rad": (pt.deg2rad, UNARY_DTYPES),
    "rad2deg": (pt.rad2deg, UNARY_DTYPES),
    "floor": (pt.floor, UNARY_DTYPES),
    "ceil": (pt.ceil, UNARY_DTYPES),
    "trunc": (pt.trunc, UNARY_DTYPES),
    "round_half_to_even": (pt.round_half_to_even, FLOATS),
    "round_half_away_from_zero": (pt.round_half_away_from_zero, FLOATS),
    "isnan": (Elemwise(ps.isnan), UNARY_DTYPES),
    "isinf": (Elemwise(ps.isinf), UNARY_DTYPES),
    "invert": (pt.invert, UNARY_DTYPES[2:]),
    "identity": (pt.tensor_copy, UNARY_DTYPES),
}


@pytest.mark.parametrize(
    "name, dtype",
    [(name, dtype) for name, (_, dtypes) in UNARY.items() for dtype in dtypes],
)
def test_unary(name, dtype):
    op, _ = UNARY[name]
    x = pt.vector("x", dtype=dtype)
    compare_direct([x], [op(x)], [sample_values(dtype)])


NON_NEGATIVE_EXPONENTS = [0, 1, 2, 3, 7, 62, 63, 64, 127, 255]

BINARY = {
    "add": (pt.add, ALL_DTYPES),
    "sub": (pt.sub, ALL_DTYPES[:-1]),
    "mul": (pt.mul, ALL_DTYPES),
    "true_div": (pt.true_div, ALL_DTYPES),
    "int_div": (pt.int_div, ALL_DTYPES),
    "mod": (pt.mod, ALL_DTYPES),
    "pow": (pt.pow, ALL_DTYPES),
    "maximum": (pt.maximum, ALL_DTYPES),
    "minimum": (pt.minimum, ALL_DTYPES),
    "lt": (pt.lt, ALL_DTYPES),
    "gt": (pt.gt, ALL_DTYPES),
    "le": (pt.le, ALL_DTYPES),
    "ge": (pt.ge, ALL_DTYPES),
    "eq": (pt.eq, ALL_DTYPES),
    "neq": (pt.neq, ALL_DTYPES),
    "and": (pt.and_, (*INTS, "bool")),
    "or": (pt.or_, (*INTS, "bool")),
    "xor": (pt.xor, (*INTS, "bool")),
}
EXACT_BINARY = {"add", "sub", "mul", "true_div", "int_div", "mod"}


def exponent_values(dtype):
    """NumPy raises for negative integer exponents."""
    if np.dtype(dtype).kind not in "iu":
        return None
    info = np.iinfo(dtype)
    return np.array([e for e in NON_NEGATIVE_EXPONENTS if e <= info.max], dtype=dtype)


@pytest.mark.parametrize(
    "name, dtype",
    [(name, dtype) for name, (_, dtypes) in BINARY.items() for dtype in dtypes],
)
def test_binary(name, dtype):
    op, _ = BINARY[name]
    y_values = exponent_values(dtype) if name == "pow" else None
    inputs, values = binary_grid(dtype, dtype, y_values)
    assert_fn = assert_identical if name in EXACT_BINARY else None
    compare_direct(inputs, [op(*inputs)], values, assert_fn=assert_fn)


MIXED = [
    ("add", "int8", "float32"),
    ("add", "bool", "int8"),
    ("add", "uint32", "int32"),
    ("mul", "int64", "float32"),
    ("mul", "int16", "float32"),
    ("mul", "bool", "uint16"),
    ("sub", "uint8", "int8"),
    ("sub", "uint64", "int64"),
    ("sub", "float32", "float64"),
    ("true_div", "int8", "int16"),
    ("true_div", "float32", "int64"),
    ("true_div", "int8", "float32"),
    ("int_div", "uint8", "int8"),
    ("int_div", "int32", "float32"),
    ("int_div", "bool", "int16"),
    ("mod", "uint16", "int16"),
    ("mod", "int64", "float32"),
    ("pow", "int8", "uint8"),
    ("pow", "bool", "bool"),
    ("pow", "float32", "int64"),
    ("pow", "int16", "float32"),
    ("maximum", "uint8", "int8"),
    ("maximum", "int64", "uint64"),
    ("minimum", "int16", "uint16"),
    ("minimum", "float32", "int32"),
    ("lt", "int64", "uint64"),
    ("lt", "uint64", "int8"),
    ("le", "int32", "uint64"),
    ("gt", "uint64", "int64"),
    ("ge", "int8", "uint64"),
    ("eq", "uint64", "int64"),
    ("neq", "int16", "uint64"),
    ("lt", "bool", "int8"),
    ("gt", "float32", "int64"),
    ("eq", "float32", "float64"),
    ("and", "uint8", "int16"),
    ("xor", "uint32", "int8"),
]


@pytest.mark.parametrize("name, x_dtype, y_dtype", MIXED)
def test_mixed_dtypes_upcast_like_pytensor(name, x_dtype, y_dtype):
    op, _ = BINARY[name]
    y_values = exponent_values(y_dtype) if name == "pow" else None
    inputs, values = binary_grid(x_dtype, y_dtype, y_values)
    compare_direct(inputs, [op(*inputs)], values)


@pytest.mark.parametrize("n_inputs", [3, 5])
@pytest.mark.parametrize(
    "dtypes", [("float32",), ("int8",), ("bool",), ("int8", "float32", "uint8")]
)
@pytest.mark.parametrize("op", [pt.add, pt.mul])
def test_variadic(op, dtypes, n_inputs):
    inputs = [
        pt.vector(f"x{i}", dtype=dtypes[i % len(dtypes)]) for i in range(n_inputs)
    ]
    rng = np.random.default_rng(n_inputs)
    values = [rng.integers(0, 5, size=6).astype(inp.type.dtype) for inp in inputs]
    compare_direct(inputs, [op(*inputs)], values)


def test_bitwise_op_with_float_result_dtype_is_rejected():
    # PyTensor types int8 | uint64 as float64, which NumPy cannot compute either
    x = pt.vector("x", dtype="int8")
    y = pt.vector("y", dtype="uint64")
    with pytest.raises(NotImplementedError, match="common integer dtype"):
        pytensor.function([x, y], x | y, mode=no_rewrites)


def representable_values(from_dtype, to_dtype):
    """Sample values whose conversion is defined: C and NumPy leave out-of-range
    float to int conversions undefined, and PyTensor's Python implementation
    raises on out-of-range integers (its C code and this backend wrap)."""
    if np.dtype(to_dtype).kind not in "iu":
        return sample_values(from_dtype)
    info = np.iinfo(to_dtype)
    if np.dtype(from_dtype).kind == "f":
        values = np.array([-7.9, -2.5, -0.5, 0, 0.5, 2.7, 100.9], dtype=from_dtype)
        return values[(values > info.min - 1) & (values < info.max + 1)]
    values = sample_values(from_dtype)
    return values[[info.min <= int(v) <= info.max for v in values]]


@pytest.mark.parametrize("from_dtype", ALL_DTYPES)
def test_cast(from_dtype):
    to_dtypes = [dtype for dtype in ALL_DTYPES if dtype != from_dtype]
    inputs = [pt.vector(f"to_{dtype}", dtype=from_dtype) for dtype in to_dtypes]
    outputs = [pt.cast(x, dtype) for x, dtype in zip(inputs, to_dtypes, strict=True)]
    values = [representable_values(from_dtype, dtype) for dtype in to_dtypes]
    compare_direct(inputs, outputs, values)


def test_cast_wraps_out_of_range_integers():
    x = pt.vector("x", dtype="int64")
    fn = pytensor.function([x], pt.cast(x, "int8"), mode=no_rewrites)
    values = np.array([300, -129, 2**40 + 5], dtype="int64")
    np.testing.assert_array_equal(fn(values), values.astype("int8"))


@pytest.mark.parametrize(
    "cond_dtype, dtype",
    [
        ("bool", "float64"),
        ("int8", "float32"),
        ("float64", "int16"),
        ("uint64", "uint64"),
        ("float32", "bool"),
        ("bool", "uint16"),
        ("int64", "int8"),
    ],
)
def test_switch(cond_dtype, dtype):
    cond = pt.tensor("cond", dtype=cond_dtype, shape=(None, 1))
    x = pt.tensor("x", dtype=dtype, shape=(1, None))
    y = pt.scalar("y", dtype=dtype)
    cond_values = sample_values(cond_dtype)[:, None]
    x_values = sample_values(dtype)[None, :]
    y_value = np.asarray(sample_values(dtype)[-1])
    compare_direct(
        [cond, x, y], [pt.switch(cond, x, y)], [cond_values, x_values, y_value]
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint16", "uint64"])
def test_clip_follows_pytensor_comparisons(dtype):
    # lower wins when lower > upper, and a NaN bound is ignored
    x = pt.tensor("x", dtype=dtype, shape=(None, 1))
    lower = pt.tensor("lower", dtype=dtype, shape=(1, None))
    upper = pt.tensor("upper", dtype=dtype, shape=(1, None))
    bounds = sample_values(dtype)
    rng = np.random.default_rng(0)
    compare_direct(
        [x, lower, upper],
        [pt.clip(x, lower, upper)],
        [
            sample_values(dtype)[:, None],
            bounds[None, :],
            rng.permutation(bounds)[None, :],
        ],
    )


@pytest.mark.xfail(
    strict=True,
    reason="onnxruntime's Where returns 0.0 for a -0.0 in its first branch",
)
def test_switch_keeps_negative_zero():
    cond = pt.vector("cond", dtype="bool")
    x = pt.vector("x")
    fn = pytensor.function([cond, x], pt.switch(cond, x, 1.0), mode=no_rewrites)
    assert np.signbit(fn(np.array([True]), np.array([-0.0]))).all()


def test_clip_mixed_dtypes():
    x = pt.vector("x", dtype="int16")
    lower = pt.scalar("lower", dtype="float32")
    compare_direct(
        [x, lower],
        [pt.clip(x, lower, np.int8(5))],
        [np.array([-300, -2, 0, 7], dtype="int16"), np.float32(-1.5)],
    )


@pytest.mark.parametrize("x_dtype, y_dtype", [("int8", "float32"), ("bool", "uint64")])
def test_second_broadcasts_y_to_x(x_dtype, y_dtype):
    x = pt.matrix("x", dtype=x_dtype)
    y = pt.tensor("y", dtype=y_dtype, shape=(1, None))
    compare_direct(
        [x, y],
        [pt.second(x, y)],
        [np.zeros((2, 3), dtype=x_dtype), np.array([[1, 0, 1]], dtype=y_dtype)],
    )


@pytest.mark.parametrize("dtype", FLOATS)
def test_round_half_away_from_zero_is_exact(dtype):
    # PyTensor's Python implementation computes floor(x + 0.5), which rounds
    # 0.49999999999999994 and odd integers above 2**52 wrongly; its C code
    # and this backend round exactly.
    eps = np.finfo(dtype).eps
    x = np.array(
        [
            np.nextafter(0.5, 0),
            -np.nextafter(0.5, 0),
            0.5,
            -0.5,
            2.5,
            -3.5,
            1 / eps + 1,
            -(1 / eps + 1),
            2 / eps - 1,
            -0.3,
            np.nan,
            np.inf,
        ],
        dtype=dtype,
    )
    xs = pt.vector("x", dtype=dtype)
    fn = pytensor.function([xs], pt.round_half_away_from_zero(xs), mode="ONNX")
    assert_identical(fn(x), exactly_rounded_half_away(x))


def exactly_rounded_half_away(x):
    return np.array(
        [
            float(Decimal(float(v)).to_integral_value(rounding=ROUND_HALF_UP))
            if np.isfinite(v)
            else v
            for v in x
        ],
        dtype=x.dtype,
    )


def exact_powers(base, dtype):
    """The exponents k for which ``base ** k`` is exactly representable."""
    info = np.finfo(dtype)
    if base == 2:
        return np.arange(info.minexp, info.maxexp)
    return np.arange(23 if dtype == "float64" else 11)


@pytest.mark.parametrize("op, base", [(pt.log2, 2), (pt.log10, 10)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_log2_log10_exact_at_powers(op, base, dtype):
    exponents = exact_powers(base, dtype)
    x = pt.vector("x", dtype=dtype)
    fn = pytensor.function([x], op(x), mode="ONNX")
    powers = np.power(np.asarray(base, dtype="float64"), exponents).astype(dtype)
    np.testing.assert_array_equal(fn(powers), exponents.astype(dtype))


@pytest.mark.parametrize("op", [pt.log2, pt.log10])
@pytest.mark.parametrize("dtype", FLOATS)
def test_log2_log10_accuracy(op, dtype):
    # Measured bound: 3 ulp (float64) and 5 ulp (float32) from NumPy
    rng = np.random.default_rng(1)
    x = np.exp(rng.uniform(-80, 80, 20_000)).astype(dtype)
    xs = pt.vector("x", dtype=dtype)
    result = pytensor.function([xs], op(xs), mode="ONNX")(x)
    expected = np.log2(x) if op is pt.log2 else np.log10(x)
    ulps = np.abs(result - expected) / np.spacing(np.abs(expected))
    assert ulps.max() <= (3 if dtype == "float64" else 5)


@pytest.mark.parametrize("mode", [no_rewrites, "ONNX"])
def test_integer_pow_is_exact_where_onnxruntime_pow_is_not(mode):
    # onnxruntime's integer Pow goes through double: 3**39 would be off by 11
    x = pt.vector("x", dtype="int64")
    y = pt.scalar("y", dtype="uint8")
    compare_onnx_and_py(
        [x, y],
        [x**39, x**y],
        [np.array([3, -3, 5, 2**32 + 1], dtype="int64"), np.uint8(41)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize(
    "dtype, divisor",
    [
        *((dtype, d) for dtype in ("int8", "int64") for d in (-3, 1, 2, 7)),
        *((dtype, d) for dtype in ("uint8", "uint64") for d in (1, 2, 7)),
        ("bool", True),
    ],
)
def test_division_by_constants(dtype, divisor):
    divisor = np.asarray(divisor).astype(dtype)
    x = pt.vector("x", dtype=dtype)
    compare_onnx_and_py(
        [x], [x // divisor, x % divisor, divisor // x], [sample_values(dtype)]
    )


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_edge_cases_do_not_crash(dtype):
    # INT_MIN // -1 traps on x86 and onnxruntime fails on division by 0
    info = np.iinfo(dtype)
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    x_values = np.array([info.min, info.min, 7, -7, 0], dtype=dtype)
    y_values = np.array([-1, 0, 0, -1, 0], dtype=dtype)
    compare_direct([x, y], [x // y, x % y], [x_values, y_values])


# Composite (fused elementwise graphs)


class FusingONNXLinker(ONNXLinker):
    incompatible_rewrites = tuple(
        t for t in ONNXLinker.incompatible_rewrites if t != "fusion"
    )


fusing_mode = Mode(FusingONNXLinker(), "fast_run")


def compare_fused(inputs, outputs, values, **kwargs):
    fn, _ = compare_onnx_and_py(
        inputs, outputs, values, onnx_mode=fusing_mode, **kwargs
    )
    composites = [
        node
        for node in fn.maker.fgraph.toposort()
        if isinstance(getattr(node.op, "scalar_op", None), ps.Composite)
    ]
    assert composites, "the graph was expected to contain a fused Composite"
    return composites


@pytest.mark.parametrize("dtype", FLOATS)
def test_composite_single_output_with_constants(dtype):
    x = pt.matrix("x", dtype=dtype)
    y = pt.matrix("y", dtype=dtype)
    out = pt.exp(x) * y + 1.5 - pt.sqr(x // 2)
    values = [np.linspace(-3, 3, 12).reshape(3, 4).astype(dtype)] * 2
    compare_fused([x, y], [out], values)


def test_composite_multiple_outputs():
    x = pt.matrix("x")
    y = pt.matrix("y")
    shared = pt.sin(x) + y
    [composite] = compare_fused(
        [x, y],
        [shared * 2, shared, pt.switch(x > 0, shared, -x)],
        [np.linspace(-2, 2, 6).reshape(2, 3), np.ones((2, 3))],
    )
    assert len(composite.outputs) > 1


def test_composite_of_integers_and_mixed_dtypes():
    x = pt.vector("x", dtype="int8")
    y = pt.vector("y", dtype="float32")
    z = pt.vector("z", dtype="uint16")
    out = (x * 3 + z) % 7 - pt.floor(y * x) + (x // -2)
    compare_fused(
        [x, y, z],
        [out],
        [
            np.array([-128, -5, 0, 3, 127], dtype="int8"),
            np.array([-1.5, 0.25, np.nan, 2, 3], dtype="float32"),
            np.array([0, 1, 65535, 9, 4], dtype="uint16"),
        ],
    )


def scalar_inputs(*dtypes):
    return [ps.get_scalar_type(dtype)(f"s{i}") for i, dtype in enumerate(dtypes)]


@pytest.mark.parametrize(
    "x_value, y_value",
    [
        (np.array([[0.0], [1.0]]), np.array([[1.0, 2.0, 3.0]])),
        (np.array([[0.5]]), np.array([[2.0]])),
    ],
)
def test_composite_outputs_broadcast_over_all_inputs(x_value, y_value):
    # Each output of an Elemwise has the shape of all inputs broadcast,
    # including outputs that use only some of them (or none).
    s0, s1 = scalar_inputs("float64", "float64")
    composite = ps.Composite(
        [s0, s1], [ps.exp(s0), s0 + s1, ps.constant(np.float64(2.5))]
    )
    x = pt.tensor("x", shape=static_shape(x_value.shape))
    y = pt.tensor("y", shape=static_shape(y_value.shape))
    outputs = Elemwise(composite)(x, y)
    compare_direct([x, y], outputs, [x_value, y_value])


def test_nested_composite():
    a, b = scalar_inputs("float64", "int8")
    inner = ps.Composite([a, b], [a * b + 1, ps.int_div(b, ps.constant(np.int8(3)))])
    s0, s1, s2 = scalar_inputs("float64", "int8", "float32")
    product, quotient = inner(s0, s1)
    outer = ps.Composite([s0, s1, s2], [product - s2, quotient, ps.exp(s2)])
    x = pt.tensor("x", shape=(None, 1))
    y = pt.tensor("y", dtype="int8", shape=(None, 1))
    z = pt.tensor("z", dtype="float32", shape=(1, None))
    x_value = np.array([[0.5], [-2.0]])
    y_value = np.array([[-7], [8]], dtype="int8")
    z_value = np.array([[1.0, 2.0, -0.5]], dtype="float32")
    fn = pytensor.function([x, y, z], Elemwise(outer)(x, y, z), mode=no_rewrites)
    # PyTensor's Python implementation of a multi-output Composite nested in
    # a Composite returns the last inner output for all of them (its C and
    # Numba backends agree with this expected value).
    expected = [
        x_value * y_value + 1 - z_value,
        np.broadcast_to(y_value // 3, (2, 3)),
        np.broadcast_to(np.exp(z_value), (2, 3)),
    ]
    for result, value in zip(fn(x_value, y_value, z_value), expected, strict=True):
        assert_same_values(result, value)


# Graphs as PyTensor's default rewrites leave them


def test_default_rewrites():
    x = pt.matrix("x")
    n = pt.matrix("n", dtype="int64")
    outputs = [
        pt.switch(x > 0, x**2, -x) // 3 + x % 2,
        pt.clip(x, -1, 1) * pt.maximum(x, 0.5),
        (n // 4) * 4 + n % 4 - n,
        pt.round_half_away_from_zero(x * 10) / 10,
        pt.log2(pt.abs(x) + 1) + pt.exp2(n),
        pt.and_(n > 2, pt.isnan(x)) | pt.eq(n, 3),
    ]
    compare_onnx_and_py(
        [x, n],
        outputs,
        [
            np.array([[-2.5, -0.0, 0.7], [1.5, np.nan, 3.0]]),
            np.array([[-9, 0, 3], [2, 7, -1]], dtype="int64"),
        ],
    )


# Hypothesis properties


PROPERTY_OPS = {
    **{name: op for name, (op, _) in BINARY.items()},
    **{name: op for name, (op, _) in UNARY.items()},
}


@cache
def compiled_pair(name, dtypes, static_shapes):
    inputs = [
        pt.tensor(f"x{i}", dtype=dtype, shape=shape)
        for i, (dtype, shape) in enumerate(zip(dtypes, static_shapes, strict=True))
    ]
    op = PROPERTY_OPS[name]
    outputs = op(*inputs)
    onnx_fn = pytensor.function(inputs, outputs, mode="ONNX")
    py_fn = pytensor.function(inputs, outputs, mode=py_mode)
    return onnx_fn, py_fn


@st.composite
def broadcastable_values(draw, dtypes):
    shapes, _ = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=len(dtypes), min_dims=0, max_dims=3, min_side=0, max_side=3
        )
    )
    values = tuple(
        draw(
            hnp.arrays(
                dtype,
                shape,
                elements=hnp.from_dtype(np.dtype(dtype)),
            )
        )
        for dtype, shape in zip(dtypes, shapes, strict=True)
    )
    return values


def check_property(name, values, assert_fn=assert_same_values):
    dtypes = tuple(str(v.dtype) for v in values)
    static_shapes = tuple(static_shape(v.shape) for v in values)
    onnx_fn, py_fn = compiled_pair(name, dtypes, static_shapes)
    assert_fn(onnx_fn(*values), py_fn(*values))


PROPERTY_DTYPES = st.sampled_from(["float64", "float32", "int8", "int64", "uint8"])


@given(
    st.sampled_from(["add", "sub", "mul", "true_div", "maximum", "minimum"]),
    st.tuples(PROPERTY_DTYPES, PROPERTY_DTYPES).flatmap(broadcastable_values),
)
def test_arithmetic_property(name, values):
    check_property(name, values)


@given(
    st.sampled_from(["int_div", "mod"]),
    st.sampled_from(ALL_DTYPES).flatmap(lambda d: broadcastable_values((d, d))),
)
def test_int_div_and_mod_property(name, values):
    check_property(name, values, assert_fn=assert_identical)


@given(
    st.sampled_from(["lt", "gt", "le", "ge", "eq", "neq"]),
    st.tuples(
        st.sampled_from([*PROPERTY_DTYPES.elements, "uint64", "bool"]),
        st.sampled_from([*PROPERTY_DTYPES.elements, "uint64", "bool"]),
    ).flatmap(broadcastable_values),
)
def test_comparison_property(name, values):
    check_property(name, values)


ROUNDING_CASES = [
    *((name, dtype) for name in ("floor", "ceil", "trunc") for dtype in ALL_DTYPES),
    *(("round_half_to_even", dtype) for dtype in FLOATS),
]


@given(
    st.sampled_from(ROUNDING_CASES).flatmap(
        lambda case: st.tuples(st.just(case[0]), broadcastable_values((case[1],)))
    )
)
def test_rounding_property(case):
    name, values = case
    check_property(name, values, assert_fn=assert_identical)


@given(st.sampled_from(FLOATS).flatmap(lambda d: broadcastable_values((d,))))
def test_round_half_away_from_zero_property(values):
    [x] = values
    onnx_fn, _ = compiled_pair(
        "round_half_away_from_zero", (str(x.dtype),), (static_shape(x.shape),)
    )
    assert_identical(onnx_fn(x), exactly_rounded_half_away(x.ravel()).reshape(x.shape))


@pytest.mark.parametrize("fn", [pt.maximum, pt.minimum])
def test_int64_extrema_with_equal_high_halves(fn):
    # onnxruntime's own int64 Max/Min get these wrong
    a = pt.vector("a", dtype="int64")
    b = pt.vector("b", dtype="int64")
    values = [
        np.array([0, 2**32 - 1, 1, 2**31, -(2**33)], dtype="int64"),
        np.array([2**31 - 1, 5, 2**32 - 1, 7, -(2**33) + 2**31], dtype="int64"),
    ]
    compare_onnx_and_py([a, b], [fn(a, b)], values)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_maximum_with_zero_keeps_the_sign_of_a_zero_like_numba(dtype):
    # onnxruntime's Relu, which runtimes fuse with the layer before it
    x = pt.vector("x", dtype=dtype)
    values = np.array([np.nan, -np.inf, -1.5, -0.0, 0.0, 2.5, np.inf], dtype)
    fn = compare_onnx_and_py([x], [pt.maximum(x, 0), pt.maximum(0.0, x)], [values])[0]
    for result in fn(values):
        assert np.signbit(result[3])
