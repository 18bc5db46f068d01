"""Serve the browser demo on 127.0.0.1: its page, the exported models and onnxruntime-web.

Only the files listed in :func:`demo_files` are served; everything else is a
404. Stop with Ctrl-C.

Run with ``bash scripts/run_example.sh`` or
``python examples/onnx_demo/serve.py [models directory] [--port PORT]``.
"""

import argparse
import http.server
import signal
import threading
from functools import partial
from pathlib import Path


HERE = Path(__file__).parent
STATIC = ("index.html", "demo.js", "int8.js", "schools.js", "style.css")
MODEL_FILES = (
    "mlp.onnx",
    "cnn.onnx",
    "mlp_int8.onnx",
    "cnn_int8.onnx",
    "models.json",
    "testset.json",
    "schools_nuts.onnx",
    "schools.json",
)
RUNTIME_FILES = (
    "ort.wasm.min.js",
    "ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm",
)
RUNTIME = HERE / "node_modules" / "onnxruntime-web" / "dist"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
}


def demo_files(models_dir) -> dict[str, Path]:
    """``{URL path: file}`` of everything the page needs."""
    files = {f"/{name}": HERE / name for name in STATIC}
    files["/"] = HERE / "index.html"
    files |= {f"/models/{name}": Path(models_dir) / name for name in MODEL_FILES}
    files |= {f"/ort/{name}": RUNTIME / name for name in RUNTIME_FILES}
    return files


class DemoHandler(http.server.BaseHTTPRequestHandler):
    """Answers GET and HEAD for the files of ``demo_files`` only."""

    def __init__(self, *args, files, quiet=False, **kwargs):
        self.files = files
        self.quiet = quiet
        super().__init__(*args, **kwargs)

    def do_GET(self):
        self.send_file(with_body=True)

    def do_HEAD(self):
        self.send_file(with_body=False)

    def send_file(self, with_body):
        path = self.files.get(self.path.split("?", 1)[0])
        if path is None or not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES[path.suffix])
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def make_server(models_dir, port=0, quiet=False) -> http.server.ThreadingHTTPServer:
    """A server of the demo on ``127.0.0.1:port`` (``0``: a free port), not yet started."""
    missing = [p for p in demo_files(models_dir).values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(
            f"missing {', '.join(map(str, missing))}: run train.py, and `npm ci` in "
            f"{HERE}"
        )
    handler = partial(DemoHandler, files=demo_files(models_dir), quiet=quiet)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve_in_thread(models_dir, port=0):
    """Start a quiet server in a daemon thread; return it (``server.shutdown()`` stops it)."""
    server = make_server(models_dir, port, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="?", type=Path, default=HERE / "models")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    # Ctrl-C, and a plain kill, stop the server even when started in the
    # background (where SIGINT is ignored unless reinstated).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with make_server(args.models, args.port) as server:
        host, port = server.server_address[:2]
        print(f"Demo at http://{host}:{port}/  (Ctrl-C to stop)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nstopped")


if __name__ == "__main__":
    main()
