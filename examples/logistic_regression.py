"""Train a logistic regression under ``mode="ONNX"`` and export the predictor.

The training step (gradient and SGD updates of the shared weights) runs in
onnxruntime; the trained predictor is then exported to a standalone ``.onnx``
file and reloaded with a plain ``onnxruntime.InferenceSession``.

Run with ``bash scripts/run_example.sh`` (which sets up a virtualenv) or
``python examples/logistic_regression.py [model.onnx]`` in an environment
where pytensor-onnx is installed.
"""

import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx import export_onnx


OUTPUT = Path(__file__).parent / "output" / "logistic_regression.onnx"


def make_data(n_samples=400, seed=0):
    """Two Gaussian blobs with a little overlap."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n_samples)
    centers = np.array([[-1.0, -1.0], [1.5, 1.0]])
    features = centers[labels] + rng.normal(scale=0.8, size=(n_samples, 2))
    return features, labels.astype("float64")


def main(output=OUTPUT):
    features, labels = make_data()

    x = pt.matrix("x")
    y = pt.vector("y")
    w = pytensor.shared(np.zeros(2), name="w")
    b = pytensor.shared(0.0, name="b")

    probability = pt.sigmoid(x @ w + b)
    probability.name = "probability"
    loss = pt.mean(-y * pt.log(probability) - (1 - y) * pt.log(1 - probability))
    grad_w, grad_b = pytensor.grad(loss, [w, b])

    learning_rate = 0.5
    train = pytensor.function(
        [x, y],
        loss,
        updates=[(w, w - learning_rate * grad_w), (b, b - learning_rate * grad_b)],
        mode="ONNX",
    )
    predict = pytensor.function([x], probability, mode="ONNX")

    for epoch in range(1, 101):
        current_loss = train(features, labels)
        if epoch % 25 == 0:
            print(f"epoch {epoch:3d}  loss {current_loss:.4f}")
    print(f"trained: w = {w.get_value().round(3)}, b = {b.get_value():.3f}")

    export_onnx(predict, output)
    print(f"exported the predictor to {output}")
    session = ort.InferenceSession(output, providers=["CPUExecutionProvider"])
    [exported_probability] = session.run(None, {"x": features})

    probability_value = predict(features)
    np.testing.assert_allclose(exported_probability, probability_value)
    accuracy = np.mean((probability_value > 0.5) == labels)
    exported_accuracy = np.mean((exported_probability > 0.5) == labels)
    print(f'accuracy under mode="ONNX":      {accuracy:.1%}')
    print(f"accuracy of the exported model: {exported_accuracy:.1%}")
    assert accuracy == exported_accuracy


if __name__ == "__main__":
    main(*map(Path, sys.argv[1:]))
