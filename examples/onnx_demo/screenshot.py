"""Take the demo's screenshot (``screenshot.png``, shown by the README and the
tutorial) from the models ``run_example.sh`` trained, as the end-to-end test
drives the page: a 7 drawn, test digits classified, a short benchmark run,
eight schools fitted.

    NO_SERVE=1 bash scripts/run_example.sh    # trains and exports the models
    .venv-3.0.7/bin/python examples/onnx_demo/screenshot.py [--width 1280] [--out FILE]

Needs Debian's ``chromium`` and the ``demo`` extra (Playwright).
"""

import argparse
import importlib.util
import sys
from pathlib import Path


HERE = Path(__file__).resolve().parent


def demo_module(name):
    spec = importlib.util.spec_from_file_location(
        f"onnx_demo_{name}", HERE / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def take(models_dir, out, width, height, full_page):
    from playwright.sync_api import sync_playwright

    browser_module, serve = demo_module("browser"), demo_module("serve")
    server = serve.serve_in_thread(models_dir)
    problems = []
    try:
        with sync_playwright() as playwright:
            browser = browser_module.launch(playwright)
            url = f"http://127.0.0.1:{server.server_address[1]}/"
            page = browser_module.open_demo(browser, url, width, height, problems)
            browser_module.fill_page(page, benchmark_samples=100)
            if not full_page:  # the view while drawing
                page.evaluate("demo.clearPad()")
                browser_module.draw_stroke(page, browser_module.SEVEN)
            page.screenshot(path=out, full_page=full_page)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    if problems:
        raise SystemExit("the page reported problems:\n" + "\n".join(problems))
    print(f"wrote {out} ({width} px wide)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=HERE / "models")
    parser.add_argument("--out", type=Path, default=HERE / "screenshot.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument(
        "--viewport",
        action="store_true",
        help="only the window (as seen while drawing), not the whole page",
    )
    args = parser.parse_args()
    take(args.models, args.out, args.width, args.height, not args.viewport)


if __name__ == "__main__":
    main()
