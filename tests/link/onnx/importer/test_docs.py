"""The importing page lists every ONNX op with how it is imported."""

import importlib.util
from pathlib import Path

import pytest


DOCS = Path(__file__).resolve().parents[4] / "docs"


@pytest.fixture(scope="module")
def import_ops():
    pytest.importorskip("sphinx")
    spec = importlib.util.spec_from_file_location(
        "import_ops", DOCS / "_ext/import_ops.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_in_the_toctree_and_holds_the_generated_table():
    assert "   importing\n" in (DOCS / "index.rst").read_text()
    assert ".. onnx-import-ops::" in (DOCS / "importing.rst").read_text()


def test_every_op_with_a_handler_is_listed_with_its_module(import_ops):
    from pytensor.link.onnx.importer.ops import HANDLERS

    status = import_ops.import_status()
    for domain, op_type in HANDLERS:
        if not domain and op_type in status:
            kind, detail = status[op_type]
            assert kind == "handler", op_type
            assert detail.startswith("``"), op_type


@pytest.mark.parametrize(
    "op_type, kind",
    [
        ("Gemm", "handler"),
        ("Squeeze", "handler"),
        ("Resize", "handler"),
        ("Attention", "function"),
        ("StringSplit", "unsupported"),
    ],
)
def test_how_ops_are_imported(import_ops, op_type, kind):
    assert import_ops.import_status()[op_type][0] == kind
