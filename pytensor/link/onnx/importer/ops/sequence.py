"""Sequences of tensors as PyTensor typed lists (``pytensor.typed_list``).

The elements of one typed list share a type, so they are given an unknown
static shape (:class:`ForgetShape`). ``SequenceEmpty`` makes an
:class:`EmptySequence` that becomes a typed list at its first insertion, when
the rank of its elements is known.
"""

from dataclasses import dataclass

import numpy as np
import pytensor.tensor as pt
import pytensor.typed_list as tl
from pytensor.compile.ops import ViewOp
from pytensor.graph.basic import Apply
from pytensor.tensor.type_other import make_slice

from onnx import TensorProto
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, as_int64, scalar


class ForgetShape(ViewOp):
    """``x`` as a tensor of the same dtype and rank but unknown static shape."""

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.tensor(dtype=x.dtype, shape=(None,) * x.ndim)])


@dataclass(frozen=True)
class EmptySequence:
    """A sequence without elements, whose element rank is not known yet."""

    dtype: np.dtype


def element(x):
    if all(length is None for length in x.type.shape):
        return x
    return ForgetShape()(x)


def position(p):
    return as_int64(scalar(p))


@onnx_op("SequenceEmpty")
def sequence_empty(node):
    return EmptySequence(node.dtype(node.attr("dtype", TensorProto.FLOAT)))


@onnx_op("SequenceConstruct")
def sequence_construct(node, *tensors):
    return tl.make_list([element(t) for t in tensors])


@onnx_op("SequenceInsert")
def sequence_insert(node, sequence, tensor, at=None):
    if isinstance(sequence, EmptySequence):
        return tl.make_list([element(as_dtype(tensor, sequence.dtype))])
    tensor = element(as_dtype(tensor, sequence.ttype.dtype))
    if at is None:
        return tl.append(sequence, tensor)
    return tl.insert(sequence, position(at), tensor)


@onnx_op("SequenceAt")
def sequence_at(node, sequence, at):
    return sequence[position(at)]


@onnx_op("SequenceLength")
def sequence_length(node, sequence):
    if isinstance(sequence, EmptySequence):
        return pt.constant(np.int64(0))
    return tl.length(sequence)


@onnx_op("SequenceErase")
def sequence_erase(node, sequence, at=None):
    if at is None:
        return sequence[:-1]
    at = position(at)
    at = pt.switch(pt.lt(at, 0), at + tl.length(sequence), at)
    return tl.extend(sequence[make_slice(0, at)], sequence[make_slice(at + 1, None)])


@onnx_op("SplitToSequence")
def split_to_sequence(node, x, split=None):
    axis = node.attr("axis", 0)
    axis = axis + x.ndim if axis < 0 else axis
    length = x.type.shape[axis]
    if split is None:
        if length is None:
            raise NotImplementedError(
                f"{node.label}: splitting into single entries an axis of unknown length"
            )
        pieces = [x.take(i, axis=axis) for i in range(length)]
        if node.attr("keepdims", 1):
            pieces = [pt.expand_dims(p, axis) for p in pieces]
        return tl.make_list([element(p) for p in pieces])
    if split.ndim == 0:
        if length is None:
            raise NotImplementedError(
                f"{node.label}: splitting in chunks an axis of unknown length"
            )
        return chunks(x, axis, length, as_int64(split))
    sizes = as_int64(split)
    ends = pt.cumsum(sizes)
    starts = ends - sizes
    n = split.type.shape[0]
    if n is None:
        raise NotImplementedError(f"{node.label}: a split of unknown length")
    return tl.make_list([part(x, axis, starts[i], ends[i]) for i in range(n)])


def part(x, axis, start, end):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, end)
    return element(x[tuple(index)])


def chunks(x, axis, length, size):
    """``x`` cut along ``axis`` (of static ``length``) in chunks of run-time
    ``size``, the last one shorter if need be: as many candidate chunks as
    entries, then as many as are not empty."""
    candidates = tl.make_list(
        [part(x, axis, i * size, (i + 1) * size) for i in range(length)]
    )
    return candidates[make_slice(0, (length + size - 1) // size)]
