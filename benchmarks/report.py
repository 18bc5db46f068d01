"""Machine information, the text tables, the JSON file and the optional chart."""

import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
from pathlib import Path

from runner import ONNX

import pytensor


PACKAGES = ("pytensor", "onnxruntime", "onnx", "numpy", "numba", "jax", "torch")


def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


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
            *(f"{w['ratios'][b]:.2f}" if b in w["ratios"] else "-" for b in baselines),
        ]
        for w in data["workloads"]
    ]
    machine = data["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v)
    lines = [
        f"pytensor-onnx benchmarks, {machine['date']}{' (quick sizes)' if data['settings']['quick'] else ''}",
        f"{machine['cpu']}, {machine['cores']} cores, Python {machine['python']}; {versions}",
        f"repeats: {data['settings']['repeats']} (compile: {data['settings']['compile_repeats']}); "
        f"threads per backend: {data['settings']['threads']}; wall time {data['settings']['wall_seconds']} s",
        "median [p10-p90] per call; compile rows: seconds to first result",
        "",
        *table(["workload", *backends], time_rows),
        "",
        "ONNX time / baseline time (below 1: ONNX is faster)",
        *table(["workload", *baselines], ratio_rows),
    ]
    lines += torch_lines(data.get("torch_comparison"))
    if data["skipped_backends"]:
        lines += [
            "",
            "Skipped: "
            + "; ".join(f"{k}: {v}" for k, v in data["skipped_backends"].items()),
        ]
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
