"""The ``supported-ops`` directive: the tables of Ops that have an ONNX converter.

The tables are generated from the ``onnx_funcify`` registry when the docs are
built, so they list exactly the converters of the installed package, grouped
by the dispatch module that registered them.
"""

from collections import defaultdict

from sphinx.util.docutils import SphinxDirective


def registered_ops():
    """Map each dispatch module to ``(Op class path, converter name)`` pairs."""
    from pytensor.graph.op import Op

    from pytensor.link.onnx.dispatch import onnx_funcify

    by_module = defaultdict(list)
    for cls, converter in onnx_funcify.registry.items():
        if isinstance(cls, type) and issubclass(cls, Op):
            op = f"{cls.__module__}.{cls.__qualname__}"
            by_module[converter.__module__].append((op, converter.__name__))
    return {module: sorted(ops) for module, ops in sorted(by_module.items())}


class SupportedOps(SphinxDirective):
    """Insert one table per dispatch module."""

    def run(self):
        lines = []
        for module, ops in registered_ops().items():
            lines += [
                f".. rubric:: ``{module}``",
                "",
                ".. list-table::",
                "   :header-rows: 1",
                "   :widths: 3 2",
                "",
                "   * - Op class",
                "     - Converter",
            ]
            for op, converter in ops:
                lines += [f"   * - ``{op}``", f"     - ``{converter}``"]
            lines.append("")
        return self.parse_text_to_nodes("\n".join(lines))


def setup(app):
    app.add_directive("supported-ops", SupportedOps)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
