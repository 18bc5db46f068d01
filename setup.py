"""Build hooks that install ``pytensor_onnx.pth`` next to the package.

The ``.pth`` file makes ``mode="ONNX"`` available without importing
``pytensor.link.onnx`` first (PyTensor has no plugin entry points). Its single
line runs the source of ``pytensor/link/onnx/_autoload.py``.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel


PTH_NAME = "pytensor_onnx.pth"
AUTOLOAD_SOURCE = Path(__file__).parent / "pytensor" / "link" / "onnx" / "_autoload.py"


def pth_line() -> str:
    source = AUTOLOAD_SOURCE.read_text()
    return (
        "import sys; exec(compile("
        f"{source!r}, {PTH_NAME!r}, 'exec'), {{'__name__': 'pytensor_onnx_autoload'}})\n"
    )


class BuildPyWithPth(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib, PTH_NAME)
            target.write_text(pth_line())
            self._pth_outputs = [str(target)]

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + getattr(self, "_pth_outputs", [])


class EditableWheelWithPth(editable_wheel):
    def _select_strategy(self, name, tag, build_lib):
        return _AddPth(super()._select_strategy(name, tag, build_lib))


class _AddPth:
    def __init__(self, strategy):
        self.strategy = strategy

    def __enter__(self):
        self.strategy.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self.strategy.__exit__(*exc_info)

    def __call__(self, wheel, files, mapping):
        self.strategy(wheel, files, mapping)
        wheel.writestr(PTH_NAME, pth_line().encode())


setup(cmdclass={"build_py": BuildPyWithPth, "editable_wheel": EditableWheelWithPth})
