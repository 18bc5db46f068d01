"""Ops of the ``ai.onnx.ml`` domain: Binarizer, ArrayFeatureExtractor."""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, like


DOMAIN = "ai.onnx.ml"


@onnx_op("Binarizer", domain=DOMAIN)
def binarizer(node, x):
    return as_dtype(pt.gt(x, like(node.attr("threshold", 0.0), x)), x.dtype)


@onnx_op("ArrayFeatureExtractor", domain=DOMAIN)
def array_feature_extractor(node, x, indices):
    """``x`` at ``indices`` of its last axis; a vector ``x`` gives one row, as
    in onnxruntime."""
    picked = pt.take(x, indices.ravel(), axis=-1)
    return picked[None] if x.ndim == 1 else picked
