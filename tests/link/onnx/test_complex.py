import itertools
import warnings

import numpy as np
import onnxruntime as ort
import pytensor.scalar as ps
import pytensor.scalar.basic as scalar_basic
import pytensor.tensor as pt
import pytest
from pytensor.tensor.elemwise import Elemwise

import pytensor
from pytensor.link.onnx import export_onnx
from pytensor.link.onnx.dispatch import onnx_funcify
from tests.link.onnx.utils import (
    COMPLEX_DTYPES,
    close,
    compare_onnx_and_py,
    complex_values,
    no_rewrites,
    onnx_model_of,
    same_special,
    special_grid,
)


UNARY = {
    "neg": lambda z: -z,
    "conj": pt.conj,
    "real": pt.real,
    "imag": pt.imag,
    "abs": pt.abs,
    "angle": pt.angle,
    "exp": pt.exp,
    "log": pt.log,
    "sqrt": pt.sqrt,
    "sqr": pt.sqr,
    "reciprocal": pt.reciprocal,
}
BINARY = {
    "add": lambda z, w: z + w,
    "sub": lambda z, w: z - w,
    "mul": lambda z, w: z * w,
    "div": lambda z, w: z / w,
    "eq": pt.eq,
    "neq": pt.neq,
    "add3": lambda z, w: z + w + z,
    "mul3": lambda z, w: z * w * z,
}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dtype):
    z = pt.matrix("z", dtype=dtype)
    value = complex_values(np.random.default_rng(0), (3, 4), dtype)
    compare_onnx_and_py([z], [UNARY[name](z)], [value], assert_fn=close(dtype))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcasts(name, dtype):
    z, w = pt.matrix("z", dtype=dtype), pt.row("w", dtype=dtype)
    rng = np.random.default_rng(1)
    values = [complex_values(rng, (3, 4), dtype), complex_values(rng, (1, 4), dtype)]
    values[1][0, 0] = values[0][0, 0]
    compare_onnx_and_py([z, w], [BINARY[name](z, w)], values, assert_fn=close(dtype))


@pytest.mark.parametrize(
    "make",
    [
        lambda r, s: pt.complex(r, s),
        lambda r, s: pt.complex_from_polar(pt.abs(r), s),
        lambda r, s: pt.cast(r, "complex64") * s,
        lambda r, s: pt.cast(pt.complex(r, s), "complex64"),
        lambda r, s: pt.cast(pt.cast(r, "complex64"), "complex128") + s,
        lambda r, s: pt.complex(r, s) + r,
        lambda r, s: pt.complex(r, s) * 2,
        lambda r, s: r / pt.complex(s, r),
        lambda r, s: pt.complex(r, s) + pt.cast(s, "int32"),
    ],
    ids=[
        "complex",
        "from_polar",
        "cast_real",
        "cast_narrow",
        "cast_wide",
        "add_real",
        "mul_int_constant",
        "real_over_complex",
        "add_int",
    ],
)
def test_real_and_complex_mix(make):
    r, s = pt.vector("r"), pt.vector("s")
    rng = np.random.default_rng(2)
    out = make(r, s)
    values = [rng.normal(size=5), rng.normal(size=5)]
    compare_onnx_and_py([r, s], [out], values, assert_fn=close(out.type.dtype))


STRUCTURAL = {
    "transpose": lambda z: z.T,
    "expand_dims": lambda z: z[None, :, None],
    "reshape": lambda z: z.reshape((2, 6)),
    "flatten": lambda z: z.flatten(),
    "slice": lambda z: z[1:, ::-2],
    "index": lambda z: z[-1],
    "advanced_index": lambda z: z[[2, 0, 2]],
    "boolean_mask": lambda z: z[pt.real(z) > 0],
    "set_subtensor": lambda z, w: pt.set_subtensor(z[1], w[0]),
    "inc_subtensor_real": lambda z, w: pt.inc_subtensor(z[:, 0], pt.real(w[0, :3])),
    "advanced_inc": lambda z, w: pt.inc_subtensor(z[[0, 0]], w[0]),
    "join": lambda z, w: pt.concatenate([z, w], axis=0),
    "stack": lambda z, w: pt.stack([z[0], w[0]]),
    "alloc": lambda z: pt.alloc(z[0, 0], 2, 3),
    "split": lambda z: pt.split(z, [1, 2], n_splits=2, axis=0)[1],
    "make_vector": lambda z: pt.stack([z[0, 0], z[1, 2]]),
    "specify_shape": lambda z: pt.specify_shape(z, (3, None)) * 2,
    "advanced_inc_2d": lambda z, w: pt.inc_subtensor(z[[0, 2], [1, 1]], w[0, :2]),
    "diagonal": lambda z: pt.diagonal(z),
    "shape": lambda z: z.shape,
    "sum": lambda z: pt.sum(z),
    "sum_axis": lambda z: pt.sum(z, axis=0),
    "mean": lambda z: pt.mean(z, axis=1),
    "dot": lambda z, w: pt.dot(z, w.T),
    "dot_vector": lambda z, w: pt.dot(z, w[0]),
    "dot_real": lambda z, w: pt.dot(pt.real(z), w.T),
    "vector_dot": lambda z: pt.dot(z[0], z[1]),
    "batched_dot": lambda z: pt.matmul(z[:, :, None], z[:, None, :3]),
}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", STRUCTURAL)
def test_shape_ops_reductions_and_dot(name, dtype):
    rng = np.random.default_rng(4)
    values = [complex_values(rng, (3, 4), dtype), complex_values(rng, (1, 4), dtype)]
    compare_on_matrices(STRUCTURAL[name], values, close)


def compare_on_matrices(make, values, assert_fn):
    """`compare_onnx_and_py` of ``make`` applied to as many matrices (of the
    dtype of ``values``) as it takes; ``assert_fn`` of the output's dtype."""
    z, w = (
        pt.matrix(name, dtype=value.dtype)
        for name, value in zip("zw", values, strict=True)
    )
    n_inputs = make.__code__.co_argcount
    out = make(*(z, w)[:n_inputs])
    compare_onnx_and_py(
        [z, w][:n_inputs],
        [out],
        values[:n_inputs],
        assert_fn=assert_fn(out.type.dtype),
    )


def test_complex64_sums_accumulate_in_double_precision():
    z = pt.vector("z", dtype="complex64")
    value = (np.arange(10_000) * 1.1 + 1j).astype("complex64")
    compare_onnx_and_py([z], [pt.sum(z)], [value], assert_fn=close("complex64"))
    fn = pytensor.function([z], pt.sum(z), mode="ONNX")
    assert fn(value) == np.complex64(value.astype("complex128").sum())


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", ["abs", "angle", "exp", "log", "sqrt", "conj"])
def test_special_values_follow_numpy(name, dtype):
    z = pt.vector("z", dtype=dtype)
    compare_onnx_and_py(
        [z], [UNARY[name](z)], special_grid(dtype, 1), assert_fn=same_special(dtype)
    )


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_division_special_values_follow_numpy(dtype):
    # Smith's algorithm, as NumPy: no overflow of |w|**2 for parts of 1e300
    z, w = pt.vector("z", dtype=dtype), pt.vector("w", dtype=dtype)
    compare_onnx_and_py(
        [z, w], [z / w], special_grid(dtype, 2), assert_fn=same_special(dtype)
    )


def test_abs_of_huge_and_tiny_parts_does_not_overflow():
    z = pt.vector("z", dtype="complex128")
    value = np.array([3e307 + 4e307j, 3e-320 + 4e-320j, 1e308 + 1e308j, 1e-310j])
    _, [result] = compare_onnx_and_py([z], [pt.abs(z)], [value])
    np.testing.assert_allclose(result[:2], [5e307, 5e-320], rtol=1e-3)


def test_log_is_accurate_next_to_the_unit_circle():
    z = pt.vector("z", dtype="complex128")
    theta = np.array([0.1, 1.0, 2.0])
    value = (1 + 1e-12) * np.exp(1j * theta)
    compare_onnx_and_py([z], [pt.log(z)], [value], assert_fn=close("complex128"))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_inputs_outputs_and_scalars_cross_the_boundary(dtype):
    z = pt.matrix("z", dtype=dtype)
    s = pt.scalar("s", dtype=dtype)
    rng = np.random.default_rng(3)
    value = complex_values(rng, (4, 3), dtype).T  # not C-contiguous
    scalar = complex_values(rng, (), dtype)
    fn, [out, total] = compare_onnx_and_py(
        [z, s], [z * s, s + s], [value, scalar], assert_fn=close(dtype)
    )
    assert out.dtype == dtype and total.shape == ()
    [model_input, *_] = onnx_model_of(fn).graph.input
    assert [d.dim_value for d in model_input.type.tensor_type.shape.dim][-1] == 2


def test_shared_values_and_updates():
    w = pytensor.shared(np.array([1 + 2j, 3 - 1j]), name="w")
    z = pt.vector("z", dtype="complex128")
    fn = pytensor.function([z], z * w, updates={w: w * (1 + 1j)}, mode="ONNX")
    np.testing.assert_array_equal(fn(np.array([1j, 2.0])), [-2 + 1j, 6 - 2j])
    np.testing.assert_array_equal(w.get_value(), [-1 + 3j, 4 + 2j])
    np.testing.assert_array_equal(fn(np.array([1.0, 1.0])), [-1 + 3j, 4 + 2j])
    np.testing.assert_array_equal(w.get_value(), [-4 + 2j, 2 + 6j])


def test_export_holds_complex_values_as_real_pairs(tmp_path):
    z = pt.vector("z", dtype="complex128")
    w = pytensor.shared(np.array([1 + 2j, 3 - 1j]), name="w")
    fn = pytensor.function([z], [z / w, pt.abs(z)], mode="ONNX")
    path = tmp_path / "complex.onnx"
    export_onnx(fn, path, verify=True)
    session = ort.InferenceSession(path)
    [quotient, magnitude] = session.run(None, {"z": np.array([[0.0, 1.0], [2.0, 0]])})
    expected = np.array([1j, 2]) / w.get_value()
    np.testing.assert_allclose(quotient, np.stack([expected.real, expected.imag], -1))
    np.testing.assert_allclose(magnitude, [1.0, 2.0])


@pytest.mark.parametrize(
    "make, op_name",
    [
        (pt.sigmoid, "Sigmoid"),
        (lambda z: pt.arctan2(z, z), "Arctan2"),
        (lambda z: pt.unique(pt.outer(z, z), axis=0), "Unique"),
        (lambda z: pt.linalg.inv(pt.outer(z, z)), "MatrixInverse"),
    ],
    ids=["sigmoid", "arctan2", "unique_rows", "inv"],
)
def test_unsupported_ops_fail_at_compile_time(make, op_name):
    z = pt.vector("z", dtype="complex128")
    message = f"(?s){op_name}.*complex values are not supported"
    with pytest.raises(NotImplementedError, match=message):
        pytensor.function([z], make(z), mode="ONNX")


ORDER = {
    "lt": lambda z, w: z < w,
    "le": lambda z, w: z <= w,
    "gt": lambda z, w: z > w,
    "ge": lambda z, w: z >= w,
    "maximum": pt.maximum,
    "minimum": pt.minimum,
}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", ORDER)
def test_order_is_numpys_lexicographic_one_with_its_nan_rules(name, dtype):
    # every pair of numbers of parts 0, -0, +-inf, NaN, ...: maximum and
    # minimum return one operand exactly, signs of zeros included
    z, w = pt.vector("z", dtype=dtype), pt.vector("w", dtype=dtype)
    out = ORDER[name](z, w)
    assert_fn = same_special(dtype) if out.dtype == dtype else np.testing.assert_equal
    compare_onnx_and_py([z, w], [out], special_grid(dtype, 2), assert_fn=assert_fn)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("test", [pt.isnan, pt.isinf], ids=["isnan", "isinf"])
def test_nan_and_inf_tests_look_at_both_parts(test, dtype):
    z = pt.vector("z", dtype=dtype)
    compare_onnx_and_py(
        [z], [test(z)], special_grid(dtype, 1), assert_fn=np.testing.assert_equal
    )


CHOICES = {
    "switch": lambda c, z, w: pt.switch(c, z, w),
    "switch_real_branch": lambda c, z, w: pt.switch(c, pt.real(w), z),
    "switch_broadcast": lambda c, z, w: pt.switch(c[:, None], z[:, None], w[:5]),
    "second": lambda c, z, w: pt.second(pt.switch(c, z, w)[:, None], w[:3]),
    "second_of_complex": lambda c, z, w: (
        pt.second(z[:, None], pt.imag(w[:3])) + c[:, None]
    ),
    "fill_constant": lambda c, z, w: pt.fill(pt.switch(c, z, w), np.complex64(1 - 0j)),
}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", CHOICES)
def test_choices_of_complex_values_keep_both_parts(name, dtype):
    condition = pt.vector("c", dtype="bool")
    z, w = pt.vector("z", dtype=dtype), pt.vector("w", dtype=dtype)
    [values] = special_grid(dtype, 1)
    rng = np.random.default_rng(5)
    inputs = [rng.random(values.size) < 0.5, values, rng.permutation(values)]
    out = CHOICES[name](condition, z, w)
    # as for real values, a -0.0 part chosen where the condition holds may
    # come out +0.0 (onnxruntime's Where): `close` does not see zero signs
    compare_onnx_and_py([condition, z, w], [out], inputs, assert_fn=close(out.dtype))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_alloc_empty(dtype):
    # Scan's output buffers; kept here without rewrites
    n = pt.lscalar("n")
    fn = pytensor.function([n], pt.empty((n, 3), dtype=dtype), mode=no_rewrites)
    result = fn(2)
    assert result.dtype == dtype and result.shape == (2, 3)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_eye_and_repeat(dtype):
    n, repeats = pt.iscalar("n"), pt.lvector("repeats")
    z = pt.vector("z", dtype=dtype)
    value = complex_values(np.random.default_rng(7), 3, dtype)
    outputs = [pt.eye(n, n + 1, k=-1, dtype=dtype), pt.repeat(z, repeats)]
    compare_onnx_and_py(
        [n, repeats, z],
        outputs,
        [3, np.array([2, 0, 1]), value],
        assert_fn=close(dtype),
    )


INTEGER_VALUES = {
    "inc_subtensor": lambda z, k: pt.inc_subtensor(z[0, 0], k[0, 0]),
    "set_subtensor": lambda z, k: pt.set_subtensor(z[1], k[0]),
    "advanced_inc": lambda z, k: pt.inc_subtensor(z[[0, 1], [2, 2]], k[0, :2]),
    "advanced_inc1": lambda z, k: pt.inc_subtensor(z[[2, 0]], k[:2]),
    "join": lambda z, k: pt.concatenate([z, k], axis=1),
    "stack": lambda z, k: pt.stack([z[0, 0], k[1, 1]]),
    "alloc": lambda z, k: pt.alloc(k[0, 0], 2, 3) * z[:2],
    "dot": lambda z, k: pt.dot(k, z),
    "dot_right": lambda z, k: pt.dot(z, k),
    "switch": lambda z, k: pt.switch(k > 1, k, z),
    "switch_on_integers": lambda z, k: pt.switch(k, z, 2 * z),
}


@pytest.mark.parametrize("name", INTEGER_VALUES)
def test_integer_values_have_zero_imaginary_parts(name):
    # integers that are values (not indices, lengths or conditions) mixed
    # with complex ones
    z, k = pt.matrix("z", dtype="complex128"), pt.lmatrix("k")
    value = complex_values(np.random.default_rng(9), (3, 3), "complex128")
    integers = np.array([[2, -1, 0], [1, 3, 2], [0, 0, 5]])
    out = INTEGER_VALUES[name](z, k)
    compare_onnx_and_py([z, k], [out], [value, integers], assert_fn=close(out.dtype))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_fill_diagonal_and_nonzero(dtype):
    z, offset = pt.matrix("z", dtype=dtype), pt.lscalar("offset")
    value = complex_values(np.random.default_rng(11), (3, 4), dtype)
    value[0, 1], value[2, 2] = 0, complex(0.0, -0.0)
    value[1, 0] = 1j
    outputs = [
        pt.fill_diagonal(z, np.array(2 - 1j, dtype)),
        pt.fill_diagonal_offset(z, np.array(1j, dtype), offset),
        *pt.nonzero(z),
        pt.flatnonzero(z),
    ]
    compare_onnx_and_py([z, offset], outputs, [value, -1], assert_fn=close(dtype))


# Transcendental functions: complex128 agrees with NumPy to 1e-13, complex64
# to 1e-5, away from the cancellation regions of NumPy's formulas
TRANSCENDENTAL = {
    name: getattr(pt, name)
    for name in (
        *("sin", "cos", "tan", "sinh", "cosh", "tanh"),
        *("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"),
        *("log1p", "log2", "log10", "exp2", "expm1"),
    )
}
TRANSCENDENTAL_RTOL = {"complex128": 1e-13, "complex64": 1e-5}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", TRANSCENDENTAL)
def test_transcendental(name, dtype):
    z = pt.matrix("z", dtype=dtype)
    rng = np.random.default_rng(5)
    scale = np.exp(rng.uniform(-6.0, 2.0, size=(2, 8, 16)))
    value = (
        scale[0] * rng.normal(size=(8, 16)) + 1j * scale[1] * rng.normal(size=(8, 16))
    ).astype(dtype)
    # NumPy's log(1 + z) cancels next to z = 0: errors of its last bits there
    atol = 2.0 * np.finfo(value.real.dtype).eps if name == "log1p" else 0.0
    compare_onnx_and_py(
        [z], [TRANSCENDENTAL[name](z)], [value], assert_fn=relatively_close(dtype, atol)
    )


def transcendental_special_grid(dtype, *non_finite):
    """Every complex number of special parts, finite ones and ``non_finite``
    (the huge one is 1e38 in complex64); not within 1e-300 of the unit circle,
    where the branch points of arctan and arctanh are."""
    huge = 1e300 if dtype == "complex128" else 1e38
    parts = [0.0, -0.0, 1.0, -2.5, huge, -1e-310, 0.75, *non_finite]
    numbers = [complex(a, b) for a, b in itertools.product(parts, repeat=2)]
    numbers = np.array(numbers, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return numbers[~(abs(abs(numbers) - 1.0) <= 1e-300)]


HYPERBOLIC_AND_TRIGONOMETRIC = ("sin", "cos", "tan", "sinh", "cosh", "tanh")
INVERSE = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
# The non-finite parts in the grid, the functions whose C99 special values
# are matched only where the formulas give them, and how they differ
SPECIAL_GRIDS = {
    "finite": ((), (), ""),
    "infinite": (
        (np.inf, -np.inf),
        HYPERBOLIC_AND_TRIGONOMETRIC,
        "for an infinite part, often NaN where C99 has an infinity or a signed "
        "zero (see docs/usage.rst)",
    ),
    "nan": (
        (np.inf, np.nan),
        HYPERBOLIC_AND_TRIGONOMETRIC + INVERSE,
        "for a NaN part, often NaN in both parts where C99 keeps one (see "
        "docs/usage.rst)",
    ),
}


def special_grid_cases():
    for grid, (non_finite, differing, reason) in SPECIAL_GRIDS.items():
        for name in TRANSCENDENTAL:
            marks = pytest.mark.xfail(strict=True, reason=reason)
            yield pytest.param(
                name,
                non_finite,
                marks=marks if name in differing else (),
                id=f"{name}-{grid}",
            )


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name, non_finite", special_grid_cases())
def test_transcendental_special_values_follow_numpy(name, non_finite, dtype):
    # the branch cuts and signs of zero of NumPy, and no overflow of
    # intermediate squares for huge parts
    z = pt.vector("z", dtype=dtype)
    value = transcendental_special_grid(dtype, *non_finite)
    compare_onnx_and_py(
        [z], [TRANSCENDENTAL[name](z)], [value], assert_fn=same_special(dtype)
    )


@pytest.mark.xfail(
    strict=True,
    reason="within 1e-154 of the branch points +-1, (1 - |re|)**2 + im**2 "
    "underflows: an infinite real part where NumPy's is finite",
)
def test_arctanh_next_to_its_branch_points():
    z = pt.vector("z", dtype="complex128")
    compare_onnx_and_py(
        [z],
        [pt.arctanh(z)],
        [np.array([1 - 1e-310j])],
        assert_fn=same_special("complex128"),
    )


POWERS = {
    "complex_complex": lambda z, w: z**w,
    "complex_real": lambda z, w: z ** pt.real(w),
    "real_complex": lambda z, w: pt.real(z) ** w,
    "complex_square": lambda z: z ** pt.constant(2.0),
    "complex_half": lambda z: z**0.5,
}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("name", POWERS)
def test_power(name, dtype):
    rng = np.random.default_rng(6)
    values = [complex_values(rng, (3, 4), dtype), complex_values(rng, (3, 4), dtype)]
    compare_on_matrices(POWERS[name], values, relatively_close)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_power_of_and_to_zero(dtype):
    # NumPy: z ** 0 = 1, and 0 ** w = 0 if Re w > 0, else NaN
    z, w = pt.vector("z", dtype=dtype), pt.vector("w", dtype=dtype)
    numbers = [0j, complex(0.0, -0.0), 1.5 - 2j, 2j, -1.0 + 0j, 0.5 + 0j]
    pairs = [(a, b) for a, b in itertools.product(numbers, repeat=2) if a * b == 0]
    values = [np.array(c, dtype=dtype) for c in zip(*pairs, strict=True)]
    compare_onnx_and_py([z, w], [z**w], values, assert_fn=same_special(dtype))


@pytest.mark.xfail(
    strict=True,
    reason="z ** n is exp(n log z): for integer n where NumPy multiplies, "
    "|z| ** n overflows in both parts beyond 1e308 (NumPy keeps one finite)",
)
def test_integer_powers_of_huge_numbers():
    z, w = pt.vector("z", dtype="complex128"), pt.vector("w", dtype="complex128")
    values = [np.array([1 + 1e300j]), np.array([2 + 0j])]
    compare_onnx_and_py([z, w], [z**w], values, assert_fn=same_special("complex128"))


def relatively_close(dtype, atol=0.0):
    """Complex values within `TRANSCENDENTAL_RTOL` of the magnitude of NumPy's
    (plus ``atol``)."""
    rtol = TRANSCENDENTAL_RTOL[np.dtype(dtype).name]

    def assert_close(onnx_value, py_value):
        assert onnx_value.dtype == py_value.dtype
        error = abs(onnx_value - py_value)
        assert (error <= rtol * abs(py_value) + atol).all(), error.max()

    return assert_close


@pytest.mark.parametrize("exponent", [3, 5, -3, 7])
def test_constant_integer_powers_are_nested_products(exponent):
    # PyTensor rewrites them into Composite graphs of sqr and mul, as NumPy
    # multiplies: exact where the products are
    z = pt.vector("z", dtype="complex128")
    value = np.array([1 + 1j, 2 - 1j, -0.5 + 3j, 1e30 + 1e-30j])
    fn, _ = compare_onnx_and_py(
        [z], [z**exponent], [value], assert_fn=close("complex128")
    )
    np.testing.assert_array_equal(fn(value[:2])[0], value[:2] ** exponent)


def test_composite_keeps_its_real_nodes_real():
    # sqrt of a negative real is NaN, not an imaginary number
    x, y = ps.float64("x"), ps.float64("y")
    z = ps.complex128("z")
    composite = ps.Composite([x, y, z], [z * ps.sqrt(-x) + y, ps.abs(z) + x])
    xs, ys = pt.vector("xs"), pt.vector("ys")
    zs = pt.vector("zs", dtype="complex128")
    outs = Elemwise(composite)(xs, ys, zs)
    values = [
        np.array([-4.0, 0.5, 0.0]),
        np.array([1.0, 2.0, -0.0]),
        np.array([1j, 2, -1]),
    ]
    compare_onnx_and_py(
        [xs, ys, zs], outs, values, assert_fn=same_special("complex128")
    )


def test_complex64_is_accurate_next_to_the_poles_of_tan():
    # computed in float64 parts: float32 range reductions lose the zeros of cos
    z = pt.vector("z", dtype="complex64")
    value = np.array(
        [32.985863 + 0.005985281j, 0.001666575 + 92.60091j], dtype="complex64"
    )
    fn = pytensor.function([z], [pt.tan(z), pt.tanh(1j * z)], mode="ONNX")
    exact = np.tan(value.astype("complex128"))
    for result in (fn(value)[0], -1j * fn(value)[1]):
        np.testing.assert_allclose(result, exact, rtol=2e-7)


def scalar_ops_with_complex_overloads():
    return sorted(
        {
            cls
            for slot, cls, _ in onnx_funcify.entries()
            if slot == "complex" and issubclass(cls, ps.ScalarOp)
        },
        key=lambda cls: cls.__name__,
    )


def scalar_op_instance(cls):
    if cls is ps.Cast:
        return ps.convert_to_complex64
    return next(op for op in vars(scalar_basic).values() if type(op) is cls)


def test_every_scalar_op_with_a_complex_overload_converts():
    # the supported-Ops page lists these as converting (through the registry)
    scalar_ops = scalar_ops_with_complex_overloads()
    assert {
        ps.Real,
        ps.Imag,
        ps.Conj,
        ps.Angle,
        ps.Complex,
        ps.ComplexFromPolar,
    } <= set(scalar_ops)
    z, w = (pt.vector(name, dtype="complex128") for name in "zw")
    x, y = (pt.vector(name, dtype="float64") for name in "xy")
    outputs = []
    for cls in scalar_ops:
        op = scalar_op_instance(cls)
        operands = (x, y) if cls in (ps.Complex, ps.ComplexFromPolar) else (z, w)
        outputs.append(Elemwise(op)(*operands[: op.nin if op.nin > 0 else 2]))
    rng = np.random.default_rng(0)
    values = [
        *(complex_values(rng, (4,), "complex128") for _ in range(2)),
        *rng.uniform(0.1, 2.0, (2, 4)),
    ]
    compare_onnx_and_py(
        [z, w, x, y],
        outputs,
        values,
        assert_fn=close("complex64"),
        onnx_mode=no_rewrites,
    )
