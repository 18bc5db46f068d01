import numpy as np
import pytest

from pytensor.link.onnx.value import (
    arange,
    branch,
    concat,
    maximum,
    minimum,
    polevl,
    where,
)
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64"])
def test_python_numbers_take_the_dtype_of_the_value(dtype):
    x = np.array([1, 2, 3], dtype=dtype)
    result = evaluate_numerics(lambda x: (x * 2 + 1) - x, x)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, x + 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_booleans_keep_the_dtype_of_the_values_compared(dtype):
    x = np.array([-1.5, 0.0, 2.0], dtype=dtype)

    def sign(x):
        negative = x < 0
        assert negative.dtype == "bool"
        return where(negative, -1.0, where(x.eq(0), 0.0, 1.0))

    result = evaluate_numerics(sign, x)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.sign(x))


def test_where_takes_numbers_in_the_dtype_of_the_other_branch():
    x = np.array([1, -2, 3], dtype="int32")
    result = evaluate_numerics(lambda x: where(x > 0, x, 0), x)
    assert result.dtype == "int32"
    np.testing.assert_array_equal(result, [1, 0, 3])


def test_shapes_and_lengths_are_int64_with_int64_numbers():
    x = np.zeros((2, 5))
    result = evaluate_numerics(lambda x: arange(x.dim(1) - 1), x, output_ndim=1)
    np.testing.assert_array_equal(result, [0, 1, 2, 3])


def test_logic_and_reductions_of_booleans():
    x = np.array([[1.0, -1.0], [2.0, 3.0]])

    def logic(x):
        positive = x > 0
        negated = ~positive | (positive ^ positive)
        return negated.cast("int64"), positive.any_along([1]).cast("int64")

    def totals(x):
        positive = x > 0
        return positive.any().cast("int64"), positive.all().cast("int64")

    negated, rows = evaluate_numerics(logic, x)
    np.testing.assert_array_equal(negated, x <= 0)
    np.testing.assert_array_equal(rows, [[1], [1]])
    assert evaluate_numerics(totals, x, output_ndim=0) == [1, 0]


def test_indexing_shaping_and_combining():
    x = np.arange(12.0).reshape(3, 4)

    def combine(x):
        return (
            x.take([2, 0], axis=0),
            x.slice(1, 3, axis=1),
            x.sum([1]),
            x.max([0]),
            x.transpose([1, 0]),
            concat([x, x.full_like(7.0)], axis=0),
            maximum(x, 5.0) - minimum(x, 5.0),
            x.unsqueeze([0]).squeeze([0]).reshape(x.shape()),
        )

    results = evaluate_numerics(combine, x)
    expected = [
        x[[2, 0]],
        x[:, 1:3],
        x.sum(1, keepdims=True),
        x.max(0, keepdims=True),
        x.T,
        np.concatenate([x, np.full_like(x, 7.0)]),
        np.abs(x - 5.0),
        x,
    ]
    for result, value in zip(results, expected, strict=True):
        np.testing.assert_array_equal(result, value)


def test_polevl_evaluates_by_horner_with_cephes_leading_one():
    x = np.array([0.5, 2.0, -3.0])
    np.testing.assert_allclose(
        evaluate_numerics(lambda x: polevl(x, [2.0, -1.0, 3.0]), x),
        2 * x**2 - x + 3,
    )
    np.testing.assert_allclose(
        evaluate_numerics(lambda x: polevl(x, [1.0, 4.0]), x), x + 4
    )


def test_a_value_reads_into_a_subgraph_by_name():
    x = np.array([1.0, 2.0])

    def through_identity_branch(x):
        branch = x.builder.subgraph("branch")
        inner = x.into(branch)
        assert (inner.name, inner.dtype, inner.builder) == (x.name, x.dtype, branch)
        return x

    np.testing.assert_array_equal(evaluate_numerics(through_identity_branch, x), x)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64"])
def test_maximum_and_minimum_are_exact_beyond_32_bits(dtype):
    # onnxruntime's int64 Max and Min compare the low halves as signed
    big = [2**31 - 1, 2**31, -(2**31) - 1, 2**62 + 1, -(2**62), 5]
    other = [2**31, 2**31 - 1, -(2**31), 2**62, -(2**62) - 3, -5]
    if dtype == "int32":
        big, other = [2**31 - 1, -(2**31), 7], [-(2**31), 2**31 - 1, -7]
    a, b = np.array(big, dtype), np.array(other, dtype)
    results = evaluate_numerics(lambda a, b: (maximum(a, b), minimum(a, b)), a, b)
    np.testing.assert_array_equal(results[0], np.maximum(a, b))
    np.testing.assert_array_equal(results[1], np.minimum(a, b))


def test_static_scalars_fold_without_nodes():
    from pytensor.link.onnx.value import (
        equal,
        logical_and,
        logical_not,
        logical_or,
        product,
        strides,
    )

    assert product(3, 4) == 12 and equal(2, 2) is True
    assert logical_not(True) is False and logical_and(True, False) is False
    assert logical_or(False, True) is True
    assert (minimum(3, 5), maximum(3, 5)) == (3, 5)
    assert where(False, 1, 2) == 2
    assert strides([5, 4, 3]) == [12, 3, 1]


def test_scalars_mix_static_and_symbolic_values():
    from pytensor.link.onnx.value import length, logical_and, product, strides

    x = np.zeros((2, 3, 4))

    def shape_arithmetic(x):
        dims = [length(x, 0), 3, length(x, 2)]
        assert logical_and(True, dims[0] > 1) is not True
        assert product(dims[2], 1) is dims[2]
        return x.indices([*strides(dims), product(dims[0], dims[1])]).cast("float64")

    result = evaluate_numerics(shape_arithmetic, x, output_ndim=1)
    np.testing.assert_array_equal(result, [12, 4, 1, 6])


def failing(x):
    """A value of one element that fails to compute: reshaped to two."""
    return x.reshape(x.indices([2])).sum([0], keepdims=False)


def test_branch_runs_only_the_branch_taken():
    def doubled_if_positive(x):
        return branch(x > 0.0, x * 2.0, failing(x))

    def minus_one_if_positive(x):
        return branch(x > 0.0, -1.0, failing(x))

    assert evaluate_numerics(doubled_if_positive, np.float64(2.0)) == 4.0
    assert evaluate_numerics(minus_one_if_positive, np.float64(2.0)) == -1.0
    with pytest.raises(Exception, match="Reshape"):
        evaluate_numerics(doubled_if_positive, np.float64(-2.0))
    with pytest.raises(Exception, match="Reshape"):
        evaluate_numerics(
            lambda x: where(x > 0.0, x * 2.0, failing(x)), np.float64(2.0)
        )
