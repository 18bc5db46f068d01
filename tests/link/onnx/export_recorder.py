"""A pytest plugin that saves every model ``export_onnx`` returns.

    EXPORT_RECORDER_DIR=out python -m pytest tests/link/onnx/test_export.py \\
        -p tests.link.onnx.export_recorder

Used by ``importer/test_roundtrip.py`` to import back what the exporter's own
tests export.
"""

import itertools
import os
from importlib import import_module
from pathlib import Path


counter = itertools.count()


def pytest_configure(config):
    import pytensor.link.onnx as package

    module = import_module(package.LAZY_EXPORTS["export_onnx"])
    export_onnx = module.export_onnx
    folder = Path(os.environ["EXPORT_RECORDER_DIR"])

    def recording_export_onnx(*args, **kwargs):
        model = export_onnx(*args, **kwargs)
        if model is not None and model.ByteSize() < 2**24:
            (folder / f"{next(counter):04d}.onnx").write_bytes(
                model.SerializeToString()
            )
        return model

    module.export_onnx = recording_export_onnx
