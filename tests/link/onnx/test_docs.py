"""The documentation builds without warnings; its code and the example run.

The docs' code snippets are ``testcode`` blocks run by Sphinx's doctest
builder; the README's Python block and the main example run as scripts.
"""

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parents[3]
DOCS = REPO_ROOT / "docs"


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


# The converters a fresh interpreter registers: this test process also holds
# converters that test modules register for Ops of their own.
FRESH_REGISTRY = """
import json
from pytensor.graph.op import Op
from pytensor.link.onnx.dispatch import onnx_funcify

print(json.dumps({
    f"{cls.__module__}.{cls.__qualname__}": converter.__module__
    for cls, converter in onnx_funcify.registry.items()
    if issubclass(cls, Op)
}))
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
    assert registered
    section_starts = {module: page.index(module) for module in set(registered.values())}
    for op, module in registered.items():
        assert f"{op}<" in page, f"{op} ({module}) is missing from the table"
        position = page.index(f"{op}<")  # `<`: not a prefix of a longer name
        _, section = max(
            (start, name) for name, start in section_starts.items() if start < position
        )
        assert section == module, f"{op} is not listed under {module}"


@pytest.mark.slow
def test_doc_snippets_run(tmp_path):
    sphinx_build("doctest", tmp_path)


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
