"""`scripts/pymc_suite.py`, the runner of PyMC's own tests under mode="ONNX".

PyMC's tests are not in its sdist and are not copied here, so these tests run
the runner on a tiny test tree of the same layout; the tests listed in
``pymc_suite_exceptions.toml`` are checked for reasons.
"""

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest


SCRIPT = Path(__file__).parents[3] / "scripts" / "pymc_suite.py"
# as `python scripts/pymc_suite.py` finds its sibling module suite_outcomes
sys.path.insert(0, str(SCRIPT.parent))
spec = importlib.util.spec_from_file_location("pymc_suite", SCRIPT)
pymc_suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pymc_suite)

FAKE_TESTS = """
import os


def under_onnx():
    return "mode=ONNX" in os.environ.get("PYTENSOR_FLAGS", "")


def test_passes():
    pass


def test_fails_only_under_onnx():
    assert not under_onnx()


def test_fails_under_both():
    assert False


def test_passes_only_under_onnx():
    assert under_onnx()
"""


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("pymc")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    for folder in pymc_suite.SUITE:
        (root / folder).mkdir(parents=True)
    (root / "tests/distributions/test_fake.py").write_text(FAKE_TESTS)
    (root / "tests/logprob/test_fine.py").write_text("def test_fine():\n    pass\n")
    return root


def run(checkout, tmp_path, exceptions, *arguments):
    listed = tmp_path / "exceptions.toml"
    listed.write_text(
        "[all]\n" + "".join(f'"{key}" = "{why}"\n' for key, why in exceptions.items())
    )
    return pymc_suite.main(
        ["run", "--pymc-tests", str(checkout), "--exceptions", str(listed), *arguments]
    )


FAKE = "tests/distributions/test_fake.py::"


def test_a_difference_not_listed_fails_the_run(checkout, tmp_path, capsys):
    assert run(checkout, tmp_path, {}) == 1
    output = capsys.readouterr().out
    assert f"UNEXPECTED DIFFERENCE {FAKE}test_fails_only_under_onnx" in output
    assert "test_fails_under_both" not in output
    assert "5 run under mode=ONNX, 2 failed, 1 of which pass" in output


def test_listed_differences_pass_and_listed_tests_that_pass_fail(
    checkout, tmp_path, capsys
):
    listed = {
        f"{FAKE}test_fails_only*": "a reason",
        f"{FAKE}test_passes": "a reason that no longer holds",
    }
    assert run(checkout, tmp_path, listed) == 1
    output = capsys.readouterr().out
    assert "UNEXPECTED" not in output and "(1 listed as exceptions)" in output
    assert f"LISTED BUT PASSES {FAKE}test_passes\n" in output


def test_an_entry_without_reason_is_refused(checkout, tmp_path):
    with pytest.raises(SystemExit, match="without a reason"):
        run(checkout, tmp_path, {f"{FAKE}test_fails_only_under_onnx": " "})


def test_without_pymc_tests_the_runner_says_where_they_are(tmp_path, monkeypatch):
    monkeypatch.delenv("PYMC_TESTS", raising=False)
    with pytest.raises(SystemExit, match=r"not in its sdist.*1ad929ca"):
        pymc_suite.main(["run"])
    with pytest.raises(SystemExit, match="has no tests/distributions"):
        pymc_suite.main(["run", "--pymc-tests", str(tmp_path)])


def test_the_share_takes_every_tenth_test_of_each_module():
    ids = [f"a.py::t{i}" for i in range(25)] + ["b.py::t0"]
    assert pymc_suite.share(ids, pymc_suite.SHARE_STEP) == [
        "a.py::t0",
        "a.py::t10",
        "a.py::t20",
        "b.py::t0",
    ]


def test_every_listed_pymc_test_has_a_reason():
    with pymc_suite.EXCEPTIONS.open("rb") as file:
        table = tomllib.load(file)
    for entries in table.values():
        for test_id, reason in entries.items():
            assert test_id.startswith("tests/") and len(reason) > 20, test_id
