"""The exceptions of the ONNX importer."""


class ONNXImportError(ValueError):
    """A file or model that is not a valid, safe ONNX model."""


class UnsupportedONNXError(NotImplementedError):
    """Everything in a model that cannot be imported, reported at once.

    Attributes
    ----------
    problems
        ``(what, where, why)`` triples: an op type or a value type, the node or
        value it belongs to, and why it cannot be imported.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        lines = [f"  - {what} at {where}: {why}" for what, where, why in self.problems]
        super().__init__(
            f"This ONNX model cannot be imported into PyTensor; "
            f"{len(self.problems)} unsupported item(s):\n"
            + "\n".join(lines)
            + "\nRewrite these parts of the model, or register a handler for the "
            "op with pytensor.link.onnx.importer.ops.onnx_op."
        )
