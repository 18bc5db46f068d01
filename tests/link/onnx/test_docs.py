"""The documentation builds without warnings; its code and the example run.

The docs' code snippets are ``testcode`` blocks run by Sphinx's doctest
builder; the README's Python block and the main example run as scripts. The
supported-Op page compares our registry with the JAX and Numba ones and says
why each class that does not convert doesn't.
"""

import html
import importlib.util
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parents[3]
DOCS = REPO_ROOT / "docs"
EXTENSIONS = DOCS / "_ext"


@pytest.fixture(scope="module")
def supported_ops():
    """The docs' extension module (it imports Sphinx)."""
    spec = importlib.util.spec_from_file_location(
        "supported_ops", EXTENSIONS / "supported_ops.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sphinx_build(builder, out_dir):
    """Build the docs, with every warning an error."""
    options = ["-W", "--keep-going", "-q", "-b", builder]
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", *options, DOCS, out_dir],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def html_dir(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("html")
    sphinx_build("html", out_dir)
    return out_dir


@pytest.mark.slow
def test_html_builds_without_warnings(html_dir):
    assert (html_dir / "index.html").exists()


# The converters a fresh interpreter registers, in every slot: this test
# process also holds converters that test modules register for Ops of their own.
FRESH_REGISTRY = """
import json
from pytensor.graph.op import Op
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.fusions import ConversionOnlyOp

print(json.dumps(sorted({
    (f"{cls.__module__}.{cls.__qualname__}", converter.__module__)
    for _, cls, converter in onnx_funcify.entries()
    if issubclass(cls, Op) and not issubclass(cls, ConversionOnlyOp)
})))
"""


@pytest.mark.slow
def test_supported_ops_table_lists_every_registered_op_under_its_module(
    html_dir, tmp_path
):
    page = html.unescape((html_dir / "supported_ops.html").read_text())
    result = subprocess.run(
        [sys.executable, "-c", FRESH_REGISTRY],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    registered = json.loads(result.stdout)
    modules = {module for _, module in registered}
    assert "pytensor.link.onnx.dispatch.complex.elementwise" in modules
    section_starts = sorted((page.index(f">{module}<"), module) for module in modules)

    def section_of(position):
        return max((start, m) for start, m in section_starts if start < position)[1]

    for op, module in registered:
        # `<`: not a prefix of a longer name
        positions = [m.start() for m in re.finditer(re.escape(f"{op}<"), page)]
        assert positions, f"{op} ({module}) is missing from the table"
        assert module in map(section_of, positions), f"{op} is not under {module}"


@pytest.mark.slow
def test_doc_snippets_run(tmp_path):
    sphinx_build("doctest", tmp_path)


# Python shown but not run, because it is a part of a larger file: a snippet
# a reader can paste and run is a ``testcode`` block (run by the test above).
PYTHON_EXCERPTS = {
    "adding_a_converter.rst": "@onnx_funcify.register(SomeOp)",  # a template
    "tutorial_browser.rst": "export_onnx(",  # from examples/onnx_demo/train.py
    "exporting.rst": "import onnxruntime",  # examples/posterior_predictive_export.py
}


def test_python_in_the_docs_runs_unless_it_is_an_excerpt():
    blocks = re.compile(r"^\.\. code-block:: python\n\n +(\S.*)$", re.MULTILINE)
    for page in DOCS.glob("*.rst"):
        for first_line in blocks.findall(page.read_text(encoding="utf-8")):
            assert PYTHON_EXCERPTS.get(page.name) == first_line, (
                f"{page.name}: a `code-block:: python` ({first_line!r}) that no "
                "test runs: make it a `testcode` block"
            )


@pytest.mark.slow
def test_readme_snippet_runs(tmp_path):
    readme = (REPO_ROOT / "README.md").read_text()
    [snippet] = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    result = subprocess.run(
        [sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "model.onnx").exists()


@pytest.mark.slow
def test_main_example_trains_exports_and_agrees(tmp_path):
    model = tmp_path / "model.onnx"
    script = REPO_ROOT / "examples" / "logistic_regression.py"
    result = subprocess.run(
        [sys.executable, script, model], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    accuracies = re.findall(r"accuracy .*: +([\d.]+)%", result.stdout)
    assert len(accuracies) == 2
    assert accuracies[0] == accuracies[1]
    assert float(accuracies[0]) > 90
    assert model.exists()


def fresh_interpreter_json(code, tmp_path):
    """Run ``code`` in a fresh interpreter that imports the docs' extensions.

    This test process holds converters and Op classes of test modules, that a
    docs build does not; ``code`` prints one JSON value.
    """
    script = tmp_path / "script.py"
    setup = f"import json, sys\nsys.path.insert(0, {str(EXTENSIONS)!r})\n"
    script.write_text(setup + textwrap.dedent(code))
    result = subprocess.run(
        [sys.executable, script], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


COVERAGE_JSON = """
from dataclasses import asdict
from supported_ops import backend_coverage, coverage_summary

coverage = backend_coverage()
print(json.dumps({
    "rows": [asdict(row) for row in coverage.rows],
    "problems": coverage.problems,
    "summary": coverage_summary(coverage),
}))
"""


@pytest.fixture(scope="module")
def coverage(tmp_path_factory):
    return fresh_interpreter_json(COVERAGE_JSON, tmp_path_factory.mktemp("coverage"))


def test_every_unconverted_backend_class_has_one_reason_and_no_reason_is_stale(
    coverage,
):
    assert not coverage["problems"], "\n".join(coverage["problems"])


def test_the_coverage_counts_every_op_class_of_both_backends(coverage):
    numba_ops = [row for row in coverage["rows"] if row["numba"] and row["is_op"]]
    jax_ops = [row for row in coverage["rows"] if row["jax"] and row["is_op"]]
    assert len(numba_ops) > 100 and len(jax_ops) > 80
    converting = sum(row["converter_module"] is not None for row in numba_ops)
    assert f"Numba: {converting} of {len(numba_ops)}" in coverage["summary"]


MECHANISM = """
from pytensor.scalar.basic import UnaryScalarOp

from pytensor.link.onnx.dispatch import onnx_funcify
from supported_ops import backend_coverage, default_reasons


class Explained(UnaryScalarOp):
    pass


class Unexplained(UnaryScalarOp):
    pass


class Rejected(UnaryScalarOp):
    pass


class Converted(UnaryScalarOp):
    pass


@onnx_funcify.register(Rejected)
def onnx_funcify_Rejected(op, node, builder, inputs, **kwargs):
    \"\"\"Reject every node.\"\"\"
    raise NotImplementedError("never converts")


@onnx_funcify.register(Converted)
def onnx_funcify_Converted(op, node, builder, inputs, **kwargs):
    if node is None:
        raise NotImplementedError("needs a node")
    return [builder.add("Neg", inputs)]


reasons = {
    **default_reasons(),
    "__main__.Explained": "explained",
    "__main__.Rejected": "rejected",
    "__main__.Converted": "stale",
    "__main__.Missing": "no such class",
}
coverage = backend_coverage(tuple(reasons.items()))
rows = {row.path: row for row in coverage.rows}
print(json.dumps({
    "scalar_op_fall_through": rows["pytensor.scalar.basic.ScalarOp"].fall_through,
    "rejected": [rows["__main__.Rejected"].converts, rows["__main__.Rejected"].reason],
    "converted": rows["__main__.Converted"].converter_module,
    "problems": [p for p in coverage.problems if "__main__" in p],
}))
"""


def test_coverage_reports_classes_without_reason_and_stale_reasons(tmp_path):
    result = fresh_interpreter_json(MECHANISM, tmp_path)
    # JAX and Numba convert new scalar Ops with their ScalarOp converter
    assert ["__main__.Explained", "explained"] in result["scalar_op_fall_through"]
    assert ["__main__.Unexplained", None] in result["scalar_op_fall_through"]
    # A converter that only raises converts nothing; one that may raise does
    assert result["rejected"] == [False, "rejected"]
    assert result["converted"] == "__main__"
    [unexplained, stale, unused] = result["problems"]
    assert unexplained.startswith("__main__.Unexplained does not convert")
    assert "'__main__.Converted'" in stale and "which convert to ONNX" in stale
    assert "'__main__.Missing'" in unused and "matches no class" in unused


def converter_raising_after_docstring(op, node, builder, inputs, **kwargs):
    """Reject every node."""
    raise NotImplementedError("unsupported")


def converter_raising_sometimes(op, node, builder, inputs, **kwargs):
    if node is None:
        raise NotImplementedError("unsupported")
    return list(inputs)


def converter_computing_its_message(op, node, builder, inputs, **kwargs):
    message = f"{op} is unsupported"
    raise NotImplementedError(message)


@pytest.mark.parametrize(
    "converter, expected",
    [
        (converter_raising_after_docstring, True),
        (converter_raising_sometimes, False),
        (converter_computing_its_message, False),
        (len, False),  # no Python source
    ],
)
def test_always_raises_only_for_a_body_that_is_one_raise(
    converter, expected, supported_ops
):
    assert supported_ops.always_raises(converter) is expected


JAX_STYLE_SOURCE = """
import pytensor.tensor.random as ptr
from pytensor.graph.op import Op
from pytensor.tensor.math import Dot as TensorDot
from .basic import jax_funcify
from ..ops import JAXOp


class LocalOp(Op):
    pass


@jax_funcify.register(TensorDot)
@jax_funcify.register(ptr.RandomVariable)
def convert(op, **kwargs):
    pass


@other_registry.register(Op)
def not_jax(op, **kwargs):
    pass


jax_funcify.register(LocalOp)(convert)
jax_funcify.register(JAXOp)(convert)
"""


def test_jax_registrations_resolve_through_the_imports_of_their_module(supported_ops):
    paths = supported_ops.registrations_in_source(
        JAX_STYLE_SOURCE, "pytensor.link.jax.dispatch.mod", "jax_funcify"
    )
    assert sorted(paths) == [
        "pytensor.link.jax.dispatch.mod.LocalOp",
        "pytensor.link.jax.ops.JAXOp",
        "pytensor.tensor.math.Dot",
        "pytensor.tensor.random.RandomVariable",
    ]


def test_a_jax_registration_that_cannot_be_resolved_is_an_error(supported_ops):
    source = "for op in OPS:\n    jax_funcify.register(op)(convert)\n"
    with pytest.raises(ValueError, match=r"mod, line 2: cannot resolve .*'op'"):
        supported_ops.registrations_in_source(source, "mod", "jax_funcify")


def test_every_register_call_of_the_jax_backend_is_read(supported_ops):
    import pytensor

    jax_dispatch = Path(pytensor.__file__).parent / "link" / "jax" / "dispatch"
    calls = sum(
        file.read_text().count("jax_funcify.register(")
        for file in jax_dispatch.rglob("*.py")
    )
    assert len(supported_ops.jax_registered_paths()) == calls


def coverage_cells(page):
    """The cells of the coverage tables' rows, by the path of their class."""
    section = page[page.index('id="backend-coverage"') :]
    cells, module = {}, None
    for rubric, row in re.findall(
        r'<p class="rubric">(.*?)</p>|(<tr.*?</tr>)', section, flags=re.DOTALL
    ):
        text = [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<td.*?</td>", row, flags=re.DOTALL)
        ]
        if rubric:
            module = re.sub(r"<[^>]+>", "", rubric).strip()
        elif text:
            cells[f"{module}.{text[0]}"] = text[1:]
    return cells


@pytest.mark.slow
def test_coverage_tables_show_each_class_with_its_status(html_dir, coverage):
    page = html.unescape((html_dir / "supported_ops.html").read_text())
    counts = re.findall(r"\d+ of \d+", coverage["summary"])
    assert re.findall(r"\d+ of \d+", page)[: len(counts)] == counts
    cells = coverage_cells(page)
    assert list(cells) == [row["path"] for row in coverage["rows"]]
    for row in coverage["rows"]:
        jax, numba, onnx = cells[row["path"]]
        assert jax == ("yes" if row["jax"] else "")
        assert numba == ("yes" if row["numba"] else "")
        if row["converter_module"]:
            dispatch = "pytensor.link.onnx.dispatch."
            assert onnx == row["converter_module"].removeprefix(dispatch)
        else:
            assert onnx.startswith("not supported:")
            for path, _ in row["fall_through"]:
                module, _, name = path.rpartition(".")
                assert f"{name} ({module})" in onnx
