"""How pytensor-onnx is installed: the start-up hook, the wheel, uninstalling.

PyTensor has no plugin entry points, so the distribution ships
``pytensor_onnx.pth``, whose single line runs ``_autoload.py`` at interpreter
start-up. These tests run fresh interpreters, because only a fresh interpreter
shows what a user gets from ``import pytensor``.
"""

import importlib.metadata
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parents[3]
AUTOLOAD = REPO_ROOT / "pytensor" / "link" / "onnx" / "_autoload.py"
PTH_NAME = "pytensor_onnx.pth"

USE_MODE = """
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode

x = pt.vector("x")
f = pytensor.function([x], x * 2, mode={mode})
print(type(f.maker.linker).__name__, f(np.array([1.0, 2.0])).tolist())
"""
MODE_WORKS = "ONNXLinker [2.0, 4.0]"


def run_python(code, *args, python=sys.executable, flags=(), cwd, env=None):
    """Run ``code`` in a fresh interpreter and return what it printed."""
    result = subprocess.run(
        [str(python), *flags, "-c", code, *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def installed_pth() -> Path:
    for directory in site.getsitepackages():
        path = Path(directory, PTH_NAME)
        if path.exists():
            return path
    pytest.fail(f"{PTH_NAME} is not installed: run `pip install -e .` again")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ['"ONNX"', '"onnx"', 'Mode(linker="onnx")'])
def test_mode_available_without_importing_the_backend(mode, tmp_path):
    assert run_python(USE_MODE.format(mode=mode), cwd=tmp_path) == MODE_WORKS


@pytest.mark.slow
def test_importing_the_backend_first_also_works(tmp_path):
    code = "from pytensor.link.onnx import export_onnx\n" + USE_MODE
    assert run_python(code.format(mode='"ONNX"'), cwd=tmp_path) == MODE_WORKS


@pytest.mark.slow
def test_import_pytensor_registers_the_mode_but_loads_no_onnx(tmp_path):
    code = (
        "import sys, pytensor\n"
        "from pytensor.compile.mode import predefined_modes\n"
        "print('ONNX' in predefined_modes,"
        " sorted({m.split('.')[0] for m in sys.modules} & {'onnx', 'onnxruntime'}))"
    )
    assert run_python(code, cwd=tmp_path) == "True []"


@pytest.mark.slow
def test_the_registry_loads_every_dispatch_module(tmp_path):
    # A converter module that dispatch/__init__.py does not import is missing
    # from mode="ONNX" in a fresh interpreter, whatever its tests say.
    code = (
        "import sys, pytensor.link.onnx.dispatch\n"
        "print(*[m for m in sys.modules if m.startswith('pytensor.link.onnx.dispatch.')])"
    )
    loaded = set(run_python(code, cwd=tmp_path).split())
    modules = {
        f"pytensor.link.onnx.dispatch.{path.stem}"
        for path in (AUTOLOAD.parent / "dispatch").glob("*.py")
        if path.stem != "__init__"
    }
    assert sorted(modules - loaded) == []


def test_installed_pth_runs_the_current_autoload_source():
    assert repr(AUTOLOAD.read_text()) in installed_pth().read_text(), (
        "the installed .pth is stale: run `pip install -e .` again"
    )


def test_startup_imports_nothing_heavy(tmp_path):
    code = (
        "import sys, json; print(json.dumps({'modules': sorted(sys.modules),"
        " 'finders': [getattr(f, '__name__', '') for f in sys.meta_path]}))"
    )
    started = json.loads(run_python(code, cwd=tmp_path))
    assert "RegisterONNXModeOnPyTensorImport" in started["finders"]
    heavy = {"pytensor", "onnx", "onnxruntime", "numpy", "google"}
    assert not [m for m in started["modules"] if m.split(".")[0] in heavy]


STARTUP_HOOK_BENCHMARK = REPO_ROOT / "benchmarks" / "startup_hook.py"


def hook_profile(pth, cwd):
    """What ``benchmarks/startup_hook.py`` reports for ``pth`` (its cost is
    the benchmark's to print, not a test's to assert)."""
    arguments = ["--pth", pth, "--runs", "3", "--json"]
    done = subprocess.run(
        [sys.executable, STARTUP_HOOK_BENCHMARK, *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_startup_hook_imports_only_the_stdlib(tmp_path):
    profile = hook_profile(installed_pth(), tmp_path)
    assert profile["non_stdlib_modules"] == []


def test_startup_hook_profile_sees_heavy_hooks(tmp_path):
    heavy = tmp_path / "heavy.pth"
    heavy.write_text("import numpy\n")
    profile = hook_profile(heavy, tmp_path)
    assert "numpy" in profile["non_stdlib_modules"]
    assert profile["median_s"] > 0


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel pip builds from a copy of the files the build reads."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(
        REPO_ROOT / "pytensor",
        source / "pytensor",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    out = tmp_path_factory.mktemp("wheel")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet"]
    result = subprocess.run(
        [*pip_wheel, "--wheel-dir", out, source], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    [path] = out.glob("pytensor_onnx-*.whl")
    return path


@pytest.mark.slow
def test_wheel_contains_only_the_backend_and_the_pth(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    version = wheel.name.split("-")[1]
    dist_info = f"pytensor_onnx-{version}.dist-info/"
    assert [
        n
        for n in names
        if not n.startswith(("pytensor/link/onnx/", dist_info)) and n != PTH_NAME
    ] == []
    modules = {
        p.relative_to(REPO_ROOT).as_posix()
        for pattern in ("*.py", "*.json")
        for p in AUTOLOAD.parent.rglob(pattern)
        if "__pycache__" not in p.parts
    }
    assert {n for n in names if n.startswith("pytensor/")} == modules
    pth = zipfile.ZipFile(wheel).read(PTH_NAME).decode()
    assert pth.count("\n") == 1
    assert repr(AUTOLOAD.read_text()) in pth


def copy_installed_distribution(name, site_packages: Path):
    """Copy the files an installed distribution owns (per its RECORD)."""
    dist = importlib.metadata.distribution(name)
    for file in dist.files:
        if ".." in file.parts or "__pycache__" in file.parts:
            continue
        target = site_packages / file
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(dist.locate_file(file), target)


@pytest.fixture
def venv_with_pytensor(tmp_path):
    """A new virtualenv with its own copy of the running PyTensor.

    PyTensor must be in the new venv's own site-packages: that is where pip
    puts the wheel's ``pytensor/link/onnx`` and where ``import pytensor``
    must find both. Copying exactly the files in PyTensor's RECORD keeps out
    any ``pytensor/link/onnx`` that a non-editable install of this package
    put into the running environment's PyTensor. The other dependencies
    (numpy, onnxruntime, pip...) come from the running environment through a
    ``.pth`` line, which adds a directory to ``sys.path`` after the venv's own
    site-packages without running the ``.pth`` files found there.
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    site_packages = Path(
        run_python(
            "import sysconfig; print(sysconfig.get_path('purelib'))",
            python=python,
            cwd=tmp_path,
        )
    )
    copy_installed_distribution("pytensor", site_packages)
    (site_packages / "running_environment.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONNOUSERSITE"] = "1"
    return python, site_packages, env


@pytest.mark.slow
def test_wheel_installs_works_and_uninstalls_cleanly(
    wheel, venv_with_pytensor, tmp_path
):
    python, site_packages, env = venv_with_pytensor

    def pip(*args):
        subprocess.run(
            [python, "-m", "pip", *args, "--quiet"], check=True, env=env, cwd=tmp_path
        )

    # --ignore-installed: pip also sees the running environment's
    # pytensor-onnx through the .pth and must not treat it as installed here.
    pip("install", "--no-deps", "--no-index", "--ignore-installed", wheel)
    assert (site_packages / PTH_NAME).exists()
    code = (
        "import sys\n"
        + USE_MODE.format(mode='"ONNX"')
        + "print(sys.modules['pytensor.link.onnx'].__file__)"
    )
    works, backend_file = run_python(
        code, python=python, cwd=tmp_path, env=env
    ).splitlines()
    assert works == MODE_WORKS
    assert Path(backend_file).is_relative_to(site_packages)

    pip("uninstall", "--yes", "pytensor-onnx")
    assert not (site_packages / PTH_NAME).exists()
    assert not (site_packages / "pytensor" / "link" / "onnx").exists()
    after = run_python(
        "import pytensor, pytensor.compile.mode as m, importlib.util as u\n"
        "print(pytensor.__version__, 'ONNX' in m.predefined_modes,"
        " u.find_spec('pytensor.link.onnx') is None)",
        python=python,
        cwd=tmp_path,
        env=env,
    )
    assert after == f"{importlib.metadata.version('pytensor')} False True"
