"""Models built for the shapes of the shared values a function is compiled with.

A shared variable's type leaves its shape unknown unless it is given
(PyMC's ``pm.Data`` leaves it unknown), because ``set_value`` may replace its
value by one of another shape. Its value is there when the function is
compiled, though, and most keep their shape for the function's lifetime. The
linker therefore builds the model for those shapes (`shared_shapes`,
`with_static_shapes`), and a `ShapeGuardedFunction` runs it while the shared
values keep them, and a model for any shape otherwise.
"""

from threading import Lock

from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace
from pytensor.graph.rewriting.basic import SequentialGraphRewriter, in2out
from pytensor.tensor.rewriting.basic import topo_constant_folding
from pytensor.tensor.rewriting.shape import local_shape_ground, local_Shape_i_ground
from pytensor.tensor.type import TensorType


# The shapes that have become static, as constants, and what they compute
GROUND_SHAPES = SequentialGraphRewriter(
    in2out(local_Shape_i_ground, local_shape_ground), topo_constant_folding
)


def shared_shapes(fgraph, storage_map) -> dict[int, tuple[int, ...]]:
    """``{input position: shape}`` of the shared tensor inputs of ``fgraph``
    whose current value fixes a length their type leaves unknown.

    A length of 1 does not count: it would make the axis broadcastable,
    which a symbolic length never is.
    """
    shapes = {}
    for position, inp in enumerate(fgraph.inputs):
        if not (isinstance(inp, SharedVariable) and isinstance(inp.type, TensorType)):
            continue
        shape = getattr(storage_map[inp][0], "shape", None)
        if shape is None or len(shape) != inp.type.ndim:
            continue
        if any(
            static is None and length != 1
            for static, length in zip(inp.type.shape, shape, strict=True)
        ):
            shapes[position] = tuple(shape)
    return shapes


def with_static_shapes(fgraph, shapes) -> FunctionGraph | None:
    """A copy of ``fgraph`` whose inputs at the positions of ``shapes`` have
    those static shapes (lengths of 1 stay as they are), with every node
    rebuilt so that its types know them and the shapes they make static
    computed, or ``None`` if a node refuses them.

    A node refuses them where the graph would fail at run time for these
    shapes (two static lengths that cannot broadcast, say): the graph for any
    shape then raises PyTensor's error when it runs.
    """

    def new_input(position, inp):
        if position not in shapes:
            return inp.type(name=inp.name)
        static_shape = tuple(
            static if length == 1 else length
            for static, length in zip(inp.type.shape, shapes[position], strict=True)
        )
        return inp.type.clone(shape=static_shape)(name=inp.name)

    inputs = [new_input(position, inp) for position, inp in enumerate(fgraph.inputs)]
    try:
        outputs = clone_replace(
            fgraph.outputs,
            dict(zip(fgraph.inputs, inputs, strict=True)),
            rebuild_strict=False,
        )
    except Exception:
        return None
    specialized = FunctionGraph(inputs, outputs, clone=False)
    GROUND_SHAPES.rewrite(specialized)
    return specialized


class ShapeGuardedFunction:
    """Run ``specialized`` while the inputs at the positions of ``shapes``
    have those shapes, else the function ``build_general()`` returns, built
    on the first call that needs it.

    ``session`` is the session of ``specialized``.
    """

    def __init__(self, specialized, shapes, build_general):
        self.specialized = specialized
        self.session = specialized.session
        self.shapes = tuple(shapes.items())
        self.build_general = build_general
        self.general = None
        self.building = Lock()

    def __call__(self, *values):
        for position, shape in self.shapes:
            if values[position].shape != shape:
                return self.general_function()(*values)
        return self.specialized(*values)

    def general_function(self):
        with self.building:
            if self.general is None:
                self.general = self.build_general()
        return self.general
