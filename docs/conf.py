"""Sphinx configuration of the pytensor-onnx documentation."""

import importlib.metadata
import sys
from pathlib import Path


DOCS = Path(__file__).parent
sys.path.insert(0, str(DOCS / "_ext"))
# The converter guide's example test imports tests.link.onnx.test_basic.
sys.path.append(str(DOCS.parent))

project = "pytensor-onnx"
release = importlib.metadata.version("pytensor-onnx")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "supported_ops",
    "import_ops",
]

exclude_patterns = ["_build"]
napoleon_google_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"

# Snippets that write files (export_onnx) write them in a throwaway directory.
doctest_global_setup = """
import os, tempfile
os.chdir(tempfile.mkdtemp())
"""

html_theme = "alabaster"
html_static_path = []
