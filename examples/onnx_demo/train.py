"""Train two digit classifiers under ``mode="ONNX"`` and export them for the browser.

The models, an MLP and a small CNN, are plain PyTensor graphs trained on
scikit-learn's bundled ``load_digits`` (8x8 images, intensities 0..16): every
gradient step runs in onnxruntime through ``updates`` on shared weights. They
are then exported with ``export_onnx(..., target="onnxruntime-web",
dtype="float32")``, and again with ``quantize="static"`` (int8, calibrated on
training digits) as ``<model>_int8.onnx``, next to ``models.json`` (what the
page shows about each model) and ``testset.json`` (the held-out digits the
page classifies).

Run with ``bash scripts/run_example.sh`` or
``python examples/onnx_demo/train.py [output directory]``.
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx import export_onnx, precision_report


OUTPUT = Path(__file__).parent / "models"
SEED = 0
TEST_FRACTION = 0.2
MAX_INTENSITY = 16.0
CALIBRATION_ROWS, CALIBRATION_BATCH = 512, 64
EPOCHS = {"mlp": 30, "cnn": 15}


def load_data(seed=SEED):
    """The digits as float64 ``(n, 8, 8)`` images in 0..16, split into train and test."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images.astype("float64")
    labels = digits.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = round(len(labels) * TEST_FRACTION)
    test, train = order[:n_test], order[n_test:]
    return (images[train], labels[train]), (images[test], labels[test])


def init(rng, shape, fan_in, name):
    return pytensor.shared(rng.normal(0, np.sqrt(2 / fan_in), shape), name=name)


def zeros(shape, name):
    return pytensor.shared(np.zeros(shape), name=name)


def mlp_params(rng, hidden=256):
    return [
        init(rng, (64, hidden), 64, "w1"),
        zeros(hidden, "b1"),
        init(rng, (hidden, 10), hidden, "w2"),
        zeros(10, "b2"),
    ]


def mlp(images, params):
    """64 -> 256 (ReLU) -> 10 (softmax)."""
    w1, b1, w2, b2 = params
    x = images.reshape((images.shape[0], 64)) / MAX_INTENSITY
    h = pt.maximum(x @ w1 + b1, 0)
    return pt.special.softmax(h @ w2 + b2, axis=-1)


def cnn_params(rng, channels=32, hidden=128):
    return [
        init(rng, (channels, 1, 3, 3), 9, "kernels"),
        zeros(channels, "conv_bias"),
        init(rng, (channels * 9, hidden), channels * 9, "w1"),
        zeros(hidden, "b1"),
        init(rng, (hidden, 10), hidden, "w2"),
        zeros(10, "b2"),
    ]


def cnn(images, params):
    """3x3 conv (32 channels, ReLU) -> 2x2 max pooling -> dense 128 (ReLU) -> 10 (softmax)."""
    kernels, conv_bias, w1, b1, w2, b2 = params
    channels = kernels.type.shape[0] or kernels.get_value().shape[0]
    x = images / MAX_INTENSITY
    # (batch, 1, 1, 8, 8) * (1, channels, 1, 3, 3): Blockwise over batch and channel.
    maps = pt.signal.convolve2d(x[:, None, None], kernels[None], mode="valid")
    maps = pt.maximum(maps.sum(axis=2) + conv_bias[:, None, None], 0)
    batch = images.shape[0]
    pooled = maps.reshape((batch, channels, 3, 2, 3, 2)).max(axis=(3, 5))
    h = pt.maximum(pooled.reshape((batch, channels * 9)) @ w1 + b1, 0)
    return pt.special.softmax(h @ w2 + b2, axis=-1)


MODELS = {"mlp": (mlp_params, mlp), "cnn": (cnn_params, cnn)}
DESCRIPTIONS = {
    "mlp": "MLP 64-256-10 (ReLU, softmax)",
    "cnn": "CNN: 32 conv 3x3 (ReLU), 2x2 max pool, dense 128 (ReLU), 10 (softmax)",
}


def progress(epoch, epochs, loss, accuracy, seconds, width=24):
    done = round(width * epoch / epochs)
    bar = "#" * done + "." * (width - done)
    end = "\n" if epoch == epochs else ""
    print(
        f"\r  [{bar}] epoch {epoch:3d}/{epochs}  loss {loss:.4f}  "
        f"train accuracy {accuracy:6.1%}  {seconds:5.1f} s",
        end=end,
        flush=True,
    )


def train(name, data, epochs, batch_size=32, learning_rate=0.05, momentum=0.9):
    """Train one model with momentum SGD under ``mode="ONNX"``; return its predictor."""
    (train_images, train_labels), _ = data
    rng = np.random.default_rng(SEED)
    images = pt.tensor3("images")
    labels = pt.lvector("labels")
    make_params, model = MODELS[name]
    params = make_params(rng)
    probabilities = model(images, params)
    probabilities.name = "probabilities"
    picked = probabilities[pt.arange(labels.shape[0]), labels]
    loss = -pt.mean(pt.log(picked + 1e-12))
    accuracy = pt.mean(pt.eq(pt.argmax(probabilities, axis=-1), labels))
    velocities = [zeros(p.get_value().shape, f"{p.name}_velocity") for p in params]
    updates = []
    for param, velocity, grad in zip(
        params, velocities, pytensor.grad(loss, params), strict=True
    ):
        new_velocity = momentum * velocity - learning_rate * grad
        updates += [(velocity, new_velocity), (param, param + new_velocity)]
    print(f"training {name}: {DESCRIPTIONS[name]}")
    print('  compiling the training step under mode="ONNX"...', flush=True)
    step = pytensor.function(
        [images, labels], [loss, accuracy], updates=updates, mode="ONNX"
    )
    start = time.perf_counter()
    order_rng = np.random.default_rng(SEED + 1)
    for epoch in range(1, epochs + 1):
        order = order_rng.permutation(len(train_labels))
        losses, accuracies, sizes = [], [], []
        for first in range(0, len(order), batch_size):
            batch = order[first : first + batch_size]
            batch_loss, batch_accuracy = step(train_images[batch], train_labels[batch])
            losses.append(batch_loss)
            accuracies.append(batch_accuracy)
            sizes.append(len(batch))
        progress(
            epoch,
            epochs,
            np.average(losses, weights=sizes),
            np.average(accuracies, weights=sizes),
            time.perf_counter() - start,
        )
    return params


def predictor(name, params, dtype):
    """The model with the trained weights, compiled in PyTensor's default mode."""
    images = pt.tensor3("images", dtype=dtype)
    weights = [
        pytensor.shared(p.get_value().astype(dtype), name=p.name) for p in params
    ]
    probabilities = MODELS[name][1](images, weights)
    probabilities.name = "probabilities"
    return pytensor.function([images], probabilities)


def model_info(name, path, model, seconds):
    def describe(values):
        return [
            {
                "name": v.name,
                "dtype": onnx.helper.tensor_dtype_to_np_dtype(
                    v.type.tensor_type.elem_type
                ).name,
                "shape": [
                    d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim
                ],
            }
            for v in values
        ]

    return {
        "file": path.name,
        "description": DESCRIPTIONS[name],
        "bytes": path.stat().st_size,
        "opset": next(
            o.version for o in model.opset_import if o.domain in ("", "ai.onnx")
        ),
        "ir_version": model.ir_version,
        "producer": f"{model.producer_name} {model.producer_version}",
        "nodes": len(model.graph.node),
        "parameters": int(
            sum(np.prod(t.dims, dtype="int64") for t in model.graph.initializer)
        ),
        "inputs": describe(model.graph.input),
        "outputs": describe(model.graph.output),
        "training_seconds": round(seconds, 1),
    }


def export_int8(name, params, data, output):
    """Export the model quantized to int8 (static, QDQ), calibrated on training
    digits; return what the page shows about it."""
    (train_images, _), (test_images, test_labels) = data
    path = output / f"{name}_int8.onnx"
    calibration = [
        (train_images[first : first + CALIBRATION_BATCH],)
        for first in range(0, CALIBRATION_ROWS, CALIBRATION_BATCH)
    ]
    export_onnx(
        predictor(name, params, "float32"),
        path,
        target="onnxruntime-web",
        dtype="float32",
        dims={"images": ("batch", 8, 8)},
        doc_string=f"{DESCRIPTIONS[name]}, int8",
        quantize="static",
        calibration=calibration,
    )
    report = precision_report(path)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    [probabilities] = session.run(None, {"images": test_images.astype("float32")})
    accuracy = np.mean(probabilities.argmax(-1) == test_labels)
    print(
        f"  int8 (quantize='static'): {report.bytes_after / 1024:.1f} KiB, "
        f"{report.size_ratio:.2f}x smaller; test accuracy {accuracy:.1%}"
    )
    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "test_accuracy": accuracy,
        "report": report.to_dict(),
    }


def main(output=OUTPUT, epochs=None):
    """Train, check and export both models and the test set into ``output``."""
    # PyTensor's default mode runs the convolution in numba's object mode.
    warnings.filterwarnings("ignore", message="Numba will use object mode")
    epochs = epochs or EPOCHS
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    data = load_data()
    test_images, test_labels = data[1]
    info = {}
    for name in MODELS:
        start = time.perf_counter()
        params = train(name, data, epochs[name])
        seconds = time.perf_counter() - start
        path = output / f"{name}.onnx"
        print("  exporting it in float32 for onnxruntime-web...", flush=True)
        # Built in float32 rather than converted by dtype="float32", which
        # cannot rebuild the Blockwise convolution in float32 yet.
        model = export_onnx(
            predictor(name, params, "float32"),
            path,
            target="onnxruntime-web",
            dtype="float32",
            dims={"images": ("batch", 8, 8)},
            doc_string=DESCRIPTIONS[name],
        )
        print(
            "  checking the export against the float64 model in PyTensor's "
            "default mode (compiling it takes a while)...",
            flush=True,
        )
        expected = predictor(name, params, "float64")(test_images)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        [exported] = session.run(None, {"images": test_images.astype("float32")})
        accuracy = np.mean(expected.argmax(-1) == test_labels)
        exported_accuracy = np.mean(exported.argmax(-1) == test_labels)
        print(f"  test accuracy, PyTensor default mode:       {accuracy:.1%}")
        print(f"  test accuracy, exported float32 onnxruntime: {exported_accuracy:.1%}")
        np.testing.assert_allclose(exported, expected, atol=1e-5)
        assert accuracy == exported_accuracy, "the exported model disagrees"
        info[name] = model_info(name, path, model, seconds) | {
            "test_accuracy": accuracy,
            "int8": export_int8(name, params, data, output),
        }
        print(f"  exported to {path} ({path.stat().st_size / 1024:.1f} KiB)")
    (output / "models.json").write_text(json.dumps(info, indent=1))
    (output / "testset.json").write_text(
        json.dumps(
            {
                "images": test_images.astype("int64").reshape(-1, 64).tolist(),
                "labels": test_labels.tolist(),
            }
        )
    )
    return info


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=Path, default=OUTPUT)
    parser.add_argument("--epochs", type=int, help="epochs for both models")
    args = parser.parse_args()
    main(args.output, args.epochs and dict.fromkeys(MODELS, args.epochs))
