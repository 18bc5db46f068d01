"""The cost of the start-up hook, ``pytensor_onnx.pth``, at interpreter start-up.

PyTensor has no plugin entry points, so every Python interpreter of an
environment where pytensor-onnx is installed runs the hook's single line,
whether it uses PyTensor or not. Its budget is 5 ms; it takes about 0.15 ms
on a quiet 2-core machine. This runs the installed line (or ``--pth FILE``'s)
in a fresh interpreter started without ``site`` (so no ``.pth`` has run yet),
many times, and prints the median and the modules the line imported: only
the standard library's may appear. ::

    python benchmarks/startup_hook.py [--runs 200] [--quick] [--pth FILE] [--json]
"""

import argparse
import json
import site
import subprocess
import sys
from pathlib import Path


PTH_NAME = "pytensor_onnx.pth"
BUDGET_S = 5e-3

# Runs without `site` (-S): site-packages is added to sys.path by hand
PROFILE = """
import json, statistics, sys, time

pth, runs, *site_packages = sys.argv[1:]
sys.path.extend(site_packages)
line = open(pth).read()
modules, finders = set(sys.modules), list(sys.meta_path)
durations = []
for _ in range(int(runs)):
    start = time.perf_counter()
    exec(line, {})
    durations.append(time.perf_counter() - start)
    sys.meta_path[:] = finders
new_modules = sorted(set(sys.modules) - modules)
print(json.dumps({"median_s": statistics.median(durations), "new_modules": new_modules}))
"""


def installed_pth() -> Path:
    for directory in site.getsitepackages():
        path = Path(directory, PTH_NAME)
        if path.exists():
            return path
    raise SystemExit(f"{PTH_NAME} is not installed: run `pip install -e .`")


def profile(pth: Path, runs: int) -> dict:
    """The median time of ``runs`` executions of ``pth``'s line and the
    modules it imported (besides those a ``python -S`` has)."""
    arguments = [str(pth), str(runs), *site.getsitepackages()]
    done = subprocess.run(
        [sys.executable, "-S", "-c", PROFILE, *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    result["non_stdlib_modules"] = [
        name
        for name in result["new_modules"]
        if name.split(".")[0] not in sys.stdlib_module_names
    ]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 runs")
    parser.add_argument("--pth", type=Path, help="another .pth file to profile")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    pth = args.pth or installed_pth()
    result = profile(pth, 20 if args.quick else args.runs)
    result["budget_s"] = BUDGET_S
    if args.json:
        print(json.dumps(result))
        return
    verdict = "within" if result["median_s"] <= BUDGET_S else "OVER"
    print(
        f"{pth.name}: median {result['median_s'] * 1e3:.3f} ms per run "
        f"({verdict} the {BUDGET_S * 1e3:.0f} ms budget); imports "
        f"{len(result['new_modules'])} modules, "
        f"{len(result['non_stdlib_modules'])} outside the standard library"
        + (f": {result['non_stdlib_modules']}" if result["non_stdlib_modules"] else "")
    )


if __name__ == "__main__":
    main()
