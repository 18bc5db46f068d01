"""Why the Op classes of the JAX and Numba registries that ONNX lacks do not convert.

Keys are ``fnmatch`` patterns over class paths (``module.QualName``), so that
one key covers a class whose module differs between PyTensor versions. The
docs build and ``tests/link/onnx/test_docs.py`` check that every class that
does not convert matches exactly one pattern, and that every pattern matches
such a class and none that converts: add or remove a converter, and this
file must follow. Ops whose converters reject them outright give their reason
in the code instead (``UNSUPPORTED_OP_REASONS``).
"""

NOT_YET = (
    "not converted yet: ONNX has no operator for it, and no converter composes "
    "it from ONNX operators."
)
SPARSE = (
    "sparse matrices. No operator of the standard ONNX opsets takes or returns "
    "a sparse tensor: ONNX has them only as constant initializers, and "
    "onnxruntime's only sparse kernel is its own ``com.microsoft`` "
    "SparseToDenseMatMul. The ONNX backend rejects sparse variables."
)

REASONS = {
    "pytensor.link.jax.dispatch.shape.JAXShapeTuple": (
        "the JAX backend's own Op, created only by its JAX rewrites of shapes "
        "and random variable sizes."
    ),
    "pytensor.link.jax.ops.JAXOp": "it wraps a JAX function, which ONNX cannot run.",
    "pytensor.scalar.basic.ScalarOp": (
        "no converter for the base class: each scalar Op needs its own."
    ),
    "pytensor.scalar.math.Hyp2F1": NOT_YET,
    "pytensor.sparse.*": SPARSE,
}

# Classes that PyTensor 2 does not have
PYTENSOR_3_REASONS = {
    "pytensor.graph.fg.AbstractFunctionGraph": (
        "not an Op but the base class of the graphs. ``mode='ONNX'`` converts "
        "a whole ``FunctionGraph`` into one ONNX model."
    ),
    "pytensor.graph.fg.FrozenFunctionGraph": (
        "not an Op: the immutable inner graph of Ops such as ``Composite`` and "
        "``OpFromGraph``, whose converters convert its nodes."
    ),
}
