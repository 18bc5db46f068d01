"""Drive the demo page in headless Chromium: shared by its end-to-end test
(tests/link/onnx/test_demo.py) and ``screenshot.py``.

Debian's ``chromium`` package (``apt-get install chromium``), run through
Playwright with the system executable (Playwright's own browser download is
not needed).
"""

from pathlib import Path


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_installed() -> bool:
    return Path(CHROMIUM).is_file()


def launch(playwright):
    """Headless Chromium, from a ``sync_playwright()`` context."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def open_demo(browser, url, width, height=1100, problems=None):
    """A new page showing the demo at ``url``, ``width`` px wide, its models
    loaded. ``problems``, a list, collects uncaught exceptions, console errors
    and failed requests."""
    page = browser.new_page(viewport={"width": width, "height": height})
    if problems is not None:

        def on_console(message):
            if message.type == "error":
                problems.append(f"console error: {message.text}")

        def on_response(response):
            if response.status >= 400:
                problems.append(f"HTTP {response.status}: {response.url}")

        page.on("pageerror", lambda error: problems.append(f"exception: {error}"))
        page.on("console", on_console)
        page.on("response", on_response)
        page.on(
            "requestfailed", lambda request: problems.append(f"failed: {request.url}")
        )
    page.goto(url)
    page.wait_for_function("document.body.dataset.ready !== undefined", timeout=60_000)
    return page


def draw_stroke(page, points=None):
    """Draw on the pad with the mouse through ``points`` (fractions of the
    pad's width and height; by default a vertical stroke, a 1) and wait for
    the predictions."""
    points = points or [(0.5, 0.15 + 0.07 * step) for step in range(11)]
    page.locator("#pad").scroll_into_view_if_needed()
    box = page.locator("#pad").bounding_box()
    at = [
        (box["x"] + box["width"] * x, box["y"] + box["height"] * y) for x, y in points
    ]
    page.mouse.move(*at[0])
    page.mouse.down()
    for point in at[1:]:
        page.mouse.move(*point)
    page.mouse.up()
    page.wait_for_selector("#predictions [data-model='cnn'] .guess")


# A 7: the top bar, then the diagonal
SEVEN = [(0.2, 0.15), (0.5, 0.15), (0.8, 0.15), (0.65, 0.45), (0.5, 0.7), (0.4, 0.9)]


def fill_page(page, benchmark_samples=20):
    """Fill every card: a drawn 7, test digits, benchmark, int8, eight schools."""
    draw_stroke(page, SEVEN)
    page.click("#random")
    page.wait_for_selector("#samples .sample")
    page.evaluate(f"demo.benchmark({benchmark_samples}, 5)")
    page.evaluate(
        f"demoInt8.ready.then(() => demoInt8.compare({benchmark_samples}, 5))"
    )
    page.evaluate("schools.ready.then(() => schools.fit())")
    # one frame, for the layout of the new content
    page.evaluate("new Promise((resolve) => requestAnimationFrame(resolve))")
