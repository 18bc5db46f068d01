"""Forward and back substitution (LAPACK's ``trtrs``)."""

from pytensor.link.onnx.numerics.linalg.stacks import (
    loop,
    lower_triangle,
    positions,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, where


def substitute(t: Value, b: Value, *, lower: bool, unit_diagonal=False) -> Value:
    """``x`` with ``t @ x = b``, reading the lower (or upper) triangle of ``t`` only.

    Forward (or back) substitution, one row of ``x`` per iteration.
    """
    if unit_diagonal:
        t = lower_triangle(t, strict=True) if lower else upper_triangle(t, True)
    else:
        t = lower_triangle(t) if lower else upper_triangle(t)
    n = t.dim(1)
    rows = positions(n, 1)

    def step(i, x):
        k = i if lower else n.into(i.builder) - 1 - i
        at_k = k.unsqueeze([0])
        t_row = t.into(i.builder).take(at_k, axis=1)
        value = b.into(i.builder).take(at_k, axis=1) - t_row @ x
        if not unit_diagonal:
            value = value / t_row.take(at_k, axis=2)
        return [where(rows.into(i.builder).eq(k), value, x)]

    [x] = loop(n, [b.full_like(0)], step, hint="solved")
    return x
