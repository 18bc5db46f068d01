"""PyMC in the ONNX backend: the converters of the Ops and distributions PyMC defines.

Importing this package imports nothing of PyMC. `register_converters` is
called by the ONNX linker and the exporter before they convert a graph: it
registers the converters of `pytensor.link.onnx.pymc.converters` once PyMC is
imported (a graph can only hold PyMC's Ops if it is), so users import nothing.
"""

import sys


def register_converters():
    """Register the converters of PyMC's Ops and distributions if PyMC is imported."""
    if "pymc" in sys.modules:
        import pytensor.link.onnx.pymc.converters
