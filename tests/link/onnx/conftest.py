import os

from hypothesis import HealthCheck, settings


# The default run is the same on every run and every machine: Hypothesis draws
# its examples from a seed fixed per test (derandomize) and replays no
# database. `HYPOTHESIS_PROFILE=explore` draws fresh examples instead (the
# 10,000-graph fuzz, `-m fuzz_long`, always does); a failure found that way
# becomes a named regression test (test_fuzz_regressions.py).
settings.register_profile(
    "default",
    deadline=None,
    derandomize=True,
    database=None,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    deadline=None,
    derandomize=False,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# The files that take a minute or more of a default run. They are handed out
# first, so that when `scripts/run_tests.sh` splits the files between processes
# (pytest-xdist, `--dist loadfile --no-loadscope-reorder`) no process is left
# with a long file while the other has finished.
LONG_FILES = (
    "test_demo.py",
    "test_pytensor_suite.py",
    "test_pymc_sampling_agreement.py",
    "test_docs.py",
    "test_benchmarks_smoke.py",
    "importer/test_roundtrip.py",
)


def long_file_rank(item) -> int:
    path = item.path.as_posix()
    ranks = (rank for rank, name in enumerate(LONG_FILES) if path.endswith(name))
    return next(ranks, len(LONG_FILES))


def pytest_collection_modifyitems(config, items):
    items.sort(key=long_file_rank)  # stable: each file keeps its order
