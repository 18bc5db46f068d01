"""NUTS as one PyTensor graph: every chain's trajectory in compiled loops.

`sample_nuts` samples any log-density graph of float values; under
``mode="ONNX"`` the whole sampler (tree building, leapfrog steps, step-size
adaptation) is one onnxruntime model.
"""

from pytensor.link.onnx.sampling.driver import (
    ChainState,
    NUTSResult,
    nuts_chunk_function,
    sample_nuts,
)


__all__ = ["ChainState", "NUTSResult", "nuts_chunk_function", "sample_nuts"]
