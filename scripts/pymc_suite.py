"""Run PyMC's own tests under mode="ONNX" and under the default mode, and compare.

    python scripts/pymc_suite.py run --pymc-tests PYMC_CHECKOUT [--share] [PATH ...]
    python scripts/pymc_suite.py compare --pymc-tests PYMC_CHECKOUT [--share] [PATH ...]

PyMC's tests are not in its sdist, and this repository does not copy them:
``--pymc-tests`` is a checkout of PyMC's git repository at the commit of the
installed release (5.28.5: ``git clone https://github.com/pymc-devs/pymc &&
git -C pymc checkout 1ad929ca6bced2a4848e655408dbf86849325084``), whose
``pyproject.toml`` and ``tests/conftest.py`` configure pytest. The tests run
in the environment of this interpreter (PyMC 5.28.5 needs PyTensor 2.38:
``.venv-2.38.3``), by default those of ``tests/distributions`` and
``tests/logprob``, as PyMC's own CI runs them.

``run`` runs the tests with ``PYTENSOR_FLAGS=mode=ONNX``, then those that
failed again with PyTensor's default mode. A test that passes under the
default mode and fails under ONNX is a difference: it fails the run unless
``tests/link/onnx/pymc_suite_exceptions.toml`` lists it with its reason. A
test listed by its exact id that passes under ONNX fails the run too, so that
the list stays exact. ``--share`` runs the fixed part that CI would run (every
``SHARE_STEP``-th test of each module).

``compare`` runs every selected test under both modes and prints each test
whose outcome differs, either way, with its listed reason if any.
"""

import argparse
import os
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import suite_outcomes
from suite_outcomes import environment_with_plugin, matches, share


REPO_ROOT = Path(__file__).resolve().parent.parent
EXCEPTIONS = REPO_ROOT / "tests" / "link" / "onnx" / "pymc_suite_exceptions.toml"
PYMC_RELEASE = "5.28.5"
PYMC_COMMIT = "1ad929ca6bced2a4848e655408dbf86849325084"
SUITE = ("tests/distributions", "tests/logprob")
SHARE_STEP = 10
DEFAULT_MODE = "default"


class MissingTests(SystemExit):
    pass


def checked_checkout(path: Path | None) -> Path:
    """``path``, if it is a checkout of PyMC holding its tests; else exit saying
    how to get one."""
    how = (
        "PyMC's tests are not in its sdist: pass --pymc-tests PATH, a checkout "
        f"of https://github.com/pymc-devs/pymc at {PYMC_COMMIT} (PyMC "
        f"{PYMC_RELEASE}), or set PYMC_TESTS to it"
    )
    if path is None:
        raise MissingTests(f"no PyMC checkout given. {how}")
    path = path.resolve()
    missing = [entry for entry in SUITE if not (path / entry).is_dir()]
    if missing:
        raise MissingTests(f"{path} has no {', '.join(missing)}. {how}")
    return path


def installed_pymc() -> str:
    try:
        return version("pymc")
    except PackageNotFoundError:
        return "not installed"


def load_exceptions(path: Path) -> dict[str, str]:
    """``{test id or pattern: reason}``; every entry needs a reason."""
    with path.open("rb") as file:
        table = tomllib.load(file)
    listed = {**table.get("all", {}), **table.get(installed_pymc(), {})}
    if empty := sorted(key for key, reason in listed.items() if not reason.strip()):
        raise SystemExit(f"{path}: entries without a reason: {empty}")
    return listed


def reason_of(test_id: str, exceptions: dict[str, str]) -> str | None:
    return next((r for p, r in exceptions.items() if matches(p, test_id)), None)


def run_pytest(checkout: Path, mode: str, args, outcomes_file=None):
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    if mode != DEFAULT_MODE:
        flags = f"mode={mode},{flags}"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=checkout,
        env=environment_with_plugin(flags, outcomes_file),
        capture_output=True,
        text=True,
    )


def collect(checkout: Path, paths) -> list[str]:
    result = run_pytest(checkout, DEFAULT_MODE, [*paths, "--collect-only", "-q"])
    test_ids = [line for line in result.stdout.splitlines() if "::" in line]
    if not test_ids:
        raise SystemExit(
            f"no test collected from {paths} in {checkout}:\n{result.stdout[-3000:]}"
        )
    return test_ids


def outcomes(checkout: Path, mode: str, test_ids) -> dict[str, str]:
    """Run ``test_ids`` under ``mode``; each one's outcome: passed, failed or
    skipped (xfails included)."""
    if not test_ids:
        return {}
    return suite_outcomes.outcomes(
        lambda args, report: run_pytest(checkout, mode, args, report), test_ids
    )


def selected_tests(checkout: Path, arguments) -> list[str]:
    test_ids = collect(checkout, arguments.paths or SUITE)
    return share(test_ids, SHARE_STEP) if arguments.share else test_ids


def header(checkout: Path) -> str:
    return f"PyMC's tests in {checkout} (PyMC {installed_pymc()} installed)"


def run(arguments) -> int:
    checkout = checked_checkout(arguments.pymc_tests)
    exceptions = load_exceptions(arguments.exceptions)
    onnx = outcomes(checkout, "ONNX", selected_tests(checkout, arguments))
    failed = sorted(t for t, outcome in onnx.items() if outcome == "failed")
    default = outcomes(checkout, DEFAULT_MODE, failed)
    differences = [t for t in failed if default.get(t) == "passed"]
    unexpected = [t for t in differences if reason_of(t, exceptions) is None]
    now_passing = sorted(
        t for t in exceptions if "*" not in t and onnx.get(t) == "passed"
    )
    print(
        f"{header(checkout)}: {len(onnx)} run under mode=ONNX, {len(failed)} "
        f"failed, {len(differences)} of which pass under the default mode "
        f"({len(differences) - len(unexpected)} listed as exceptions)"
    )
    for test_id in unexpected:
        print(f"UNEXPECTED DIFFERENCE {test_id}")
    for test_id in now_passing:
        print(f"LISTED BUT PASSES {test_id}")
    return 1 if unexpected or now_passing else 0


def compare(arguments) -> int:
    checkout = checked_checkout(arguments.pymc_tests)
    exceptions = load_exceptions(arguments.exceptions)
    test_ids = selected_tests(checkout, arguments)
    onnx = outcomes(checkout, "ONNX", test_ids)
    default = outcomes(checkout, DEFAULT_MODE, test_ids)
    print(f"{header(checkout)}: {len(test_ids)} tests")
    for mode, results in (("ONNX", onnx), ("default", default)):
        counts = {
            o: list(results.values()).count(o) for o in sorted(set(results.values()))
        }
        print(f"  under the {mode} mode: {counts}")
    print("Outcomes that differ (default -> ONNX):")
    for test_id in test_ids:
        if onnx.get(test_id) != default.get(test_id):
            reason = reason_of(test_id, exceptions) or "NOT LISTED"
            print(
                f"  {default.get(test_id)} -> {onnx.get(test_id)}: {test_id!r} = "
                f"{reason!r}"
            )
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "compare"):
        command = commands.add_parser(name)
        command.add_argument(
            "--pymc-tests",
            type=Path,
            default=os.environ.get("PYMC_TESTS") or None,
            help="a checkout of PyMC's repository at the installed release",
        )
        command.add_argument("--share", action="store_true")
        command.add_argument("--exceptions", type=Path, default=EXCEPTIONS)
        command.add_argument(
            "paths", nargs="*", help=f"test paths in the checkout (default: {SUITE})"
        )
    arguments = parser.parse_args(argv)
    return {"run": run, "compare": compare}[arguments.command](arguments)


if __name__ == "__main__":
    sys.exit(main())
