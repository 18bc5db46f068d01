"""The ``onnx-import-ops`` directive: which ONNX ops ``import_onnx`` imports.

Computed when the docs are built from the importer's handler table and the
installed onnx's operator schemas: each op of the default domain is imported
by a handler (named with its module and opset range), by expanding the
function body of its ONNX schema, or not at all.
"""

from collections import defaultdict

from sphinx.util.docutils import SphinxDirective


HANDLER_PACKAGE = "pytensor.link.onnx.importer.ops."


def import_status():
    """``{op_type: (status, detail)}`` for every op of the default ONNX domain."""
    import onnx.defs

    from pytensor.link.onnx.importer.ops import HANDLERS, load_families

    load_families()
    latest = {}
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain in ("", "ai.onnx") and not schema.deprecated:
            latest.setdefault(schema.name, schema)
            if schema.since_version > latest[schema.name].since_version:
                latest[schema.name] = schema
    handlers = defaultdict(list)
    for (domain, op_type), entries in HANDLERS.items():
        if not domain:
            for since, until, handler in entries:
                handlers[op_type].append((since, until, handler))
    status = {}
    for op_type in sorted(latest):
        schema = latest[op_type]
        if op_type in handlers:
            status[op_type] = ("handler", handler_detail(handlers[op_type]))
        elif schema.has_function or schema.has_context_dependent_function:
            status[op_type] = ("function", "expanded from its ONNX function body")
        else:
            status[op_type] = ("unsupported", "")
    return status


def handler_detail(entries):
    parts = []
    for since, until, handler in sorted(entries, key=lambda entry: entry[0]):
        module = handler.__module__.removeprefix(HANDLER_PACKAGE)
        if since == 1 and until == float("inf"):
            parts.append(f"``{module}``")
        else:
            upper = "" if until == float("inf") else str(until)
            parts.append(f"``{module}`` (opset {since} to {upper})")
    return ", ".join(dict.fromkeys(parts))


class ImportOps(SphinxDirective):
    """A table of every default-domain ONNX op and how it is imported."""

    def run(self):
        status = import_status()
        counts = defaultdict(int)
        for kind, _ in status.values():
            counts[kind] += 1
        lines = [
            f"**{counts['handler']} ops have handlers, {counts['function']} more are "
            f"imported through their ONNX function body, {counts['unsupported']} are "
            f"not supported** (of the {len(status)} ops of the default domain of the "
            "installed onnx).",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 2 5",
            "",
            "   * - ONNX op",
            "     - Imported by",
        ]
        for op_type, (kind, detail) in status.items():
            text = {
                "handler": detail,
                "function": detail,
                "unsupported": "not supported",
            }
            lines += [f"   * - ``{op_type}``", f"     - {text[kind]}"]
        return self.parse_text_to_nodes("\n".join(lines))


def setup(app):
    app.add_directive("onnx-import-ops", ImportOps)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
