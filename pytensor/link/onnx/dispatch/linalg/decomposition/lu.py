"""Converters of the LU decomposition with partial pivoting and of its pivots."""

from pytensor.link.onnx.dispatch.linalg.ops import LU, LUFactor, PivotToPermutations
from pytensor.link.onnx.dispatch.linalg.shared import (
    check_square,
    output_dtype,
    register_stacked,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.decomposition.lu import (
    inverse_permutation,
    lu_factor,
    lu_parts,
    permutation_of_pivots,
)
from pytensor.link.onnx.numerics.linalg.stacks import mT, nan_where, positions


NON_SQUARE_LU = "The ONNX backend computes the LU decomposition of square matrices only"


@register_stacked(LU)
def lu_stacked(op, node, a):
    a = a.cast(output_dtype(node, -1))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, permutation, _, _ = lu_factor(a, static_order(node.inputs[0]))
    lower, upper = lu_parts(lu)
    # a = p @ lower @ upper with p[permutation[i], i] = 1
    p = positions(a.dim(1), 1).eq(mT(permutation))
    if op.permute_l:
        return [p.cast(a.dtype) @ lower, upper]
    if op.p_indices:
        rows_of_lower = inverse_permutation(permutation).squeeze([2])
        return [rows_of_lower.cast(output_dtype(node, 0)), lower, upper]
    return [p.cast(output_dtype(node, 0)), lower, upper]


@register_stacked(LUFactor)
def lu_factor_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, _, pivots, singular = lu_factor(a, static_order(node.inputs[0]))
    return [nan_where(singular, lu), pivots.squeeze([2]).cast(output_dtype(node, 1))]


@register_stacked(PivotToPermutations)
def pivot_to_permutations_stacked(op, node, pivots):
    swapped = permutation_of_pivots(pivots.cast("int64").unsqueeze([2]))
    if op.inverse:
        return [swapped.squeeze([2])]
    return [inverse_permutation(swapped).squeeze([2])]
