from pytensor.link.onnx.dispatch.basic import onnx_funcify  # noqa: F401
