"""Run ONNX's node test suite against the importer and rewrite the exclusions.

    python scripts/update_import_exclusions.py [--pattern REGEX]

Writes ``tests/link/onnx/importer/onnx_conformance_exclusions.toml``: one line per
failing node test, with the reason's category first:

- ``no dtype``: the test needs values PyTensor has no type for (bfloat16,
  float8, int4-style, string, optional);
- ``missing op``: no handler imports the op yet;
- ``not implemented``: a handler that covers only part of the op;
- ``wrong result``: the import runs but disagrees with ONNX (a bug);
- ``error``: any other failure (a bug);
- ``random draws``: the expected outputs are draws of NumPy's generator, which
  PyTensor's generators do not reproduce (always listed, and not run by
  ``tests/link/onnx/importer/test_conformance.py``: they may match by chance).

Prints the counts. Takes about three minutes on two cores. With ``--pattern``
only the matching tests run, and only their lines are rewritten.
"""

import argparse
import re
import sys
import time
import tomllib
import warnings
from collections import Counter
from pathlib import Path

from onnx.backend.test.loader import load_node_model_tests
from onnx.backend.test.runner import Runner, _normalize_tensor
from pytensor.compile.mode import Mode

from pytensor.link.onnx.backend import PyTensorBackend
from pytensor.link.onnx.importer import UnsupportedONNXError


EXCLUSIONS = (
    Path(__file__).parents[1]
    / "tests/link/onnx/importer/onnx_conformance_exclusions.toml"
)
TYPE_PROBLEM = re.compile(r"^(type \w+|\w+ values)$")
RANDOM_DRAWS = re.compile(r"^test_(bernoulli|training_dropout(_default)?(_mask)?$)")
RANDOM_REASON = (
    "random draws: the expected outputs are draws of NumPy's generator, "
    "which PyTensor's generators do not reproduce"
)


def reason_for(error: Exception) -> str:
    if isinstance(error, UnsupportedONNXError):
        whats = sorted({what for what, _, _ in error.problems})
        types = [w.removeprefix("type ") for w in whats if TYPE_PROBLEM.match(w)]
        if types:
            return f"no dtype: PyTensor has no type for {', '.join(types)}"
        ops = ", ".join(w.removeprefix("op ") for w in whats)
        return f"missing op: {ops}"
    message = " ".join(str(error).split())[:160]
    if isinstance(error, NotImplementedError):
        return f"not implemented: {message}"
    if isinstance(error, AssertionError):
        return f"wrong result: {message}"
    return f"error: {type(error).__name__}: {message}"


def run(test, mode) -> str | None:
    if RANDOM_DRAWS.match(test.name):
        return RANDOM_REASON
    try:
        rep = PyTensorBackend.prepare(test.model, mode=mode)
        for inputs, expected in test.data_sets:
            outputs = rep.run([_normalize_tensor(i) for i in inputs])
            Runner.assert_similar_outputs(
                [_normalize_tensor(e) for e in expected], outputs, test.rtol, test.atol
            )
    except Exception as error:
        return reason_for(error)
    return None


def toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pattern", default="", help="only tests matching REGEX")
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    mode = Mode(linker="py", optimizer=None)
    start = time.perf_counter()
    tests = [t for t in load_node_model_tests() if re.search(args.pattern, t.name)]
    failures = {t.name: reason for t in tests if (reason := run(t, mode))}
    seconds = time.perf_counter() - start
    categories = Counter(reason.partition(":")[0] for reason in failures.values())
    print(
        f"{len(tests) - len(failures)} of {len(tests)} node tests pass ({seconds:.0f} s)"
    )
    for category, count in categories.most_common():
        print(f"  {count:4d} {category}")
    if args.dry_run or args.pattern:
        for name, reason in sorted(failures.items()):
            print(f"{name}: {reason}")
    if args.dry_run:
        return
    if args.pattern:
        kept = tomllib.loads(EXCLUSIONS.read_text())["xfail"]
        others = {n: r for n, r in kept.items() if not re.search(args.pattern, n)}
        failures = others | failures
    lines = [
        "# ONNX node tests that the importer fails, with the reason's category first.",
        "# Written by scripts/update_import_exclusions.py; see its docstring.",
        "[xfail]",
        *(
            f"{name} = {toml_string(reason)}"
            for name, reason in sorted(failures.items())
        ),
    ]
    EXCLUSIONS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
