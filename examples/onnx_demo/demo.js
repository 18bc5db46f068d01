// The demo page: runs the exported models with onnxruntime-web (loaded by
// ort.wasm.min.js as the global `ort`). window.demo exposes the page's own
// inference code to scripts and tests.
"use strict";

const MODEL_NAMES = ["mlp", "cnn"];
const SIDE = 8;
const MAX_INTENSITY = 16;

ort.env.wasm.wasmPaths = new URL("ort/", location.href).href;
ort.env.wasm.numThreads = 1;

const state = { sessions: {}, info: {}, testset: null };

async function fetchJSON(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

async function load() {
  state.info = await fetchJSON("models/models.json");
  state.testset = await fetchJSON("models/testset.json");
  for (const name of MODEL_NAMES) {
    state.sessions[name] = await ort.InferenceSession.create(`models/${name}.onnx`, {
      executionProviders: ["wasm"],
    });
  }
}

// images: array of 64-value arrays (row-major 8x8, intensities 0..16).
// Returns one array of 10 class probabilities per image.
async function predict(name, images) {
  const session = state.sessions[name];
  const data = new Float32Array(images.length * SIDE * SIDE);
  images.forEach((image, i) => data.set(image, i * SIDE * SIDE));
  const feeds = { [session.inputNames[0]]: new ort.Tensor("float32", data, [images.length, SIDE, SIDE]) };
  const results = await session.run(feeds);
  const probabilities = results[session.outputNames[0]].data;
  return images.map((_, i) => Array.from(probabilities.subarray(i * 10, (i + 1) * 10)));
}

function argmax(values) {
  return values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
}

// ---- drawing pad ------------------------------------------------------------

const pad = document.getElementById("pad");
const padContext = pad.getContext("2d");

function clearPad() {
  padContext.fillStyle = "#000";
  padContext.fillRect(0, 0, pad.width, pad.height);
  showDigit(document.getElementById("seen"), new Array(SIDE * SIDE).fill(0));
  document.getElementById("predictions").replaceChildren();
}

function inkBounds(pixels, width, height) {
  let top = height, left = width, bottom = -1, right = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (pixels[(y * width + x) * 4] > 0) {
        top = Math.min(top, y); bottom = Math.max(bottom, y);
        left = Math.min(left, x); right = Math.max(right, x);
      }
    }
  }
  return bottom < 0 ? null : { left, top, width: right - left + 1, height: bottom - top + 1 };
}

// The drawing as the models' input: the stroke's bounding box scaled (keeping
// its aspect ratio) to fill a centred square, then each 32x32 block averaged
// and scaled to 0..16.
function drawingAsDigit() {
  const { width, height } = pad;
  const bounds = inkBounds(padContext.getImageData(0, 0, width, height).data, width, height);
  if (!bounds) return null;
  const square = document.createElement("canvas");
  square.width = width; square.height = height;
  const context = square.getContext("2d");
  context.fillStyle = "#000";
  context.fillRect(0, 0, width, height);
  const scale = Math.min(width / bounds.width, height / bounds.height);
  const w = bounds.width * scale, h = bounds.height * scale;
  context.drawImage(pad, bounds.left, bounds.top, bounds.width, bounds.height,
                    (width - w) / 2, (height - h) / 2, w, h);
  const pixels = context.getImageData(0, 0, width, height).data;
  const block = width / SIDE;
  const digit = new Array(SIDE * SIDE).fill(0);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      digit[Math.floor(y / block) * SIDE + Math.floor(x / block)] += pixels[(y * width + x) * 4];
    }
  }
  return digit.map((sum) => (sum / (block * block * 255)) * MAX_INTENSITY);
}

function showDigit(canvas, digit) {
  const context = canvas.getContext("2d");
  const image = context.createImageData(SIDE, SIDE);
  digit.forEach((value, i) => {
    const level = Math.round((value / MAX_INTENSITY) * 255);
    image.data.set([level, level, level, 255], i * 4);
  });
  context.putImageData(image, 0, 0);
}

function bars(probabilities) {
  const top = argmax(probabilities);
  const container = document.createElement("div");
  probabilities.forEach((p, digit) => {
    const row = document.createElement("div");
    row.className = digit === top ? "bar top" : "bar";
    row.innerHTML = `<span>${digit}</span><div class="fill" style="width:${(p * 100).toFixed(1)}%"></div><span>${(p * 100).toFixed(1)}%</span>`;
    container.append(row);
  });
  return container;
}

async function classifyDrawing() {
  const digit = drawingAsDigit();
  if (!digit) return null;
  showDigit(document.getElementById("seen"), digit);
  const output = document.getElementById("predictions");
  const predictions = {};
  const blocks = [];
  for (const name of MODEL_NAMES) {
    const [probabilities] = await predict(name, [digit]);
    predictions[name] = probabilities;
    const block = document.createElement("div");
    block.className = "model";
    block.dataset.model = name;
    block.innerHTML = `<strong>${name.toUpperCase()}</strong>: <span class="guess">${argmax(probabilities)}</span>`;
    block.append(bars(probabilities));
    blocks.push(block);
  }
  output.replaceChildren(...blocks);
  return { digit, predictions };
}

let drawing = false, last = null, pending = false;

function position(event) {
  const rect = pad.getBoundingClientRect();
  return [(event.clientX - rect.left) * (pad.width / rect.width),
          (event.clientY - rect.top) * (pad.height / rect.height)];
}

function stroke(to) {
  padContext.strokeStyle = "#fff";
  padContext.lineWidth = 18;
  padContext.lineCap = padContext.lineJoin = "round";
  padContext.beginPath();
  padContext.moveTo(...(last || to));
  padContext.lineTo(...to);
  padContext.stroke();
  last = to;
  if (!pending) {
    pending = true;
    requestAnimationFrame(async () => {
      await classifyDrawing();
      pending = false;
    });
  }
}

pad.addEventListener("pointerdown", (event) => {
  drawing = true; last = null;
  pad.setPointerCapture(event.pointerId);
  stroke(position(event));
});
pad.addEventListener("pointermove", (event) => { if (drawing) stroke(position(event)); });
for (const type of ["pointerup", "pointercancel"]) {
  pad.addEventListener(type, () => { drawing = false; last = null; classifyDrawing(); });
}
document.getElementById("clear").addEventListener("click", clearPad);

// ---- test-set digits, benchmark, metadata -----------------------------------

// `count` distinct indices of 0..n-1 (the first steps of a Fisher-Yates shuffle).
function sampleWithoutReplacement(n, count) {
  const indices = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < Math.min(count, n); i++) {
    const j = i + Math.floor(Math.random() * (n - i));
    [indices[i], indices[j]] = [indices[j], indices[i]];
  }
  return indices.slice(0, count);
}

async function classifyTestDigits(count = 8) {
  const { images, labels } = state.testset;
  const picks = sampleWithoutReplacement(labels.length, count);
  const predictions = {};
  for (const name of MODEL_NAMES) predictions[name] = await predict(name, picks.map((i) => images[i]));
  const container = document.getElementById("samples");
  container.className = "samples";
  container.replaceChildren(...picks.map((index, k) => {
    const sample = document.createElement("div");
    sample.className = "sample";
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = SIDE;
    canvas.className = "digit";
    showDigit(canvas, images[index]);
    sample.append(canvas);
    const lines = [`#${index} label <b>${labels[index]}</b>`].concat(MODEL_NAMES.map((name) => {
      const guess = argmax(predictions[name][k]);
      const cls = guess === labels[index] ? "" : ' class="wrong"';
      return `${name}: <span${cls}>${guess}</span> (${(predictions[name][k][guess] * 100).toFixed(0)}%)`;
    }));
    sample.insertAdjacentHTML("beforeend", `<div>${lines.join("<br>")}</div>`);
    return sample;
  }));
  return { picks, predictions };
}

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

// Per-inference latencies (ms, sorted) of model `name` on one digit, after a
// warm-up. Browsers coarsen performance.now() (to 0.1 ms without cross-origin
// isolation), so each of the `samples` times a group of inferences lasting at
// least 2 ms (as many as ran in 2 ms after the warm-up) and records its mean.
async function latencies(name, digit, samples, warmup) {
  for (let i = 0; i < warmup; i++) await predict(name, [digit]);
  let group = 0;
  let start = performance.now();
  while (performance.now() - start < 2) {
    await predict(name, [digit]);
    group++;
  }
  const times = [];
  for (let i = 0; i < samples; i++) {
    start = performance.now();
    for (let j = 0; j < group; j++) await predict(name, [digit]);
    times.push((performance.now() - start) / group);
  }
  return { inferences: samples * group, times: times.sort((a, b) => a - b) };
}

async function benchmark(samples = 100, warmup = 20) {
  const digit = state.testset.images[0];
  const results = {};
  for (const name of MODEL_NAMES) {
    const { inferences, times } = await latencies(name, digit, samples, warmup);
    results[name] = { inferences, median_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95) };
  }
  document.querySelector("#latency tbody").replaceChildren(...MODEL_NAMES.map((name) => {
    const row = document.createElement("tr");
    const r = results[name];
    row.innerHTML = `<td>${name}</td><td>${r.inferences}</td><td>${r.median_ms.toFixed(3)}</td><td>${r.p95_ms.toFixed(3)}</td>`;
    return row;
  }));
  return results;
}

function describeValues(values) {
  // <wbr>: the shape may go to the next line
  return values.map((v) => `${v.name}: ${v.dtype}[<wbr>${v.shape.join(", ")}]`).join("<br>");
}

// The models table; each cell carries its column's label, which narrow windows
// show next to the value (style.css) instead of the header row.
const METADATA_COLUMNS = [
  ["model", ""], ["architecture", "text"], ["opset", ""], ["size", ""], ["weights", ""],
  ["nodes", ""], ["inputs", "text"], ["outputs", "text"], ["test accuracy", ""],
];

function showMetadata() {
  const rows = MODEL_NAMES.map((name) => {
    const info = state.info[name];
    const session = state.sessions[name];
    const values = [
      name, info.description, info.opset, `${(info.bytes / 1024).toFixed(1)} KiB`, info.parameters, info.nodes,
      describeValues(info.inputs.filter((v) => session.inputNames.includes(v.name))),
      describeValues(info.outputs.filter((v) => session.outputNames.includes(v.name))),
      `${(info.test_accuracy * 100).toFixed(1)}%`,
    ];
    const cells = values.map((value, i) => {
      const [label, cls] = METADATA_COLUMNS[i];
      return `<td data-label="${label}"${cls ? ` class="${cls}"` : ""}>${value}</td>`;
    });
    return `<tr>${cells.join("")}</tr>`;
  });
  const header = METADATA_COLUMNS.map(([label, cls]) => `<th${cls ? ` class="${cls}"` : ""}>${label}</th>`);
  document.getElementById("metadata").innerHTML = `<table><thead><tr>${header.join("")}</tr></thead>
    <tbody>${rows.join("")}</tbody></table>
    <p class="note">Producer: ${state.info.mlp.producer}. Runtime: onnxruntime-web ${ort.env.versions.web}, wasm backend.</p>`;
}

const ready = load().then(() => {
  clearPad();
  showMetadata();
  document.getElementById("random").addEventListener("click", () => classifyTestDigits());
  document.getElementById("benchmark").addEventListener("click", () => benchmark());
  document.getElementById("status").textContent = "Models loaded: draw a digit below.";
  document.body.dataset.ready = "true";
}).catch((error) => {
  document.getElementById("status").textContent = `Could not load the models: ${error}`;
  document.body.dataset.ready = "error";
  throw error;
});

window.demo = {
  ready, predict, classifyDrawing, drawingAsDigit, classifyTestDigits, sampleWithoutReplacement, benchmark, clearPad,
};
