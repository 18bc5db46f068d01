"""Run PyTensor's own test suite with mode="ONNX" as the default mode.

    python scripts/pytensor_suite.py run [--share] [--mode ONNX] [MODULE ...]
    python scripts/pytensor_suite.py compare [--share] [MODULE ...]
    python scripts/pytensor_suite.py vendor --repo PATH_TO_PYTENSOR_GIT

``run`` runs the copy of PyTensor's tests in ``third_party/pytensor_tests/``
that matches the installed PyTensor release, with ``PYTENSOR_FLAGS=mode=ONNX``,
the way PyTensor's own CI runs its suite under JAX or Numba. The tests listed
in ``tests/link/onnx/pytensor_suite_exceptions.toml`` are expected to fail
(strict xfails, each with its reason); any other failure fails the run.
``--share`` runs the fixed, representative part that CI runs (every
``SHARE_STEP``-th test of each module).

``compare`` runs the tests under ``ONNX``, those that fail again under
``NUMBA``, and prints those that pass under Numba: the list the exceptions
file must cover.

``vendor`` copies the test modules below (``SUITE``) from a PyTensor git
repository at the tag of each supported release (PyPI's sdists don't ship
them, and CI has no network beyond the package registries).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import suite_outcomes
from suite_outcomes import environment_with_plugin, matches, share


REPO_ROOT = Path(__file__).resolve().parent.parent
VENDORED = REPO_ROOT / "third_party" / "pytensor_tests"
EXCEPTIONS = REPO_ROOT / "tests" / "link" / "onnx" / "pytensor_suite_exceptions.toml"
RELEASES = ("3.0.7", "2.38.3")
SHARE_STEP = 12

# The test modules issue 15 names, and the modules they import from.
SUITE = (
    "tests/tensor/test_math.py",
    "tests/tensor/test_basic.py",
    "tests/tensor/test_elemwise.py",
    "tests/tensor/test_subtensor.py",
    "tests/tensor/test_extra_ops.py",
    "tests/tensor/test_sort.py",
    "tests/tensor/test_special.py",
    "tests/tensor/test_shape.py",
    "tests/tensor/test_blockwise.py",
    "tests/tensor/test_einsum.py",
    "tests/tensor/test_slinalg.py",
    "tests/tensor/test_nlinalg.py",
    "tests/tensor/linalg/",
    "tests/tensor/signal/",
    "tests/scan/",
)
SUPPORT = (
    "conftest.py",
    "tests/__init__.py",
    "tests/unittest_tools.py",
    "tests/test_rop.py",
    "tests/graph/__init__.py",
    "tests/graph/utils.py",
    "tests/link/__init__.py",
    "tests/link/test_link.py",
    "tests/tensor/__init__.py",
    "tests/tensor/utils.py",
)
PYTEST_INI = """\
# PyTensor's own pytest settings for its suite, without its doctests
[pytest]
xfail_strict = true
filterwarnings =
    ignore:^Numba will use object mode to run.*perform method\\.:UserWarning
"""


def installed_release() -> str:
    from importlib.metadata import version

    release = version("pytensor")
    if release not in RELEASES:
        sys.exit(f"no copy of PyTensor {release}'s tests; vendored: {RELEASES}")
    return release


def vendor(repo: Path):
    """Copy ``SUITE`` and ``SUPPORT`` at each release's tag out of ``repo``."""
    for release in RELEASES:
        tag = f"rel-{release}"
        target = VENDORED / release
        shutil.rmtree(target, ignore_errors=True)
        listed = subprocess.run(
            ["git", "-C", repo, "ls-tree", "-r", "--name-only", tag, *SUITE, *SUPPORT],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        for path in listed:
            content = subprocess.run(
                ["git", "-C", repo, "show", f"{tag}:{path}"],
                check=True,
                capture_output=True,
            ).stdout
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            (target / path).write_bytes(content)
        license_text = subprocess.run(
            ["git", "-C", repo, "show", f"{tag}:doc/LICENSE.txt"],
            check=True,
            capture_output=True,
        ).stdout
        (target / "LICENSE.txt").write_bytes(license_text)
        (target / "pytest.ini").write_text(PYTEST_INI)
        print(f"{tag}: {len(listed)} files into {target.relative_to(REPO_ROOT)}")


def suite_modules(release: str) -> list[str]:
    root = VENDORED / release
    return sorted(
        str(path.relative_to(root))
        for entry in SUITE
        for path in (
            sorted((root / entry).rglob("test_*.py"))
            if entry.endswith("/")
            else [root / entry]
        )
        if path.exists()
    )


def expected_failures(release: str, test_ids) -> dict[str, str]:
    """The listed reason of each of ``test_ids`` expected to fail under mode ONNX."""
    with EXCEPTIONS.open("rb") as file:
        table = tomllib.load(file)
    patterns = {**table.get("all", {}), **table.get(release, {})}
    return {
        test_id: reason
        for test_id in test_ids
        for pattern, reason in patterns.items()
        if matches(pattern, test_id)
    }


def listed_exactly(release: str) -> set[str]:
    """The test ids the exceptions file lists by name rather than by pattern."""
    with EXCEPTIONS.open("rb") as file:
        table = tomllib.load(file)
    listed = {**table.get("all", {}), **table.get(release, {})}
    return {key for key in listed if "*" not in key}


def collect(release: str, modules) -> list[str]:
    output = run_pytest(release, "ONNX", [*modules, "--collect-only", "-q"]).stdout
    return [line for line in output.splitlines() if line.startswith("tests/")]


def run_pytest(release, mode, args, outcomes_file=None):
    flags = f"mode={mode},{os.environ.get('PYTENSOR_FLAGS', '')}"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            "pytest.ini",
            "-p",
            "no:cacheprovider",
            "--benchmark-disable",
            *args,
        ],
        cwd=VENDORED / release,
        env=environment_with_plugin(flags, outcomes_file),
        capture_output=True,
        text=True,
    )


def outcomes(release, mode, test_ids) -> dict[str, str]:
    """Run ``test_ids`` under ``mode``; each test id's outcome: passed, failed
    or skipped (xfails included)."""
    return suite_outcomes.outcomes(
        lambda args, report: run_pytest(release, mode, args, report), test_ids
    )


def selected_tests(release, arguments) -> list[str]:
    test_ids = collect(release, arguments.modules or suite_modules(release))
    return share(test_ids, SHARE_STEP) if arguments.share else test_ids


def run(arguments):
    release = installed_release()
    results = outcomes(release, arguments.mode, selected_tests(release, arguments))
    expected = expected_failures(release, results) if arguments.mode == "ONNX" else {}
    failed = {t for t, outcome in results.items() if outcome == "failed"}
    unexpected = sorted(failed - expected.keys())
    now_passing = sorted(
        t for t in listed_exactly(release) if results.get(t) == "passed"
    )
    print(
        f"PyTensor {release}'s tests under mode={arguments.mode}: "
        f"{len(results)} run, {len(failed)} failed "
        f"({len(failed & expected.keys())} listed as exceptions)"
    )
    for test_id in unexpected:
        print(f"UNEXPECTED FAILURE {test_id}")
    for test_id in now_passing:
        print(f"LISTED BUT PASSES {test_id}")
    return 1 if unexpected or now_passing else 0


def compare(arguments):
    release = installed_release()
    onnx = outcomes(release, "ONNX", selected_tests(release, arguments))
    failed = [t for t, outcome in onnx.items() if outcome == "failed"]
    numba = outcomes(release, "NUMBA", failed) if failed else {}
    regressions = sorted(t for t in failed if numba.get(t) == "passed")
    passed = sum(outcome == "passed" for outcome in onnx.values())
    print(
        f"PyTensor {release}'s tests: {len(onnx)} run under ONNX, {passed} passed, "
        f"{len(failed)} failed, of which {len(regressions)} pass under Numba:"
    )
    listed = expected_failures(release, regressions)
    for test_id in regressions:
        print(f"{test_id!r} = {listed.get(test_id, 'NOT LISTED')!r}")
    print("Failing under both (or not run under Numba):")
    for test_id in sorted(set(failed) - set(regressions)):
        print(f"  {test_id} (Numba: {numba.get(test_id, 'not run')})")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "compare"):
        command = commands.add_parser(name)
        command.add_argument("--share", action="store_true")
        if name == "run":
            command.add_argument("--mode", default="ONNX")
        command.add_argument(
            "modules", nargs="*", help="test modules or folders (default: all)"
        )
    vendor_command = commands.add_parser("vendor")
    vendor_command.add_argument("--repo", type=Path, required=True)
    arguments = parser.parse_args(argv)
    if arguments.command == "vendor":
        return vendor(arguments.repo)
    return {"run": run, "compare": compare}[arguments.command](arguments)


if __name__ == "__main__":
    sys.exit(main())
