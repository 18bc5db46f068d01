"""Score a large table in chunks with an exported file, on a Dask cluster.

    python examples/score_at_scale.py [--rows 1000000] [--workers 2] [--triton DIR]

1. Export a classifier (a float32 MLP, 8 features -> 3 class probabilities)
   with a symbolic batch axis: ``dims={"features": ("batch", 8)}``.
2. Start a local Dask cluster (``LocalCluster``, one thread per worker
   process) and register a worker plugin that creates one onnxruntime
   session per worker from the file's bytes, once: tasks reuse it.
3. Score a Dask array of ``--rows`` rows, one task per chunk of 65,536 rows
   (``map_blocks``), and check the result equals scoring the same chunks in
   this process.

``--triton DIR`` also writes a Triton Inference Server model repository
(``DIR/scorer/1/model.onnx`` and ``DIR/scorer/config.pbtxt``) serving the
same file with its onnxruntime backend and dynamic batching.
Needs the ``scale`` extra (``pip install 'pytensor-onnx[scale]'``: Dask
distributed).
"""

import argparse
import logging
import time
from pathlib import Path

import numpy as np
import onnx


N_FEATURES, N_CLASSES, HIDDEN = 8, 3, 64
CHUNK_ROWS = 65_536
SESSION_ATTRIBUTE = "onnx_session"


def export_classifier(seed=0) -> bytes:
    """The model file's bytes: an MLP with fixed random weights, any batch size."""
    # imported here: the workers import this file, and need only onnxruntime
    import pytensor.tensor as pt

    import pytensor
    from pytensor.link.onnx import export_onnx

    rng = np.random.default_rng(seed)
    features = pt.matrix("features", dtype="float32")
    w1 = rng.normal(size=(N_FEATURES, HIDDEN)) / np.sqrt(N_FEATURES)
    w2 = rng.normal(size=(HIDDEN, N_CLASSES)) / np.sqrt(HIDDEN)
    w1 = pytensor.shared(w1.astype("float32"), name="w1")
    w2 = pytensor.shared(w2.astype("float32"), name="w2")
    probabilities = pt.special.softmax(pt.maximum(features @ w1, 0) @ w2, axis=-1)
    probabilities.name = "probabilities"
    model = export_onnx(
        ([features], probabilities), dims={"features": ("batch", N_FEATURES)}
    )
    return model.SerializeToString()


def new_session(model_bytes):
    """A session with one intra-op thread: the cluster runs one task per core."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(
        model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
    )


def table(rows, seed=1):
    """The table to score: a Dask array of ``rows`` x 8 float32 features."""
    import dask.array as da

    return da.random.default_rng(seed).standard_normal(
        (rows, N_FEATURES), chunks=(CHUNK_ROWS, N_FEATURES), dtype="float32"
    )


def register_sessions(client, model_bytes):
    """One session per worker, created when the plugin is registered (and on
    workers that join later), kept on the worker."""
    from distributed import WorkerPlugin

    class ONNXSession(WorkerPlugin):
        name = "onnx-session"

        def __init__(self, model_bytes):
            self.model_bytes = model_bytes

        def setup(self, worker):
            setattr(worker, SESSION_ATTRIBUTE, new_session(self.model_bytes))

    # Dask's way to ship local code: the workers import this file when a task
    # needs it (load=False: the scheduler, here in this process, does not)
    client.upload_file(__file__, load=False)
    client.register_plugin(ONNXSession(model_bytes))


def score_chunk(chunk):
    """Score one chunk with the session of the worker running the task."""
    from distributed import get_worker

    session = getattr(get_worker(), SESSION_ATTRIBUTE)
    [probabilities] = session.run(None, {"features": chunk})
    return probabilities


def scored(features):
    """The probabilities of every row of ``features``: one task per chunk."""
    return features.map_blocks(
        score_chunk, dtype="float32", chunks=(features.chunks[0], (N_CLASSES,))
    )


def score_on_cluster(client, model_bytes, features) -> np.ndarray:
    """The probabilities of every row of ``features``, scored by the workers."""
    register_sessions(client, model_bytes)
    return client.compute(scored(features)).result()


def score_in_process(model_bytes, features) -> np.ndarray:
    """The same chunks scored one after the other by one session, here."""
    session = new_session(model_bytes)
    blocks = features.to_delayed().ravel()
    return np.concatenate(
        [session.run(None, {"features": block.compute()})[0] for block in blocks]
    )


def triton_config(model: onnx.ModelProto, name="scorer", max_batch_size=4096) -> str:
    """A Triton ``config.pbtxt`` serving ``model`` with dynamic batching.

    Triton's batch axis is the model's first axis, symbolic in the file
    (``dims={"features": ("batch", 8)}``); ``dims`` below are the others.
    """
    types = {"float32": "TYPE_FP32", "float64": "TYPE_FP64", "int64": "TYPE_INT64"}

    def tensors(values):
        entries = []
        for value in values:
            dims = [d.dim_value or -1 for d in value.type.tensor_type.shape.dim[1:]]
            dtype = onnx.helper.tensor_dtype_to_np_dtype(
                value.type.tensor_type.elem_type
            ).name
            entries.append(
                f'  {{ name: "{value.name}" data_type: {types[dtype]} dims: {dims} }}'
            )
        return ",\n".join(entries)

    return (
        f'name: "{name}"\n'
        'backend: "onnxruntime"\n'
        f"max_batch_size: {max_batch_size}\n"
        f"input [\n{tensors(model.graph.input)}\n]\n"
        f"output [\n{tensors(model.graph.output)}\n]\n"
        "dynamic_batching { max_queue_delay_microseconds: 200 }\n"
        "instance_group [ { count: 2 kind: KIND_CPU } ]\n"
    )


def write_triton_repository(directory, model_bytes, name="scorer"):
    model_dir = Path(directory) / name
    (model_dir / "1").mkdir(parents=True, exist_ok=True)
    (model_dir / "1" / "model.onnx").write_bytes(model_bytes)
    config = triton_config(onnx.load_model_from_string(model_bytes), name)
    (model_dir / "config.pbtxt").write_text(config)
    return model_dir


def local_cluster(workers, processes=True):
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=processes,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.WARNING,
    )


def main(rows=1_000_000, workers=2, triton=None):
    from distributed import Client

    model_bytes = export_classifier()
    features = table(rows)
    with local_cluster(workers) as cluster, Client(cluster) as client:
        start = time.perf_counter()
        scores = score_on_cluster(client, model_bytes, features)
        seconds = time.perf_counter() - start
    print(
        f"{rows:,} rows in {features.numblocks[0]} chunks on {workers} workers: "
        f"{seconds:.2f} s, {rows / seconds:,.0f} rows/s"
    )
    expected = score_in_process(model_bytes, features)
    assert np.array_equal(scores, expected), "the cluster's scores differ"
    print("equal to scoring the same chunks in one process")
    if triton is not None:
        print(
            f"Triton model repository: {write_triton_repository(triton, model_bytes)}"
        )
    return scores


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--triton", type=Path, help="write a Triton model repository")
    args = parser.parse_args()
    main(args.rows, args.workers, args.triton)
