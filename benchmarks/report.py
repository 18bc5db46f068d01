"""Machine information, the text tables, the JSON file and the optional chart."""

import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
from pathlib import Path

from runner import ONNX, ratio_to_fastest

import pytensor


PACKAGES = ("pytensor", "onnxruntime", "onnx", "numpy", "numba", "jax", "torch")


def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def cpuinfo_field(name):
    """The first ``name : value`` of /proc/cpuinfo, or None."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.split(":", 1)[0].strip() == name:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    return cpuinfo_field("model name") or platform.processor() or platform.machine()


VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw")


def cpu_flags():
    """All the CPU's flags (from /proc/cpuinfo), an empty list where unknown."""
    return (cpuinfo_field("flags") or "").split()


def git_commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine_info(threads):
    default_linker = pytensor.compile.mode.get_default_mode().linker
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cpu flags": cpu_flags(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {name: package_version(name) for name in PACKAGES},
        "pytensor-onnx commit": git_commit(),
        "pytensor default linker": type(default_linker).__name__,
        "pytensor numba cache": getattr(pytensor.config, "numba__cache", None),
        "pytensor cxx": pytensor.config.cxx,
        "pytensor blas ldflags": pytensor.config.blas__ldflags,
        "threads per backend": threads or "each library's default",
        "thread environment": {
            k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")
        },
    }


UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def unit_for(seconds):
    return next(((u, s) for u, s in UNITS if seconds >= s), UNITS[-1])


def scaled(seconds, scale):
    value = seconds / scale
    return f"{value:.3g}" if value < 1000 else f"{value:.0f}"


class Notes:
    """Numbered footnotes for the reasons behind non-numeric cells."""

    def __init__(self):
        self.lines = []

    def mark(self, text):
        if text not in self.lines:
            self.lines.append(text)
        return f"[{self.lines.index(text) + 1}]"

    def render(self):
        return [f"  [{i}] {line}" for i, line in enumerate(self.lines, 1)]


def time_cell(result, backend, notes):
    if result is None:
        return "-"
    if result["status"] != "ok":
        reason = f"{backend}: {result['reason']}"
        last_line = result.get("detail", "").strip().splitlines()[-1:]
        if result["status"] == "error" and last_line and last_line[0] not in reason:
            reason += f" ... {last_line[0].strip()}"
        return f"{result['status']} {notes.mark(reason)}"
    name, scale = unit_for(result["median_s"])
    low, median, high = (
        scaled(result[k], scale) for k in ("p10_s", "median_s", "p90_s")
    )
    cell = f"{median} [{low}-{high}] {name}"
    if result.get("check", "ok") not in ("ok", "unchecked"):
        cell += " " + notes.mark(f"{backend}: {result['check']}")
    return cell


def machine_lines(machine):
    """CPU, its vector flags, cores and package versions, as two lines."""
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v)
    flags = set(machine.get("cpu flags", []))
    vector = " ".join(f for f in VECTOR_FLAGS if f in flags) or "unknown"
    return [
        f"{machine['cpu']} (flags: {vector}), {machine['cores']} cores",
        f"Python {machine['python']}; {versions}",
    ]


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def text_report(data):
    backends = data["backends"]
    baselines = [b for b in backends if b != ONNX]
    notes = Notes()
    time_rows = [
        [w["name"], *(time_cell(w["results"].get(b), b, notes) for b in backends)]
        for w in data["workloads"]
    ]
    ratio_rows = [
        [
            w["name"],
            onnx_nodes(w),
            *(f"{w['ratios'][b]:.2f}" if b in w["ratios"] else "-" for b in baselines),
        ]
        for w in data["workloads"]
    ]
    machine = data["machine"]
    lines = [
        f"pytensor-onnx benchmarks, {machine['date']}{' (quick sizes)' if data['settings']['quick'] else ''}",
        *machine_lines(machine),
        f"repeats: {data['settings']['repeats']} (compile: {data['settings']['compile_repeats']}); "
        f"threads per backend: {data['settings']['threads']}; wall time {data['settings']['wall_seconds']} s",
        "median [p10-p90] per call; compile rows: seconds to first result",
        "",
        *table(["workload", *backends], time_rows),
        "",
        "ONNX time / baseline time (below 1: ONNX is faster); ONNX model nodes",
        *table(["workload", "nodes", *baselines], ratio_rows),
    ]
    lines += pymc_target_lines(data)
    if data.get("cold_start"):
        lines += ["", *cold_start_lines(data["cold_start"])]
    lines += torch_lines(data.get("torch_comparison"))
    skipped = {**data["skipped_backends"], **data.get("skipped_workloads", {})}
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{k}: {v}" for k, v in skipped.items())]
    if notes.lines:
        lines += ["", "Notes:", *notes.render()]
    lines += [
        "",
        "Workloads:",
        *(f"  {w['name']}: {w['description']}" for w in data["workloads"]),
    ]
    if data.get("chart"):
        lines += ["", data["chart"]]
    return "\n".join(lines) + "\n"


def onnx_nodes(workload):
    nodes = workload["results"].get(ONNX, {}).get("onnx_nodes")
    return "-" if nodes is None else nodes


PYMC_PREFIX = "pymc "
PER_MODEL_TARGET, MEDIAN_TARGET, COLD_START_TARGET = 3.0, 2.0, 3.0


def met(condition):
    return "yes" if condition else "NO"


def pymc_target_lines(data):
    """The PyMC workloads against the issue's targets, as text lines.

    Every model: ONNX at most 3x the fastest of C and Numba; their median at
    most 2x. Empty when no PyMC workload or neither C nor Numba ran.
    """
    workloads = [w for w in data["workloads"] if w["name"].startswith(PYMC_PREFIX)]
    engines = data.get("engines", {})
    compiled = [n for n in data["backends"] if engines.get(n) in ("C", "Numba")]
    if not workloads or not compiled:
        return []
    rows, worst = [], []
    for w in workloads:
        ratio = ratio_to_fastest(w["ratios"], compiled)
        if ratio is not None:
            worst.append(ratio)
        rows.append(
            [
                w["name"],
                onnx_nodes(w),
                *(
                    f"{w['ratios'][n]:.2f}" if n in w["ratios"] else "-"
                    for n in compiled
                ),
                "-" if ratio is None else f"{ratio:.2f}",
                "-" if ratio is None else met(ratio <= PER_MODEL_TARGET),
            ]
        )
    header = ["workload", "nodes", *compiled, "fastest", f"<= {PER_MODEL_TARGET:g}x"]
    lines = [
        "",
        f"PyMC logp+gradient as NUTS calls it: ONNX time / C and Numba time "
        f"(target: each <= {PER_MODEL_TARGET:g}x the fastest, median <= {MEDIAN_TARGET:g}x)",
        *table(header, rows),
    ]
    if worst:
        median = statistics.median(worst)
        lines.append(
            f"median over {len(worst)} models: {median:.2f}x the fastest "
            f"(<= {MEDIAN_TARGET:g}x: {met(median <= MEDIAN_TARGET)}); "
            f"{sum(r <= PER_MODEL_TARGET for r in worst)} of {len(workloads)} "
            f"models within {PER_MODEL_TARGET:g}x"
        )
    return lines


def seconds_cell(summary):
    return f"{summary['median']:.2f} [{summary['min']:.2f}-{summary['max']:.2f}] s"


COLD_START_MEASURES = {
    "from_launch_s": "from launch",
    "from_model_s": "from model",
    "cpu_s": "CPU",
}


def cold_start_lines(cold_start):
    """The cold-start table: seconds to the first logp and gradient per backend."""
    title = (
        f"Cold start: a fresh process with empty compile caches to the first "
        f"logp+gradient; {cold_start['model']}; median [min-max] of "
        f"{cold_start['repeats']} processes"
    )
    notes = Notes()
    rows = []
    for name in cold_start["backends"]:
        result = cold_start["results"][name]
        if result["status"] != "ok":
            rows.append([name, f"error {notes.mark(f'{name}: ' + result['reason'])}"])
            continue
        speedup = cold_start["speedups"].get(name)
        if not cold_start["values_agree"].get(name, True):
            name += " " + notes.mark(f"{name}: logp or gradient differs from ONNX's")
        rows.append(
            [
                name,
                *(seconds_cell(result[m]) for m in COLD_START_MEASURES),
                *(
                    "-" if speedup is None else f"{speedup[m]:.1f}x"
                    for m in COLD_START_MEASURES
                ),
                result["cache_files"],
            ]
        )
    header = [
        "backend",
        *COLD_START_MEASURES.values(),
        *(f"/ONNX {label}" for label in COLD_START_MEASURES.values()),
        "cache files",
    ]
    lines = [
        title,
        "(from launch: wall time from process start; from model: from the model "
        "definition; CPU: user+system seconds of the process and its compilers; "
        "/ONNX: the backend's time over ONNX's)",
        *table(header, rows),
    ]
    compiled = [
        (name, speedup["from_launch_s"])
        for name, speedup in cold_start["speedups"].items()
        if cold_start["engines"][name] in ("C", "Numba")
    ]
    if compiled:
        smallest = min(speedup for _, speedup in compiled)
        lines.append(
            f"ONNX is {smallest:.1f}x faster to the first gradient than the "
            f"faster of {' and '.join(n for n, _ in compiled)} (from launch; target "
            f">= {COLD_START_TARGET:g}x: {met(smallest >= COLD_START_TARGET)})"
        )
    nodes = cold_start["results"].get(ONNX, {}).get("onnx_nodes")
    if nodes:
        lines.append(f"ONNX model: {nodes} nodes")
    if notes.lines:
        lines += notes.render()
    return lines


def torch_lines(comparison):
    if comparison is None:
        return []
    title = "Exported to ONNX: export_onnx vs torch.onnx.export (same weights)"
    if comparison["status"] != "ok":
        return ["", title, f"  {comparison['status']}: {comparison['reason']}"]
    batches = comparison["batches"]
    header = [
        "network",
        "exporter",
        "nodes",
        "size",
        "opset",
        *(f"ORT batch {b}" for b in batches),
        "ops",
    ]
    rows = [
        [
            network,
            name,
            m["nodes"],
            f"{m['bytes'] / 1e6:.2f} MB",
            m["opset"],
            *(time_cell(m["latency"][str(b)], name, Notes()) for b in batches),
            m["ops"],
        ]
        for network, result in comparison["networks"].items()
        for name, m in result["models"].items()
    ]
    agreement = ", ".join(
        f"{network} outputs {'agree' if result['outputs_agree'] else 'DISAGREE'}"
        for network, result in comparison["networks"].items()
    )
    return [
        "",
        f"{title}; torch {comparison['torch_version']}; {agreement}",
        *table(header, rows),
    ]


def write_json(data, path):
    path.write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def write_chart(data, path):
    """Plot the ONNX/baseline ratios if matplotlib is available; say what happened."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "Chart skipped: matplotlib is not installed (pip install matplotlib to get ratios.png)."
    baselines = [b for b in data["backends"] if b != ONNX]
    workloads = [w for w in data["workloads"] if w["ratios"]]
    if not workloads:
        return "Chart skipped: no workload ran in the ONNX mode."
    height = 0.8 / len(baselines)
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(workloads) + 1.5))
    for i, baseline in enumerate(baselines):
        positions = [row - 0.4 + (i + 0.5) * height for row in range(len(workloads))]
        values = [w["ratios"].get(baseline, float("nan")) for w in workloads]
        bars = ax.barh(positions, values, height=height, label=baseline)
        ax.bar_label(bars, fmt="%.2g", fontsize="x-small", padding=2)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(workloads)), [w["name"] for w in workloads])
    ax.invert_yaxis()
    ax.set_xlabel("ONNX time / baseline time (log scale; left of 1: ONNX is faster)")
    ax.set_title(
        f"pytensor-onnx, {data['machine']['cpu']}, {data['machine']['date'][:10]}"
    )
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"Chart: {path.name}"
