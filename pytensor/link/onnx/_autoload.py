"""Make ``mode="ONNX"`` available as soon as PyTensor is imported.

PyTensor has no plugin entry points, so the distribution installs a
``pytensor_onnx.pth`` file that runs this source at interpreter start-up.
It only adds a meta-path finder: nothing is imported until the program
itself imports ``pytensor``; once PyTensor's ``__init__`` has run, the finder
imports ``pytensor.link.onnx``, which registers the ``"onnx"`` linker and the
``"ONNX"`` mode. The build embeds this file in the ``.pth`` (see ``setup.py``).
"""

import sys


class RegisterONNXModeOnPyTensorImport:
    """Meta-path finder that registers the ONNX mode right after ``import pytensor``."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != "pytensor":
            return None
        sys.meta_path.remove(cls)
        from importlib.util import find_spec

        spec = find_spec(fullname)
        if spec is not None and spec.loader is not None:
            exec_pytensor = spec.loader.exec_module

            def exec_pytensor_then_register(module):
                exec_pytensor(module)
                cls.register()

            spec.loader.exec_module = exec_pytensor_then_register
        return spec

    @staticmethod
    def register():
        try:
            import pytensor.link.onnx  # noqa: F401
        except Exception as exc:  # never let a broken plug-in break `import pytensor`
            import warnings

            warnings.warn(
                f'mode="ONNX" is unavailable: importing pytensor.link.onnx failed: {exc!r}',
                stacklevel=2,
            )


def install():
    """Add the finder unless PyTensor is already imported (then register now)."""
    if "pytensor" in sys.modules:
        RegisterONNXModeOnPyTensorImport.register()
    elif RegisterONNXModeOnPyTensorImport not in sys.meta_path:
        sys.meta_path.insert(0, RegisterONNXModeOnPyTensorImport)


install()
