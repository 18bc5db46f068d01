"""The directives of the supported-Op page, computed when the docs are built.

``supported-ops`` lists the converters of the ``onnx_funcify`` registry, with
its complex and batched overloads, by the module that defines them.
``backend-coverage`` lists every Op class that PyTensor's JAX or Numba backend
converts (and every one that ours does) with its ONNX status;
``backend-coverage-summary`` counts them.

The Numba registry is read after importing its dispatch modules. The JAX one
cannot be (jax is not a dependency): its ``jax_funcify.register(X)`` calls are
read from the source of the installed ``pytensor.link.jax.dispatch`` modules,
and each ``X`` is resolved through the module's imports.
"""

import ast
import importlib
import inspect
import textwrap
from collections import defaultdict
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective


JAX_DISPATCH = "pytensor.link.jax.dispatch"
ONNX_DISPATCH = "pytensor.link.onnx.dispatch"
REASONS_FILE = "docs/_ext/unsupported_ops.py"

logger = logging.getLogger(__name__)


def class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


SLOT_DESCRIPTIONS = {
    "real": "real values",
    "complex": "complex values",
    "batched": "``Blockwise``",
}


def is_graph_op(cls) -> bool:
    """Whether ``cls`` is an Op users' graphs hold, not one the graph
    conversion makes for itself (``fusions.ConversionOnlyOp``)."""
    from pytensor.graph.op import Op

    from pytensor.link.onnx.fusions import ConversionOnlyOp

    return (
        isinstance(cls, type)
        and issubclass(cls, Op)
        and not issubclass(cls, ConversionOnlyOp)
    )


def registered_ops():
    """Map each module of a converter to ``(Op class path, converter name,
    slot description)`` triples, for every slot of the ``onnx_funcify`` registry."""
    from pytensor.link.onnx.dispatch import onnx_funcify

    by_module = defaultdict(list)
    for slot, cls, converter in onnx_funcify.entries():
        if is_graph_op(cls):
            by_module[converter.__module__].append(
                (class_path(cls), converter.__name__, SLOT_DESCRIPTIONS[slot])
            )
    return {module: sorted(ops) for module, ops in sorted(by_module.items())}


def imported_names(tree: ast.Module, module: str, is_package: bool) -> dict:
    """Map each name a module imports or defines to its dotted path."""
    package = module if is_package else module.rpartition(".")[0]
    names = {
        node.name: f"{module}.{node.name}"
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
    return names


def dotted_path(expr: ast.expr, names: dict, where: str) -> str:
    if isinstance(expr, ast.Name) and expr.id in names:
        return names[expr.id]
    if isinstance(expr, ast.Attribute):
        return f"{dotted_path(expr.value, names, where)}.{expr.attr}"
    raise ValueError(
        f"{where}: cannot resolve the registered class {ast.unparse(expr)!r}; "
        "extend the parser of docs/_ext/supported_ops.py"
    )


def registrations_in_source(
    source: str, module: str, registry: str, is_package: bool = False
) -> list[str]:
    """The dotted paths of the classes that ``source`` registers in ``registry``.

    Finds ``@registry.register(X)`` decorators and ``registry.register(X)(f)``
    calls, and resolves ``X`` through the module's imports and class
    definitions (``module`` is the source's module name, to resolve relative
    imports and local classes).

    Raises
    ------
    ValueError
        If a registered class is not a (dotted) name the module imports or
        defines.
    """
    tree = ast.parse(source)
    names = imported_names(tree, module, is_package)
    return [
        dotted_path(node.args[0], names, f"{module}, line {node.lineno}")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == registry
        and node.args
    ]


def jax_registered_paths() -> list[str]:
    """The dotted paths of the classes the installed JAX backend registers."""
    import pytensor

    root = Path(pytensor.__file__).parent
    package_dir = root / JAX_DISPATCH.removeprefix("pytensor.").replace(".", "/")
    paths = []
    for file in sorted(package_dir.rglob("*.py")):
        parts = file.relative_to(root.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        paths += registrations_in_source(
            file.read_text(), module, "jax_funcify", is_package
        )
    return paths


def import_class(path: str) -> type | None:
    """The class at a dotted path, or ``None`` if its module needs jax to import."""
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] == "pytensor":
            raise
        return None


@cache
def always_raises(converter) -> bool:
    """Whether a converter's body is nothing but a ``raise``: it rejects every node."""
    try:
        source = textwrap.dedent(inspect.getsource(converter))
    except (OSError, TypeError):
        return False
    [function] = ast.parse(source).body
    if not isinstance(function, ast.FunctionDef):
        return False
    body = function.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    ):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def registered_base(cls: type, classes) -> type | None:
    """The class of ``classes`` whose converter a registry dispatches ``cls`` to."""
    return next((base for base in cls.__mro__ if base in classes), None)


def all_subclasses(cls: type) -> set[type]:
    subclasses = set()
    for subclass in cls.__subclasses__():
        subclasses |= {subclass, *all_subclasses(subclass)}
    return subclasses


@dataclass
class CoverageRow:
    """The ONNX status of one class that a backend registers.

    Attributes
    ----------
    path
        ``module.QualName`` of the class.
    jax, numba
        Whether the JAX / Numba backend registers it.
    is_op
        Whether it is an ``Op`` (the graph classes are not).
    converter_module
        The module of its ONNX converter, or ``None`` if it does not convert.
    reason
        Why it does not convert, or ``None``.
    fall_through
        ``(path, reason)`` of the classes without a registration of their own
        that JAX or Numba convert with this class's converter but ONNX cannot.
    """

    path: str
    jax: bool
    numba: bool
    is_op: bool
    converter_module: str | None
    reason: str | None = None
    fall_through: list[tuple[str, str | None]] = field(default_factory=list)

    @property
    def converts(self) -> bool:
        return self.converter_module is not None


@dataclass
class Coverage:
    """Every class of the JAX, Numba and ONNX registries and its ONNX status.

    Attributes
    ----------
    rows
        One per class, sorted by path.
    reasons
        The reasons for classes that do not convert, by class path pattern.
    converting
        The paths of all loaded Op and graph classes that convert.
    """

    rows: list[CoverageRow]
    reasons: dict[str, str]
    converting: set[str]

    @property
    def backend_ops(self) -> list[CoverageRow]:
        """The rows of the Op classes that JAX or Numba convert."""
        return [row for row in self.rows if row.is_op and (row.jax or row.numba)]

    @property
    def problems(self) -> list[str]:
        """What makes ``reasons`` wrong for the classes that do or do not convert.

        Every class that does not convert needs exactly one reason, and every
        reason must match such a class and no class that converts.
        """
        unconverted = [row.path for row in self.rows if not row.converts] + [
            path for row in self.rows for path, _ in row.fall_through
        ]
        problems = []
        for path in unconverted:
            patterns = matching_patterns(path, self.reasons)
            if len(patterns) != 1:
                problems.append(
                    f"{path} does not convert to ONNX and has {len(patterns)} "
                    f"reasons {patterns} in {REASONS_FILE} instead of one"
                )
        for pattern in self.reasons:
            if converting := sorted(
                path for path in self.converting if fnmatchcase(path, pattern)
            ):
                problems.append(
                    f"the reason {pattern!r} in {REASONS_FILE} matches "
                    f"{converting}, which convert to ONNX: remove or narrow it"
                )
            elif not any(fnmatchcase(path, pattern) for path in unconverted):
                problems.append(
                    f"the reason {pattern!r} in {REASONS_FILE} matches no class "
                    "that a backend registers and ONNX does not convert: remove it"
                )
        return problems


def matching_patterns(path: str, reasons: dict[str, str]) -> list[str]:
    return [pattern for pattern in reasons if fnmatchcase(path, pattern)]


def default_reasons() -> dict[str, str]:
    """The reasons that apply to the installed PyTensor.

    Those of ``unsupported_ops.py``, and those converters give for the Ops
    they reject outright (``UNSUPPORTED_OP_REASONS``).
    """
    from unsupported_ops import PYTENSOR_3_REASONS, REASONS

    import pytensor
    from pytensor.link.onnx.dispatch.variables import UNSUPPORTED_OP_REASONS

    reasons = {class_path(cls): r for cls, r in UNSUPPORTED_OP_REASONS.items()}
    for path in reasons.keys() & REASONS.keys():
        raise ValueError(f"{path} has a reason in its converter and in {REASONS_FILE}")
    if int(pytensor.__version__.partition(".")[0]) >= 3:
        return reasons | REASONS | PYTENSOR_3_REASONS
    return reasons | REASONS


@cache
def backend_coverage(reasons: tuple[tuple[str, str], ...] | None = None) -> Coverage:
    """The ONNX status of every class of the JAX, Numba and ONNX registries.

    ``reasons`` (``(class path pattern, reason)`` pairs) default to
    `default_reasons`.
    """
    import pytensor.link.numba.dispatch  # noqa: F401  (fills the registry)
    from pytensor.graph.fg import FunctionGraph
    from pytensor.graph.op import Op
    from pytensor.link.numba.dispatch.basic import numba_funcify

    from pytensor.link.onnx.dispatch import onnx_funcify

    reasons = default_reasons() if reasons is None else dict(reasons)
    default = onnx_funcify.registry[object]

    def converter_module(cls):
        converter = onnx_funcify.dispatch(cls)
        if converter is default or always_raises(converter):
            if not onnx_funcify.has(cls, complex=True):
                return None
            # an Op for complex numbers only (Real, Complex...)
            converter = onnx_funcify.dispatch(cls, complex=True)
        return converter.__module__

    def reason(path):
        patterns = matching_patterns(path, reasons)
        return reasons[patterns[0]] if patterns else None

    jax = {}
    for static_path in jax_registered_paths():
        cls = import_class(static_path)
        jax[class_path(cls) if cls else static_path] = cls
    numba = {
        class_path(cls): cls for cls in numba_funcify.registry if cls is not object
    }
    onnx = {
        class_path(cls): cls for _, cls, _ in onnx_funcify.entries() if is_graph_op(cls)
    }
    jax_classes, numba_classes = set(jax.values()), set(numba.values())
    registered = jax_classes | numba_classes | set(onnx.values())

    def fall_through(cls):
        def backends_use_converter_of_cls(subclass):
            return cls in (
                registered_base(subclass, jax_classes),
                registered_base(subclass, numba_classes),
            )

        # Leaf classes: the intermediate ones are abstract (UnaryScalarOp, ...)
        return sorted(
            (class_path(subclass), reason(class_path(subclass)))
            for subclass in all_subclasses(cls)
            if not subclass.__subclasses__()
            and subclass not in registered
            and backends_use_converter_of_cls(subclass)
            and converter_module(subclass) is None
        )

    rows = []
    for path in sorted(jax.keys() | numba.keys() | onnx.keys()):
        cls = jax.get(path) or numba.get(path) or onnx.get(path)
        module = converter_module(cls) if cls else None
        rows.append(
            CoverageRow(
                path=path,
                jax=path in jax,
                numba=path in numba,
                # Classes that need jax to import are the JAX backend's own Ops
                is_op=cls is None or issubclass(cls, Op),
                converter_module=module,
                reason=None if module else reason(path),
                fall_through=fall_through(cls) if cls and not module else [],
            )
        )
    # FunctionGraph and, in PyTensor 3, AbstractFunctionGraph
    graphs = [c for c in FunctionGraph.__mro__ if c.__module__ == "pytensor.graph.fg"]
    loaded = set(graphs).union(all_subclasses(Op), *map(all_subclasses, graphs))
    converting = {class_path(cls) for cls in loaded if converter_module(cls)}
    return Coverage(rows, reasons, converting)


def short_path(path: str) -> str:
    """``Name (module)``: class paths are too long for the table's cells."""
    module, _, name = path.rpartition(".")
    return f"``{name}`` ({module})"


def onnx_status(row: CoverageRow) -> list[str]:
    """The lines of the ONNX cell of a coverage table row."""
    if row.converts:
        return [f"``{row.converter_module.removeprefix(ONNX_DISPATCH + '.')}``"]
    lines = [f"not supported: {row.reason}"]
    if row.fall_through:
        lines += [
            "",
            "Classes that JAX or Numba convert with this class's converter:",
            "",
        ]
        lines += [f"- {short_path(path)}: {why}" for path, why in row.fall_through]
    return lines


def coverage_tables(coverage: Coverage) -> list[str]:
    """One table per module of the classes, as they are too long for cells."""
    by_module = defaultdict(list)
    for row in coverage.rows:
        by_module[row.path.rpartition(".")[0]].append(row)
    lines = []
    for module, rows in by_module.items():
        lines += [
            f".. rubric:: ``{module}``",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "   :width: 100%",
            "   :widths: 30 8 8 54",
            "",
            "   * - Class",
            "     - JAX",
            "     - Numba",
            "     - ONNX",
        ]
        for row in rows:
            [first, *rest] = onnx_status(row)
            lines += [
                f"   * - ``{row.path.rpartition('.')[2]}``",
                f"     - {'yes' if row.jax else ''}",
                f"     - {'yes' if row.numba else ''}",
                f"     - {first}",
                *(f"       {line}" if line else "" for line in rest),
            ]
        lines.append("")
    return lines


def coverage_summary(coverage: Coverage) -> str:
    import pytensor

    def count(rows):
        return f"{sum(row.converts for row in rows)} of {len(rows)}"

    ops = coverage.backend_ops
    jax = [row for row in ops if row.jax]
    numba = [row for row in ops if row.numba]
    only_onnx = [
        row
        for row in coverage.rows
        if row.is_op and row.converts and not (row.jax or row.numba)
    ]
    return (
        f"**{count(ops)} Op classes of PyTensor's JAX and Numba backends convert "
        f"to ONNX** (JAX: {count(jax)}, Numba: {count(numba)}; PyTensor "
        f"{pytensor.__version__}). The ONNX backend also converts "
        f"{len(only_onnx)} Op classes that neither of them registers."
    )


class BackendCoverage(SphinxDirective):
    """Insert the tables of every class of the JAX, Numba and ONNX registries.

    Warns of each problem of the reasons for the classes that do not convert.
    """

    def run(self):
        coverage = backend_coverage()
        for problem in coverage.problems:
            logger.warning(problem, location=self.get_location())
        return self.parse_text_to_nodes("\n".join(coverage_tables(coverage)))


class BackendCoverageSummary(SphinxDirective):
    """Insert the sentence that counts the JAX and Numba Op classes that convert."""

    def run(self):
        return self.parse_text_to_nodes(coverage_summary(backend_coverage()))


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
                "   :widths: 5 3 2",
                "",
                "   * - Op class",
                "     - Converter",
                "     - Of",
            ]
            for op, converter, slot in ops:
                lines += [
                    f"   * - ``{op}``",
                    f"     - ``{converter}``",
                    f"     - {slot}",
                ]
            lines.append("")
        return self.parse_text_to_nodes("\n".join(lines))


DIRECTIVES = {
    "supported-ops": SupportedOps,
    "backend-coverage": BackendCoverage,
    "backend-coverage-summary": BackendCoverageSummary,
}


def reread_generated_pages(app, env, added, changed, removed):
    """Rebuild the pages of these directives: the registries may have changed."""
    return [
        docname
        for docname in env.found_docs
        if any(
            f".. {directive}::" in Path(env.doc2path(docname)).read_text()
            for directive in DIRECTIVES
        )
    ]


def setup(app):
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("env-get-outdated", reread_generated_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
