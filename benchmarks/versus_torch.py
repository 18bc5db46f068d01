"""The MLP and the digits CNN exported by ``export_onnx`` and by ``torch.onnx.export``.

Both exports hold the same weights and compute the same probabilities; they are
compared on node count, file size and onnxruntime latency.

Without torch, the CNN is compared with ``data/digits_cnn_torch.onnx``, torch's
export of it (torch 2.13.0, written by ``python versus_torch.py --write-torch-cnn``
where torch is installed).
"""

import importlib.util
import io
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np
import onnx
import pytensor.tensor as pt
from runner import (
    failure,
    interleaved_samples,
    onnx_mode,
    ort_session_options,
    summarize,
)
from workloads import (
    CNN_IMAGE_SHAPE,
    digits_cnn_forward,
    digits_cnn_params,
    mlp_forward,
    mlp_params,
    mlp_sizes,
    rng,
    shared_params,
)

import pytensor


TORCH_CNN_FILE = Path(__file__).parent / "data" / "digits_cnn_torch.onnx"


ENABLE_HINT = (
    "torch is not installed; to enable this comparison: "
    "pip install torch==2.13.0 (CPU wheel), then rerun"
)


def pytensor_mlp(params, threads):
    from pytensor.link.onnx import export_onnx

    x = pt.matrix("x", dtype="float32")
    f = pytensor.function(
        [x], mlp_forward(x, shared_params(params)), mode=onnx_mode(threads)
    )
    return export_onnx(f, dims={"x": ("batch", params[0].shape[0])})


def torch_export(network, example):
    import torch

    buffer = io.BytesIO()
    torch.onnx.export(
        network.eval(),
        (torch.from_numpy(example),),
        buffer,
        input_names=["x"],
        output_names=["probs"],
        dynamic_axes={"x": {0: "batch"}},
        dynamo=False,
    )
    return onnx.load_from_string(buffer.getvalue())


def linear(torch, weight, bias=None):
    """A ``torch.nn.Linear`` computing ``x @ weight + bias``."""
    layer = torch.nn.Linear(*weight.shape, bias=bias is not None)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(weight.T.copy()))
        if bias is not None:
            layer.bias.copy_(torch.from_numpy(bias))
    return layer


def torch_mlp(params):
    import torch

    layers = []
    for weight, bias in zip(params[::2], params[1::2], strict=True):
        layers += [linear(torch, weight, bias), torch.nn.ReLU()]
    network = torch.nn.Sequential(*layers[:-1], torch.nn.Softmax(dim=-1))
    return torch_export(network, np.zeros((1, params[0].shape[0]), "float32"))


def pytensor_cnn(params, threads):
    from pytensor.link.onnx import export_onnx

    images = pt.tensor("x", dtype="float32", shape=(None, *CNN_IMAGE_SHAPE))
    f = pytensor.function(
        [images], digits_cnn_forward(images, *params), mode=onnx_mode(threads)
    )
    return export_onnx(f, dims={"x": ("batch", *CNN_IMAGE_SHAPE)})


def torch_cnn(params):
    import torch

    first, second, dense = params
    convolutions = []
    for kernels in (first, second):
        # pt.signal.convolve2d is a true convolution: torch's Conv2d correlates
        conv = torch.nn.Conv2d(*kernels.shape[1::-1], kernels.shape[2:], bias=False)
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(kernels[:, :, ::-1, ::-1].copy()))
        convolutions += [conv, torch.nn.ReLU()]
    network = torch.nn.Sequential(
        *convolutions,
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        linear(torch, dense),
        torch.nn.Softmax(dim=-1),
    )
    return torch_export(network, np.zeros((1, *CNN_IMAGE_SHAPE), "float32"))


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def networks(quick, threads):
    """For each network: its two exports and a function drawing a batch of inputs."""
    mlp = mlp_params(mlp_sizes(quick))
    cnn = digits_cnn_params()
    gen = rng()
    cnn_comparison = {
        "CNN": (
            {
                "export_onnx": pytensor_cnn(cnn, threads),
                "torch.onnx.export": torch_cnn(cnn)
                if has_torch()
                else onnx.load(TORCH_CNN_FILE),
            },
            lambda batch: gen.uniform(0, 16, (batch, *CNN_IMAGE_SHAPE)).astype(
                "float32"
            ),
        ),
    }
    if not has_torch():
        return cnn_comparison
    return {
        "MLP": (
            {
                "export_onnx": pytensor_mlp(mlp, threads),
                "torch.onnx.export": torch_mlp(mlp),
            },
            lambda batch: gen.normal(size=(batch, mlp[0].shape[0])).astype("float32"),
        ),
        **cnn_comparison,
    }


def describe(model):
    op_counts = Counter(node.op_type for node in model.graph.node)
    return {
        "nodes": len(model.graph.node),
        "bytes": len(model.SerializeToString()),
        "opset": max(
            o.version for o in model.opset_import if o.domain in ("", "ai.onnx")
        ),
        "ops": ", ".join(f"{op} x{n}" for op, n in sorted(op_counts.items())),
    }


def session(model, threads):
    import onnxruntime as ort

    return ort.InferenceSession(
        model.SerializeToString(),
        sess_options=ort_session_options(threads),
        providers=["CPUExecutionProvider"],
    )


def compare_with_torch(quick, repeats, target_seconds, threads):
    """Node count, file size and onnxruntime latency of the two exports of each network."""
    if not has_torch() and not TORCH_CNN_FILE.exists():
        return {"status": "skipped", "reason": ENABLE_HINT}
    try:
        exports = networks(quick, threads)
    except Exception as err:
        return failure(err)

    batches = (1, 8) if quick else (1, 256)
    calls, agree = {}, {}
    for network, (models, draw) in exports.items():
        agree[network] = True
        for batch in batches:
            data = draw(batch)
            outputs = []
            for name, model in models.items():
                run = session(model, threads).run
                feed = {model.graph.input[0].name: data}
                outputs.append(run(None, feed)[0])
                calls[(network, name, batch)] = partial(run, None, feed)
            agree[network] &= bool(np.allclose(*outputs, rtol=1e-4, atol=1e-6))
    samples, numbers = interleaved_samples(calls, repeats, target_seconds)
    return {
        "status": "ok",
        "onnxruntime_intra_op_threads": threads or "default",
        "torch_version": torch_version(),
        "batches": list(batches),
        "networks": {
            network: {
                "outputs_agree": agree[network],
                "models": {
                    name: {
                        **describe(model),
                        "latency": {
                            str(batch): summarize(
                                samples[(network, name, batch)],
                                calls_per_repeat=numbers[(network, name, batch)],
                            )
                            for batch in batches
                        },
                    }
                    for name, model in models.items()
                },
            }
            for network, (models, _) in exports.items()
        },
    }


def torch_version() -> str:
    if has_torch():
        import torch

        return torch.__version__
    return (
        f"2.13.0+cpu (MLP not compared: {ENABLE_HINT}; CNN from {TORCH_CNN_FILE.name})"
    )


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write-torch-cnn"]:
        onnx.save(torch_cnn(digits_cnn_params()), TORCH_CNN_FILE)
