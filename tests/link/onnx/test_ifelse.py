import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.ifelse import ifelse
from pytensor.raise_op import Assert

import pytensor
from tests.link.onnx.utils import compare_onnx_and_py, no_rewrites, onnx_mode


MODES = [
    pytest.param(onnx_mode, id="default_rewrites"),
    pytest.param(no_rewrites, id="no_rewrites"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("taken", [True, False])
@pytest.mark.parametrize(
    "dtype",
    [
        "float64",
        "float32",
        "int64",
        "int8",
        "uint16",
        "bool",
        "complex128",
        "complex64",
    ],
)
def test_both_branches(dtype, taken, mode):
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    out = ifelse(c, pt.maximum(x, y), pt.minimum(x, y))
    compare_onnx_and_py(
        [c, x, y],
        [out],
        [
            np.array(taken),
            np.array([1, 0, 3 - 2j if "complex" in dtype else 3], dtype=dtype),
            np.array([0, 1j if "complex" in dtype else 1, 1], dtype=dtype),
        ],
        onnx_mode=mode,
    )


@pytest.mark.parametrize(
    "dtype, value",
    [
        ("int8", 0),
        ("int8", -3),
        ("int64", 2),
        ("uint8", 0),
        ("float64", 0.0),
        ("float64", -0.0),
        ("float64", 0.5),
        ("float64", np.nan),
        ("float32", np.inf),
    ],
)
def test_any_nonzero_condition_takes_the_then_branch(dtype, value):
    c = pt.scalar("c", dtype=dtype)
    x = pt.vector("x")
    compare_onnx_and_py(
        [c, x], [ifelse(c, x + 1, x - 1)], [np.array(value, dtype=dtype), np.ones(2)]
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("taken", [True, False])
def test_several_outputs_of_different_shapes(taken, mode):
    # Each branch returns values of its own shapes (and a 0-d value)
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x")
    m = pt.matrix("m")
    then_values = [x[:2], m.T, x.sum(), (x > 1).astype("int32")]
    else_values = [x * 2, m[:1], m.sum(), pt.zeros(5, dtype="int32")]
    compare_onnx_and_py(
        [c, x, m],
        ifelse(c, then_values, else_values),
        [np.array(taken), np.arange(4.0), np.arange(6.0).reshape(2, 3)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
def test_only_the_taken_branch_is_computed(mode):
    # The else branch multiplies matrices of incompatible shapes: computing
    # it would fail. (PyTensor's default C backend fails here.)
    c = pt.scalar("c", dtype="bool")
    m = pt.matrix("m")
    v = pt.vector("v")
    fn = pytensor.function([c, m, v], ifelse(c, v.sum(), pt.dot(m, v).sum()), mode=mode)
    assert fn(True, np.ones((2, 3)), np.arange(4.0)) == 6.0
    # the taken branch fails, with NumPy's error, as in PyTensor
    with pytest.raises(ValueError, match="not aligned"):
        fn(False, np.ones((2, 3)), np.arange(4.0))


def checked_branches():
    """``ifelse(c, specify_shape(x, 3) * 2, y)``, and ``assert_op`` on the else side."""
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x")
    y = pt.vector("y")
    checked_y = Assert("y is positive")(y, pt.all(y > 0))
    out = ifelse(c, pt.specify_shape(x, (3,)) * 2.0, checked_y + 1.0)
    return [c, x, y], out


@pytest.mark.parametrize("mode", MODES)
def test_checks_of_a_branch_not_taken_do_not_fire(mode):
    inputs, out = checked_branches()
    fn = pytensor.function(inputs, out, mode=mode)
    wrong_x, negative_y = np.ones(5), -np.ones(5)
    np.testing.assert_array_equal(fn(False, wrong_x, np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(fn(True, np.ones(3), negative_y), [2.0] * 3)
    with pytest.raises(AssertionError, match=r"SpecifyShape|shape"):
        fn(True, wrong_x, np.ones(2))
    with pytest.raises(AssertionError, match="y is positive"):
        fn(False, np.ones(3), negative_y)


def test_checks_of_nested_branches_fire_only_where_both_are_taken():
    c1 = pt.scalar("c1", dtype="bool")
    c2 = pt.scalar("c2", dtype="bool")
    x = pt.vector("x")
    out = ifelse(c1, ifelse(c2, pt.specify_shape(x, (2,)).sum(), x.max()), x.min())
    fn = pytensor.function([c1, c2, x], out, mode="ONNX")
    x_value = np.arange(4.0)
    assert fn(True, False, x_value) == 3.0
    assert fn(False, True, x_value) == 0.0
    with pytest.raises(AssertionError):
        fn(True, True, x_value)


def test_a_check_the_rest_of_the_graph_needs_fires_whatever_the_branch():
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x")
    checked = pt.specify_shape(x, (3,))
    fn = pytensor.function([c, x], [ifelse(c, checked, x), checked.sum()], mode="ONNX")
    with pytest.raises(AssertionError):
        fn(False, np.ones(2))


def test_nested_branches_are_lazy():
    c1 = pt.scalar("c1", dtype="bool")
    c2 = pt.scalar("c2", dtype="bool")
    m = pt.matrix("m")
    v = pt.vector("v")
    fails = pt.dot(m, v).sum()
    out = ifelse(c1, ifelse(c2, fails, v.max()), v.min())
    fn = pytensor.function([c1, c2, m, v], out, mode="ONNX")
    assert fn(True, False, np.ones((2, 3)), np.arange(4.0)) == 3.0
    assert fn(False, True, np.ones((2, 3)), np.arange(4.0)) == 0.0


@pytest.mark.xfail(
    strict=True,
    reason="a value that branches of two different IfElse use is computed "
    "before both: nodes are moved into one branch, never duplicated",
)
def test_a_value_of_two_ifelse_is_lazy():
    c = pt.scalar("c", dtype="bool")
    m = pt.matrix("m")
    v = pt.vector("v")
    fails = pt.dot(m, v).sum()
    out = ifelse(c, fails, v.sum()) + ifelse(pt.all(v > 0), fails, v.max())
    fn = pytensor.function([c, m, v], out, mode="ONNX")
    assert fn(False, np.ones((2, 3)), np.arange(4.0)) == 9.0


@pytest.mark.parametrize("taken", [True, False])
def test_values_shared_with_the_rest_of_the_graph(taken):
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x")
    y = pt.exp(x)
    only_then = pt.log1p(y)
    compare_onnx_and_py(
        [c, x],
        [*ifelse(c, [y + only_then, only_then], [y * 2, y]), y.sum()],
        [np.array(taken), np.linspace(-1, 1, 3)],
    )


@pytest.mark.parametrize("taken", [True, False])
def test_scan_inside_a_branch(taken):
    c = pt.scalar("c", dtype="bool")
    s = pt.vector("s")
    totals = pytensor.scan(
        lambda s_t, total: total * 0.5 + s_t,
        sequences=[s],
        outputs_info=[pt.constant(0.0, dtype="float64")],
        return_updates=False,
    )
    compare_onnx_and_py(
        [c, s], [ifelse(c, totals, s)], [np.array(taken), np.arange(5.0)]
    )


@pytest.mark.parametrize("taken", [True, False])
def test_gradient_through_ifelse(taken):
    c = pt.scalar("c", dtype="bool")
    x = pt.vector("x")
    w = pt.scalar("w")
    cost = ifelse(c, (pt.sin(x) * w).sum(), (x**2).sum() * w)
    compare_onnx_and_py(
        [c, x, w],
        pytensor.grad(cost, [x, w]),
        [np.array(taken), np.linspace(0, 1, 4), np.float64(1.5)],
    )
