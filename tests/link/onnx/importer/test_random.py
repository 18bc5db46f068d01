"""Random ops and training-mode Dropout: distributions, shapes, dtypes, and
fresh draws at every call."""

import numpy as np
import pytest
from onnx import TensorProto, helper
from scipy import stats

import pytensor
from pytensor.link.onnx import import_onnx
from tests.link.onnx.utils import FAST_MODE, make_model


def compiled(model):
    imported = import_onnx(model)
    return pytensor.function(
        imported.inputs, imported.outputs, mode=FAST_MODE, updates=imported.updates
    )


@pytest.mark.parametrize(
    ("op_type", "attributes", "cdf"),
    [
        ("RandomUniform", {"low": -1.0, "high": 3.0}, stats.uniform(-1, 4).cdf),
        ("RandomNormal", {"mean": 2.0, "scale": 0.5}, stats.norm(2, 0.5).cdf),
    ],
)
def test_random_draws_follow_the_distribution_and_change_at_each_call(
    op_type, attributes, cdf
):
    node = helper.make_node(
        op_type, [], ["y"], shape=[500, 2], dtype=TensorProto.DOUBLE, **attributes
    )
    f = compiled(make_model([node], [], [("y", TensorProto.DOUBLE, [500, 2])]))
    first, second = f()[0], f()[0]
    assert first.shape == (500, 2) and first.dtype == np.float64
    assert not np.array_equal(first, second)
    assert stats.kstest(first.ravel(), cdf).pvalue > 1e-3


def test_a_seed_fixes_the_first_draw():
    node = helper.make_node("RandomUniformLike", ["x"], ["y"], seed=3.0)
    model = make_model(
        [node], [("x", TensorProto.FLOAT, [4])], [("y", TensorProto.FLOAT, [4])]
    )
    x = np.zeros(4, dtype="float32")
    [a], [b] = compiled(model)(x), compiled(model)(x)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, b)


def dropout_model():
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"])
    return make_model(
        [node],
        [
            ("x", TensorProto.DOUBLE, [4000]),
            ("r", TensorProto.DOUBLE, []),
            ("t", TensorProto.BOOL, []),
        ],
        [("y", TensorProto.DOUBLE, [4000]), ("mask", TensorProto.BOOL, [4000])],
    )


def test_training_dropout_drops_the_ratio_and_scales_the_rest():
    f = compiled(dropout_model())
    x = np.full(4000, 2.0)
    y, mask = f(x, 0.25, True)
    np.testing.assert_array_equal(y[mask], 2.0 / 0.75)
    np.testing.assert_array_equal(y[~mask], 0.0)
    assert stats.binomtest(int((~mask).sum()), 4000, 0.25).pvalue > 1e-3


@pytest.mark.parametrize(("ratio", "training"), [(0.5, False), (0.0, True)])
def test_dropout_that_keeps_everything_is_the_identity(ratio, training):
    x = np.linspace(-1, 1, 4000)
    y, mask = compiled(dropout_model())(x, ratio, training)
    np.testing.assert_array_equal(y, x)
    assert mask.all()
