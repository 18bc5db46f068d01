"""PyMC models on the ONNX backend.

PyMC is optional: this package imports without it, and its functions say
what to install when they need it.
"""

__all__ = ["UnsupportedModelError", "sample"]

LAZY_EXPORTS = {
    "sample": "pytensor.link.onnx.pymc.sampling",
    "UnsupportedModelError": "pytensor.link.onnx.pymc.sampling",
}


def __getattr__(name):
    if name in LAZY_EXPORTS:
        from importlib import import_module

        return getattr(import_module(LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
