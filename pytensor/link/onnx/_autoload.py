"""Make ``mode="ONNX"`` available as soon as PyTensor is imported.

PyTensor has no plugin entry points, so the distribution installs a
``pytensor_onnx.pth`` file that runs this source at interpreter start-up.
It only adds a meta-path finder: nothing is imported until the program
itself imports ``pytensor``. Then the finder

* lets PyTensor's ``mode`` setting accept ``"ONNX"`` as it accepts
  ``"JAX"``: PyTensor checks ``PYTENSOR_FLAGS=mode=...`` against a fixed list
  while ``import pytensor`` defines its settings, before any plug-in could
  register a mode;
* imports ``pytensor.link.onnx`` once PyTensor's ``__init__`` has run, which
  registers the ``"onnx"`` linker and the ``"ONNX"`` mode.

The build embeds this file in the ``.pth`` (see ``setup.py``).
"""

import sys


ONNX_MODE = "ONNX"


def accept_onnx_mode(configparam):
    """Make the config parameter ``mode`` accept ``"ONNX"`` besides what it accepts."""
    filter_mode = configparam._apply
    if getattr(filter_mode, "accepts_onnx", False):
        return

    def filter_mode_or_onnx(value):
        if value == ONNX_MODE:
            return value
        return filter_mode(value)

    filter_mode_or_onnx.accepts_onnx = True
    configparam._apply = filter_mode_or_onnx


def accept_onnx_mode_when_added(config_parser_class):
    """Wrap ``PyTensorConfigParser.add`` to apply `accept_onnx_mode` to ``mode``."""
    add = config_parser_class.add

    def add_accepting_onnx(self, name, doc, configparam, *args, **kwargs):
        if name == "mode":
            accept_onnx_mode(configparam)
        return add(self, name, doc, configparam, *args, **kwargs)

    config_parser_class.add = add_accepting_onnx


class RegisterONNXModeOnPyTensorImport:
    """Meta-path finder that prepares PyTensor's settings for the ONNX mode
    and registers the mode right after ``import pytensor``."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "pytensor":
            return cls.spec_running_after(fullname, cls.register)
        if fullname == "pytensor.configparser":
            sys.meta_path.remove(cls)
            return cls.spec_running_after(
                fullname,
                lambda module: accept_onnx_mode_when_added(module.PyTensorConfigParser),
            )
        return None

    @classmethod
    def spec_running_after(cls, fullname, after):
        """The module's spec, with ``after(module)`` run once the module has run."""
        from importlib.util import find_spec

        in_meta_path = cls in sys.meta_path
        if in_meta_path:
            sys.meta_path.remove(cls)
        try:
            spec = find_spec(fullname)
        finally:
            if in_meta_path:
                sys.meta_path.insert(0, cls)
        if spec is not None and spec.loader is not None:
            exec_module = spec.loader.exec_module

            def exec_then(module):
                exec_module(module)
                after(module)

            spec.loader.exec_module = exec_then
        return spec

    @staticmethod
    def register(module=None):
        try:
            import pytensor.link.onnx  # noqa: F401
        except Exception as exc:  # never let a broken plug-in break `import pytensor`
            import warnings

            warnings.warn(
                f'mode="ONNX" is unavailable: importing pytensor.link.onnx failed: {exc!r}',
                stacklevel=2,
            )


def install():
    """Add the finder unless PyTensor is already imported (then do its work now)."""
    if "pytensor" in sys.modules:
        accept_onnx_mode(sys.modules["pytensor"].config._config_var_dict["mode"])
        RegisterONNXModeOnPyTensorImport.register()
    elif RegisterONNXModeOnPyTensorImport not in sys.meta_path:
        sys.meta_path.insert(0, RegisterONNXModeOnPyTensorImport)


if __name__ == "pytensor_onnx_autoload":
    install()
