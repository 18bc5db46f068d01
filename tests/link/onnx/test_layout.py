"""The package's layers: imports only run downwards, and no module reaches itself.

Every ``import`` of a ``pytensor.link.onnx`` module counts, at the top of a
module or inside a function. From the bottom up, the layers are the core (the
value vocabulary, the builder, kernel facts, the rewrite configuration,
fusions and graph passes), the numerics (algorithms written as ONNX graphs),
the converters (``dispatch``), the mode's PyTensor rewrites (some weigh calls
by the nodes their converters add), and the entry points: the runtime (linker,
mode, session), export and import. Within the converters, each module is a
room of its own: it imports only the modules converters share, never another
converter module.
"""

import ast
import re
from pathlib import Path

import pytest

import pytensor.link.onnx


PACKAGE = "pytensor.link.onnx"
ROOT = Path(pytensor.link.onnx.__file__).parent
CORE, NUMERICS, CONVERTERS, REWRITES, ENTRY_POINTS = range(5)
LAYER_OF_SUBPACKAGE = {
    "value": CORE,
    "complex_pairs": CORE,
    "builder": CORE,
    "kernels": CORE,
    "rewrites.configuration": CORE,
    "passes": CORE,
    "fusions": CORE,
    "numerics": NUMERICS,
    "dispatch": CONVERTERS,
    "rewrites": REWRITES,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def layer(module: str) -> int:
    """The layer of the longest entry of `LAYER_OF_SUBPACKAGE` that holds ``module``."""
    parts = module.removeprefix(PACKAGE).lstrip(".").split(".")
    for length in range(len(parts), 0, -1):
        name = ".".join(parts[:length])
        if name in LAYER_OF_SUBPACKAGE:
            return LAYER_OF_SUBPACKAGE[name]
    return ENTRY_POINTS


def package_imports(path: Path) -> set[str]:
    """The package modules ``path`` imports, wherever the import stands."""
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        imported.update(name for name in names if name in modules)
    return imported


IMPORTS = {module_name(path): package_imports(path) for path in ROOT.rglob("*.py")}


def test_the_layers_were_found():
    layers = {layer(module) for module in IMPORTS}
    assert layers == {CORE, NUMERICS, CONVERTERS, REWRITES, ENTRY_POINTS}


@pytest.mark.parametrize("module", sorted(IMPORTS))
def test_imports_run_downwards(module):
    upward = sorted(
        imported
        for imported in IMPORTS[module]
        if layer(imported) > layer(module) and imported != PACKAGE
    )
    assert not upward, f"{module} imports from a higher layer: {upward}"


def test_no_module_reaches_itself_through_imports():
    def reachable(start):
        seen, stack = set(), [start]
        while stack:
            for imported in IMPORTS.get(stack.pop(), ()):
                if imported not in seen:
                    seen.add(imported)
                    stack.append(imported)
        return seen

    cycles = sorted(m for m in IMPORTS if m in reachable(m) and m != PACKAGE)
    assert not cycles, f"modules in import cycles: {cycles}"


PYMC_MODULES = sorted((ROOT / "pymc").rglob("*.py"))


def pymc_names_imported(path: Path) -> set[str]:
    """The names ``path`` imports from PyMC (``from pymc.x import Name``)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").partition(".")[0] == "pymc"
        for alias in node.names
    }


def test_only_the_pymc_subpackage_knows_pymc():
    """PyMC's classes are registered from ``pymc/``: no other module imports
    PyMC, names one of the classes ``pymc/`` imports, or recognises PyMC's
    classes by their module."""
    import pytensor.tensor.random.basic as pytensor_random

    pymc_names = set().union(*map(pymc_names_imported, PYMC_MODULES))
    pymc_names -= set(dir(pytensor_random))  # WaldRV is PyTensor's too
    assert {"TruncatedNormalRV", "SplineWrapper"} <= pymc_names
    word = re.compile(rf"\b({'|'.join(sorted(pymc_names))})\b")
    for path in set(ROOT.rglob("*.py")) - set(PYMC_MODULES):
        source = path.read_text()
        assert not pymc_names_imported(path), path
        assert not re.search(r"[\"']pymc[\"']", source), path
        assert not word.search(source), (path, word.search(source))


DISPATCH = f"{PACKAGE}.dispatch"
# The modules converter modules share: the registry and the graph
# conversion, the types of values, and helpers named for what they hold
SHARED_BY_CONVERTERS = {
    *("registry", "basic", "variables"),
    *("operands", "lengths", "batches", "inner_graphs"),
}


def dispatch_room(module: str) -> str | None:
    """The module (or subpackage) of ``dispatch`` that ``module`` belongs to."""
    if not module.startswith(f"{DISPATCH}."):
        return None
    return module.removeprefix(f"{DISPATCH}.").split(".")[0]


def test_converter_modules_import_no_other_converter_module():
    """A converter module imports only the modules converters share, so that
    editing one family of converters never edits another."""
    crossing = {
        (room, imported_room)
        for module, imported in IMPORTS.items()
        if (room := dispatch_room(module)) is not None
        for imported_room in map(dispatch_room, imported)
        if imported_room not in (None, room, *SHARED_BY_CONVERTERS)
    }
    assert not crossing


MAX_DISPATCH_LINES = 400


def test_dispatch_modules_stay_short():
    dispatch = ROOT / "dispatch"
    longer = {
        ".".join(path.relative_to(dispatch).with_suffix("").parts)
        for path in dispatch.rglob("*.py")
        if len(path.read_text().splitlines()) > MAX_DISPATCH_LINES
    }
    assert not longer
