"""The registry of the ONNX backend's converters: `onnx_funcify`.

One entry per Op class, with a slot for the converter of real values and
two overloads: for complex values and for ``Blockwise``. The converters
register themselves from the dispatch modules; `convert_node` picks the one
a node needs.
"""

from functools import singledispatch

from pytensor.link.onnx.complex_pairs import is_complex
from pytensor.link.onnx.dispatch.variables import unsupported_reason


def no_converter(op, node=None, builder=None, inputs=None, **kwargs):
    """Add the ONNX nodes computing ``node`` and return the names of its outputs.

    Converters are registered per ``Op`` (or ``ScalarOp``) class. They receive
    the PyTensor ``node``, the ``ONNXGraphBuilder`` of the model being built
    and the ONNX value names of the node's inputs, and return one ONNX value
    name per output of ``node``.
    """
    raise NotImplementedError(f"No ONNX conversion for the Op {op}")


def no_complex_overload(op, node=None, builder=None, inputs=None, **kwargs):
    raise NotImplementedError(
        unsupported_reason(op)
        or f"complex values are not supported by the Op {op} in the ONNX backend"
    )


def no_batched_overload(core_op, node=None, builder=None, inputs=None, **kwargs):
    raise NotImplementedError(f"No batched ONNX conversion for the Op {core_op}")


class ConverterRegistry:
    """The converters of the ONNX backend, by Op class, each with its overloads.

    Like ``functools.singledispatch`` (an Op class without an entry of its own
    uses the one of its nearest base class), with three slots per entry, as
    onnxscript's torch_lib holds the complex overloads of an operator beside
    its real one:

    ``register(SomeOp)``
        The converter of the nodes on real values.
    ``register(SomeOp, complex=True)``
        The complex overload, for the nodes of which an input or an output is
        complex: ONNX holds a complex value as the real pair of its parts along
        a trailing axis (see `pytensor.link.onnx.dispatch.complex`), which the
        real converter would misread. For a scalar Op it is the function of
        the parts ``(re, im)`` of its operands that the complex ``Elemwise``
        converter applies.
    ``register(SomeOp, batched=True)``
        The converter of ``Blockwise(SomeOp)`` computing every batch element
        at once (see `pytensor.link.onnx.dispatch.blockwise`); without one,
        the converter of ``SomeOp`` runs once per batch element in a ``Loop``.

    Calling the registry converts with the real converter, as
    ``singledispatch`` would; `convert_node` picks the slot a node needs.
    """

    SLOTS = ("real", "complex", "batched")

    def __init__(self):
        defaults = (no_converter, no_complex_overload, no_batched_overload)
        self.slots = {
            slot: singledispatch(default)
            for slot, default in zip(self.SLOTS, defaults, strict=True)
        }

    def __call__(self, op, *args, **kwargs):
        return self.dispatch(type(op))(op, *args, **kwargs)

    @staticmethod
    def slot(complex: bool = False, batched: bool = False) -> str:
        if complex and batched:
            raise ValueError("a converter is either a complex or a batched overload")
        return "complex" if complex else "batched" if batched else "real"

    def register(self, cls, func=None, *, complex=False, batched=False):
        """Register ``func`` (or the decorated function) for ``cls`` in a slot."""
        return self.slots[self.slot(complex, batched)].register(cls, func)

    def dispatch(self, cls, *, complex=False, batched=False):
        """The converter of ``cls`` in a slot (its default if none is registered)."""
        return self.slots[self.slot(complex, batched)].dispatch(cls)

    def has(self, cls, *, complex=False, batched=False) -> bool:
        """Whether ``cls`` (or a base class) has a converter of its own in a slot."""
        slot = self.slots[self.slot(complex, batched)]
        return slot.dispatch(cls) is not slot.registry[object]

    @property
    def registry(self):
        """The real converters by class, as ``singledispatch`` has it."""
        return self.slots["real"].registry

    def entries(self):
        """``(slot, class, converter)`` for every registration, the defaults excluded."""
        return [
            (slot, cls, converter)
            for slot, registry in self.slots.items()
            for cls, converter in registry.registry.items()
            if cls is not object
        ]


onnx_funcify = ConverterRegistry()


def involves_complex(node) -> bool:
    """Whether an input or an output of ``node`` is complex."""
    return any(map(is_complex, node.inputs + node.outputs))


def convert_node(node, builder, inputs, **kwargs):
    """Add the ONNX nodes computing ``node`` with its Op's converter, or with
    its complex overload if ``node`` takes or returns complex values."""
    converter = onnx_funcify.dispatch(type(node.op), complex=involves_complex(node))
    return converter(node.op, node=node, builder=builder, inputs=inputs, **kwargs)
