"""Exporting fitted PyMC models.

Importing this package does not import PyMC: each function loads it when
called.
"""

__all__ = ["export_predictive"]

LAZY_EXPORTS = {"export_predictive": "pytensor.link.onnx.pymc.predictive"}


def __getattr__(name):
    if name in LAZY_EXPORTS:
        from importlib import import_module

        return getattr(import_module(LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
