from pytensor.compile.mode import (
    Mode,
    predefined_linkers,
    predefined_modes,
    register_linker,
    register_mode,
)

from pytensor.link.onnx.linker import ONNXLinker
from pytensor.link.onnx.rewrites import (  # noqa: F401 (each registers its rewrites)
    batching,
    blockwise,
    broadcast_sums,
    dimshuffle,
    distinct_data,
    subtensor,
    switch,
)
from pytensor.link.onnx.rewrites.configuration import DEFAULT_QUERY


ONNX = Mode(ONNXLinker(), DEFAULT_QUERY)


def register_onnx_mode():
    """Make ``mode="ONNX"`` and ``Mode(linker="onnx")`` available.

    Registering again is harmless. (The ONNX mode's own rewrites register
    themselves when this module imports them; that PyTensor's ``mode``
    setting takes ``"ONNX"`` is the start-up hook's work: see
    ``_autoload.py``.)
    """
    if "onnx" not in predefined_linkers:
        register_linker("onnx", ONNXLinker())
    if "ONNX" not in predefined_modes:
        register_mode("ONNX", ONNX)
