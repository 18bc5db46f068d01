"""Whole models compiled with ``mode="ONNX"`` against PyTensor's default mode."""

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.raise_op import Assert

import pytensor
from tests.link.onnx.utils import assert_same_values


def compare_with_default_mode(inputs, outputs, values, rtol=1e-10, atol=0.0):
    onnx_fn = pytensor.function(inputs, outputs, mode="ONNX")
    default_fn = pytensor.function(inputs, outputs)
    for onnx_value, default_value in zip(
        onnx_fn(*values), default_fn(*values), strict=True
    ):
        assert_same_values(onnx_value, default_value, rtol=rtol, atol=atol)
    return onnx_fn


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mlp_forward_and_gradient(dtype):
    rng = np.random.default_rng(0)
    sizes = [(8, 16), (16, 16), (16, 3)]
    weights = [(rng.normal(size=s) / np.sqrt(s[0])).astype(dtype) for s in sizes]
    biases = [rng.normal(size=s[1]).astype(dtype) for s in sizes]
    x = pt.matrix("x", dtype=dtype)
    labels = pt.vector("labels", dtype="int64")
    params = [pt.matrix(f"w{i}", dtype=dtype) for i in range(3)] + [
        pt.vector(f"b{i}", dtype=dtype) for i in range(3)
    ]
    hidden = x
    for i in range(3):
        hidden = pt.dot(hidden, params[i]) + params[3 + i]
        if i < 2:
            hidden = pt.tanh(hidden)
    probabilities = pt.special.softmax(hidden, axis=-1)
    one_hot = pt.eq(labels[:, None], pt.arange(3)[None, :])
    loss = -pt.mean(pt.sum(one_hot * pt.log(probabilities), axis=-1))
    grads = pytensor.grad(loss, params)
    values = [
        rng.normal(size=(5, 8)).astype(dtype),
        rng.integers(0, 3, size=5),
        *weights,
        *biases,
    ]
    # float32 sums accumulate in a different order than the default mode's
    tolerance = {"rtol": 1e-10} if dtype == "float64" else {"rtol": 1e-4, "atol": 1e-6}
    compare_with_default_mode(
        [x, labels, *params], [probabilities, loss, *grads], values, **tolerance
    )


def test_logistic_regression_nll_and_gradient():
    rng = np.random.default_rng(1)
    X = pt.matrix("X")
    y = pt.vector("y")
    w = pt.vector("w")
    b = pt.scalar("b")
    logits = X @ w + b
    nll = -pt.sum(
        y * pt.log(pt.sigmoid(logits)) + (1 - y) * pt.log1p(-pt.sigmoid(logits))
    )
    grads = pytensor.grad(nll, [w, b])
    values = [
        rng.normal(size=(200, 10)),
        (rng.random(200) > 0.5).astype("float64"),
        rng.normal(size=10),
        np.asarray(0.3),
    ]
    compare_with_default_mode([X, y, w, b], [nll, *grads], values)


def test_normal_log_density_with_positivity_assert():
    data = pt.vector("data")
    mu = pt.scalar("mu")
    log_sigma = pt.scalar("log_sigma")
    sigma = pt.exp(log_sigma)
    checked_sigma = Assert("sigma > 0")(sigma, pt.gt(sigma, 0))
    logp = pt.sum(
        -0.5 * ((data - mu) / checked_sigma) ** 2
        - pt.log(checked_sigma)
        - 0.5 * np.log(2 * np.pi)
    )
    grads = pytensor.grad(logp, [mu, log_sigma])
    values = [
        np.random.default_rng(2).normal(1.0, 2.0, size=1000),
        np.asarray(0.5),
        np.asarray(0.7),
    ]
    compare_with_default_mode([data, mu, log_sigma], [logp, *grads], values)


def test_normal_log_density_assert_fails_like_default_mode():
    x = pt.vector("x")
    sigma = pt.scalar("sigma")
    checked = Assert("sigma must be positive")(sigma, pt.gt(sigma, 0))
    logp = pt.sum(-0.5 * (x / checked) ** 2 - pt.log(checked))
    for mode in ("ONNX", None):
        fn = pytensor.function([x, sigma], logp, mode=mode)
        with pytest.raises(AssertionError, match="sigma must be positive"):
            fn(np.ones(3), -1.0)


def test_sgd_training_loop_with_updates():
    rng = np.random.default_rng(3)
    X_data = rng.normal(size=(256, 4))
    true_w = np.array([1.0, -2.0, 0.5, 3.0])
    y_data = X_data @ true_w
    w = pytensor.shared(np.zeros(4), name="w")
    X = pt.matrix("X")
    y = pt.vector("y")
    loss = pt.mean((X @ w - y) ** 2)
    train = pytensor.function(
        [X, y], loss, updates={w: w - 0.1 * pytensor.grad(loss, w)}, mode="ONNX"
    )
    losses = [train(X_data, y_data) for _ in range(200)]
    assert losses[-1] < 1e-8 < losses[0]
    np.testing.assert_allclose(w.get_value(), true_w, rtol=1e-5)
