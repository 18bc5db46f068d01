"""Converter for ``pytensor.tensor.einsum.Einsum`` (``pt.einsum``).

PyTensor's default rewrites inline an ``Einsum`` whose contraction path is
known (all shapes static, or two operands) into dots and transposes; the
others reach the converter, which maps floating-point ones to one ONNX
``Einsum``. Integer and boolean ones convert their inner graph instead:
PyTensor computes their dots in the operands' dtype (wrapping) and their sums
in int64, which one ``Einsum`` in a single dtype cannot reproduce.
"""

from pytensor.tensor.einsum import Einsum

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.inner_graphs import convert_inner_graph
from pytensor.link.onnx.dispatch.operands import cast_all, output_dtype
from pytensor.link.onnx.kernels import kernel_dtypes


# onnxruntime's int32 and int64 Einsum kernels are unused (see above)
EINSUM_DTYPES = frozenset(d for d in kernel_dtypes("Einsum") if d.startswith("float"))


def with_aligned_ellipses(builder, equation, operands, ndims):
    """``operands`` whose ``...`` all stand for as many dimensions.

    NumPy broadcasts the dimensions of ellipses like arrays of different
    ranks; onnxruntime requires equal ranks, so shorter ellipses get leading
    dimensions of length 1.
    """
    terms = equation.split("->")[0].split(",")
    ellipsis_ndims = [
        ndim - len(term.replace("...", "")) if "..." in term else 0
        for term, ndim in zip(terms, ndims, strict=True)
    ]
    longest = max(ellipsis_ndims)
    aligned = []
    for operand, term, ellipsis_ndim in zip(
        operands, terms, ellipsis_ndims, strict=True
    ):
        if "..." in term and ellipsis_ndim < longest:
            start = term.index("...")
            axes = list(range(start, start + longest - ellipsis_ndim))
            operand = builder.add(
                "Unsqueeze", [operand, builder.constant(axes, "int64")]
            )
        aligned.append(operand)
    return aligned


@onnx_funcify.register(Einsum)
def onnx_funcify_Einsum(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    if dtype not in EINSUM_DTYPES:
        return convert_inner_graph(builder, op.inner_inputs, op.inner_outputs, inputs)
    equation = op.subscripts.replace(" ", "")
    operands = with_aligned_ellipses(
        builder,
        equation,
        cast_all(builder, node, inputs, dtype),
        [var.type.ndim for var in node.inputs],
    )
    return [builder.add("Einsum", operands, equation=equation, hint="einsum")]
