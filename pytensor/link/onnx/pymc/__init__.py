"""PyMC on the ONNX backend: its Ops and distributions, sampling its models and
exporting their predictions.

PyMC is optional: this package imports nothing of PyMC, and its functions say
what to install when they need it. `register_converters` is called by the
ONNX linker and the exporter before they convert a graph: it registers the
converters of `pytensor.link.onnx.pymc.converters` once PyMC is imported (a
graph can only hold PyMC's Ops if it is), so users import nothing.
"""

import sys


__all__ = [
    "UnsupportedModelError",
    "export_predictive",
    "register_converters",
    "sample",
]

LAZY_EXPORTS = {
    "export_predictive": "pytensor.link.onnx.pymc.predictive",
    "sample": "pytensor.link.onnx.pymc.sampling",
    "UnsupportedModelError": "pytensor.link.onnx.pymc.sampling",
}


def register_converters():
    """Register the converters of PyMC's Ops and distributions if PyMC is imported."""
    if "pymc" in sys.modules:
        import pytensor.link.onnx.pymc.converters


def __getattr__(name):
    if name in LAZY_EXPORTS:
        from importlib import import_module

        return getattr(import_module(LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
