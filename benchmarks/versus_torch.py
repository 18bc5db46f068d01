"""The MLP exported by ``export_onnx`` versus the same MLP from ``torch.onnx.export``."""

import importlib.util
import io
from collections import Counter
from functools import partial

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
from workloads import mlp_forward, mlp_params, mlp_sizes, rng, shared_params

import pytensor


ENABLE_HINT = (
    "torch is not installed; to enable this comparison: "
    "pip install torch==2.13.0 (CPU wheel), then rerun"
)


def pytensor_model(params, threads):
    from pytensor.link.onnx import export_onnx

    x = pt.matrix("x", dtype="float32")
    f = pytensor.function(
        [x], mlp_forward(x, shared_params(params)), mode=onnx_mode(threads)
    )
    return export_onnx(f)


def torch_model(params):
    import torch

    layers = []
    for weight, bias in zip(params[::2], params[1::2], strict=True):
        linear = torch.nn.Linear(*weight.shape)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weight.T.copy()))
            linear.bias.copy_(torch.from_numpy(bias))
        layers += [linear, torch.nn.ReLU()]
    network = torch.nn.Sequential(*layers[:-1], torch.nn.Softmax(dim=-1)).eval()
    buffer = io.BytesIO()
    torch.onnx.export(
        network,
        (torch.zeros(1, params[0].shape[0]),),
        buffer,
        input_names=["x"],
        output_names=["probs"],
        dynamic_axes={"x": {0: "batch"}},
        dynamo=False,
    )
    return onnx.load_from_string(buffer.getvalue())


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
    """Node count, file size and onnxruntime latency of the two exports."""
    if importlib.util.find_spec("torch") is None:
        return {"status": "skipped", "reason": ENABLE_HINT}
    import torch

    params = mlp_params(mlp_sizes(quick))
    try:
        models = {
            "export_onnx": pytensor_model(params, threads),
            "torch.onnx.export": torch_model(params),
        }
    except Exception as err:
        return failure(err)

    batches = (1, 8) if quick else (1, 256)
    calls, agree = {}, True
    for batch in batches:
        data = rng().normal(size=(batch, params[0].shape[0])).astype("float32")
        outputs = []
        for name, model in models.items():
            run = session(model, threads).run
            feed = {model.graph.input[0].name: data}
            outputs.append(run(None, feed)[0])
            calls[(name, batch)] = partial(run, None, feed)
        agree &= bool(np.allclose(*outputs, rtol=1e-4, atol=1e-6))
    samples, numbers = interleaved_samples(calls, repeats, target_seconds)
    return {
        "status": "ok",
        "onnxruntime_intra_op_threads": threads or "default",
        "torch_version": torch.__version__,
        "outputs_agree": agree,
        "batches": list(batches),
        "models": {
            name: {
                **describe(model),
                "latency": {
                    str(batch): summarize(
                        samples[(name, batch)], calls_per_repeat=numbers[(name, batch)]
                    )
                    for batch in batches
                },
            }
            for name, model in models.items()
        },
    }
