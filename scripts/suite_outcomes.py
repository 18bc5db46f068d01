"""What `pymc_suite.py` and `pytensor_suite.py` share: running a selection of
another project's tests and reading each test's outcome.

It is also the pytest plugin (``-p suite_outcomes``, found on ``PYTHONPATH``)
that records the outcomes in the file named by ``$SUITE_OUTCOMES``: pytest
takes every ``pytest_*`` function of a plugin for a hook, so only the hook
is named so.
"""

import os
import re
import tempfile
from pathlib import Path


OUTCOMES_VARIABLE = "SUITE_OUTCOMES"


def matches(pattern: str, test_id: str) -> bool:
    """Whether ``test_id`` is ``pattern``, where ``*`` stands for any text."""
    parts = (re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(".*".join(parts), test_id) is not None


def share(test_ids: list[str], step: int) -> list[str]:
    """Every ``step``-th test of each module, the first included."""
    by_module = {}
    for test_id in test_ids:
        by_module.setdefault(test_id.split("::")[0], []).append(test_id)
    return [test_id for ids in by_module.values() for test_id in ids[::step]]


def environment_with_plugin(pytensor_flags: str, outcomes_file=None) -> dict[str, str]:
    """The environment of a pytest run that finds this plugin and records the
    outcomes in ``outcomes_file`` (none by default)."""
    return {
        **os.environ,
        "PYTENSOR_FLAGS": pytensor_flags,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")])
        ),
        OUTCOMES_VARIABLE: str(outcomes_file or os.devnull),
    }


def outcomes(run_pytest, test_ids) -> dict[str, str]:
    """Run ``test_ids`` with ``run_pytest(args, outcomes_file)``; each test
    id's outcome: passed, failed or skipped (xfails included)."""
    with tempfile.TemporaryDirectory() as folder:
        selection = Path(folder) / "tests.txt"
        selection.write_text("\n".join(test_ids))
        report = Path(folder) / "outcomes.tsv"
        run_pytest(["-p", "suite_outcomes", f"@{selection}", "-q"], report)
        results = {}
        for line in report.read_text().splitlines() if report.exists() else []:
            outcome, test_id = line.split("\t")
            if results.get(test_id) != "failed":
                results[test_id] = outcome
        return results


def pytest_runtest_logreport(report):
    """A pytest hook: record each test's outcome in ``$SUITE_OUTCOMES``."""
    if report.when == "call" or report.outcome != "passed":
        with open(os.environ[OUTCOMES_VARIABLE], "a") as file:
            file.write(f"{report.outcome}\t{report.nodeid}\n")
