// The float32 and int8 (quantize="static") models side by side: file size,
// latency of one digit and agreement on the test digits. Uses demo.js's
// MODEL_NAMES, state, predict, latencies and percentile; window.demoInt8
// exposes it to tests.
"use strict";

const int8Name = (name) => `${name}_int8`;

async function loadInt8() {
  await window.demo.ready;
  for (const name of MODEL_NAMES) {
    state.sessions[int8Name(name)] = await ort.InferenceSession.create(
      `models/${int8Name(name)}.onnx`, { executionProviders: ["wasm"] });
  }
}

async function medianLatency(name, digit, samples, warmup) {
  return percentile((await latencies(name, digit, samples, warmup)).times, 0.5);
}

function accuracy(probabilities, labels) {
  return probabilities.filter((p, i) => argmax(p) === labels[i]).length / labels.length;
}

async function compareInt8(samples = 50, warmup = 10) {
  const { images, labels } = state.testset;
  const results = {};
  for (const name of MODEL_NAMES) {
    const float32 = await predict(name, images);
    const int8 = await predict(int8Name(name), images);
    results[name] = {
      float32: { bytes: state.info[name].bytes, accuracy: accuracy(float32, labels),
                 median_ms: await medianLatency(name, images[0], samples, warmup) },
      int8: { bytes: state.info[name].int8.bytes, accuracy: accuracy(int8, labels),
              median_ms: await medianLatency(int8Name(name), images[0], samples, warmup) },
      agreement: accuracy(int8, float32.map(argmax)),
    };
  }
  const rows = MODEL_NAMES.flatMap((name) => ["float32", "int8"].map((variant) => {
    const r = results[name][variant];
    const agrees = variant === "int8" ? `${(results[name].agreement * 100).toFixed(1)}%` : "";
    return `<tr><td>${name} ${variant}</td><td>${(r.bytes / 1024).toFixed(1)} KiB</td>` +
      `<td>${r.median_ms.toFixed(3)}</td><td>${(r.accuracy * 100).toFixed(1)}%</td><td>${agrees}</td></tr>`;
  }));
  document.querySelector("#int8-comparison tbody").innerHTML = rows.join("");
  return results;
}

const int8Ready = loadInt8().then(() => {
  const button = document.getElementById("compare-int8");
  button.disabled = false;
  button.addEventListener("click", () => compareInt8());
});

window.demoInt8 = { ready: int8Ready, compare: compareInt8 };
