"""Converter of LAPACK's ``trsyl``, the Sylvester equation of quasi-triangular
matrices."""

from pytensor.link.onnx.dispatch.linalg.ops import TRSYL
from pytensor.link.onnx.dispatch.linalg.shared import (
    float_output_dtype,
    register_stacked,
)
from pytensor.link.onnx.numerics.linalg.solvers.sylvester import (
    sylvester_of_quasi_triangular,
)


@register_stacked(TRSYL)
def trsyl_stacked(op, node, a, b, c):
    dtype = float_output_dtype(node)
    a, b, c = (x.cast(dtype) for x in (a, b, c))
    return [sylvester_of_quasi_triangular(a, b, c)]
