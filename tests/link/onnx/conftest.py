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
