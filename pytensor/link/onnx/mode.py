from pytensor.compile.mode import (
    Mode,
    optdb,
    predefined_linkers,
    predefined_modes,
    register_linker,
    register_mode,
)

from pytensor.link.onnx.linker import ONNXLinker
from pytensor.link.onnx.rewrites import (
    DEFAULT_QUERY,
    MERGE_DIMSHUFFLED_TWINS,
    ONNX_TAG,
    BatchScalarCalls,
    CallsOnDistinctData,
    local_dimshuffle_unit_slice,
    local_switch_uniform_constants,
)


ONNX = Mode(ONNXLinker(), DEFAULT_QUERY)


def converted_size(op, input_dtypes) -> int:
    """ONNX nodes of one call of the ``Elemwise`` ``op`` (converters load lazily)."""
    from pytensor.link.onnx.dispatch.elemwise import converted_size

    return converted_size(op, input_dtypes)


def register_onnx_mode():
    """Make ``mode="ONNX"`` and ``Mode(linker="onnx")`` available, and the
    ONNX mode's own rewrites.

    Registering again is harmless. (That PyTensor's ``mode`` setting takes
    ``"ONNX"`` is the start-up hook's work: see ``_autoload.py``.)
    """
    if "onnx" not in predefined_linkers:
        register_linker("onnx", ONNXLinker())
    if "ONNX" not in predefined_modes:
        register_mode("ONNX", ONNX)
    canonicalize = optdb["canonicalize"]
    if "local_dimshuffle_unit_slice" not in canonicalize:
        canonicalize.register(
            "local_dimshuffle_unit_slice", local_dimshuffle_unit_slice, ONNX_TAG
        )
    specialize = optdb["specialize"]
    if "local_switch_uniform_constants" not in specialize:
        specialize.register(
            "local_switch_uniform_constants", local_switch_uniform_constants, ONNX_TAG
        )
    if "merge_dimshuffled_twins" not in optdb:
        # After the specializing rewrites, which make the two forms
        optdb.register(
            "merge_dimshuffled_twins",
            MERGE_DIMSHUFFLED_TWINS,
            ONNX_TAG,
            position=47.3,
        )
    if "calls_on_distinct_data" not in optdb:
        optdb.register(
            "calls_on_distinct_data",
            CallsOnDistinctData(converted_size),
            ONNX_TAG,
            position=47.4,
        )
    if "batch_scalar_calls" not in optdb:
        # After the specializing rewrites, before PyTensor's last merge
        optdb.register(
            "batch_scalar_calls",
            BatchScalarCalls(converted_size),
            ONNX_TAG,
            position=47.5,
        )
