"""Stacks of matrices cut into square blocks of a static size, for the blocked
algorithms (Cholesky, triangular solves): a ``Loop`` runs over the blocks and
does its work with ``MatMul``, each block's own work is straight-line code.

A matrix of dynamic size ``n`` is padded to the next multiple of the block
size: with the identity on the diagonal for the matrices factored or solved
with, with zeros for right-hand sides. The padding leaves the leading ``n``
rows and columns of every result as they are.
"""

from pytensor.link.onnx.numerics.linalg.stacks import diagonal_mask, positions
from pytensor.link.onnx.value import INT64_MAX, Value, concat, maximum, where


def block_count(n: Value, block: int) -> Value:
    """The number of blocks of ``block`` rows that cover ``n`` rows (0-d int64),
    at least one: the ``Loop`` over them then has its scan outputs' shapes."""
    return maximum((n + (block - 1)) / block, 1)  # int64 Div: rounded down


def padded(x: Value, block: int, *, square: bool) -> Value:
    """``x`` with its rows (and its columns, if ``square``) padded to a multiple
    of ``block``: identity on the diagonal if ``square``, zeros otherwise."""
    n = x.dim(1)
    padding = (block_count(n, block) * block - n).unsqueeze([0])
    zeros = x.indices([0, 0, 0, 0])
    pads = concat([zeros, padding, padding if square else x.indices([0])], axis=0)
    x = x.apply("Pad", x, pads)
    if not square:
        return x
    size = x.dim(1)
    in_padding = diagonal_mask(size, size) & (positions(size, 1) >= n)
    return where(in_padding, 1, x)


def block_rows(x: Value, start: Value, block: int, axis: int) -> Value:
    """``block`` rows (``axis=1``) or columns (2) of ``x`` from ``start`` (0-d int64)."""
    start = start.unsqueeze([0])
    return x.slice(start, start + block, axis=axis)


def corner(x: Value, start: int, end: int | None = None) -> Value:
    """The square ``x[:, start:end, start:end]``, in one ``Slice``."""
    bounds = [x.indices([bound] * 2) for bound in (start, end or INT64_MAX)]
    return x.apply("Slice", x, *bounds, x.indices([1, 2]))


def unstacked(blocks: Value, n: Value, axis: int) -> Value:
    """The scan output ``(blocks, batch, rows, columns)`` of a ``Loop`` over the
    blocks of rows (``axis=1``) or columns (2) of a stack, as that stack
    ``(batch, rows, columns)`` cut to its first ``n`` rows (or columns)."""
    stack = blocks.transpose([1, 0, 2, 3] if axis == 1 else [1, 2, 0, 3])
    lengths = [stack.shape(0, 1), stack.indices([-1])]
    if axis == 1:
        lengths.append(stack.shape(3))
    else:
        lengths.insert(1, stack.shape(1, 2))
    return stack.reshape(concat(lengths, axis=0)).slice(0, n.unsqueeze([0]), axis=axis)
