// The eight-schools card: fits eight schools (non-centred) in the page with
// the NUTS sampler exported by schools.py. The model is one chunk of draws;
// this file calls it chunk after chunk as sample_nuts does in Python: each
// output next_<input> is that input of the next chunk (the random key
// included; an input without such an output stays), and between chunks the
// mass matrix is set from the variance of the draws where a warm-up window
// closes. window.schools exposes it to tests.
"use strict";

const SCHOOL_TYPED_ARRAYS = {
  float64: Float64Array, float32: Float32Array, int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};
const WELFORD_INPUTS = ["welford_count", "welford_mean", "welford_m2"];

const schoolsState = { session: null, info: null };

function schoolsTensor(dtype, data, shape) {
  const values = dtype === "int64" || dtype === "uint64" ? data.map((v) => BigInt(v)) : data;
  return new ort.Tensor(dtype, SCHOOL_TYPED_ARRAYS[dtype].from(values), shape);
}

async function loadSchools() {
  const response = await fetch("models/schools.json");
  if (!response.ok) throw new Error(`models/schools.json: HTTP ${response.status}`);
  schoolsState.info = await response.json();
  schoolsState.session = await ort.InferenceSession.create(`models/${schoolsState.info.file}`, {
    executionProviders: ["wasm"],
  });
  const inputs = schoolsState.session.inputNames;
  const expected = ["n_draws", "tuning", "accumulate", "depth_limit", "log_step", "log_step_bar",
                    "inverse_mass", ...WELFORD_INPUTS];
  const missing = expected.filter((name) => !inputs.includes(name));
  if (missing.length) throw new Error(`the sampler has no input ${missing.join(", ")}`);
}

// Stan's regularised variance of a window of `count` draws, from Welford's sums.
function regularizedVariance(count, m2) {
  const n = count.data[0];
  const variance = m2.data.map((s) => (n / (n + 5)) * (s / (n - 1)) + 1e-3 * (5 / (n + 5)));
  return new ort.Tensor(m2.type, variance, m2.dims);
}

// Runs the warm-up and the draws; returns the draws (chains, tune + draws,
// n) as nested arrays, the divergences and the leapfrog steps after the
// warm-up, the seconds taken, and the adapted step size and inverse mass
// matrix (chain-major, as the model's state).
async function sampleSchools(onChunk = () => {}) {
  const { session, info } = schoolsState;
  let state = Object.fromEntries(Object.entries(info.state).map(
    ([name, { dtype, data, shape }]) => [name, schoolsTensor(dtype, data, shape)]));
  const chains = info.chains, total = info.tune + info.draws;
  const draws = Array.from({ length: chains }, () => []);
  let done = 0, divergences = 0, steps = 0;
  const start = performance.now();
  for (const chunk of info.schedule) {
    if (chunk.starts_sampling) state.log_step = state.log_step_bar;
    const results = await session.run({
      ...state,
      n_draws: schoolsTensor("int64", [chunk.n_draws], []),
      tuning: schoolsTensor("bool", [chunk.tuning], []),
      accumulate: schoolsTensor("bool", [chunk.accumulate], []),
      depth_limit: schoolsTensor("int64", [chunk.depth_limit], []),
    });
    const [, , n] = results.draws.dims;
    for (let d = 0; d < chunk.n_draws; d++) {
      for (let c = 0; c < chains; c++) {
        const offset = (d * chains + c) * n;
        draws[c].push(Array.from(results.draws.data.subarray(offset, offset + n)));
        if (done + d >= info.tune) {
          divergences += results.diverging.data[d * chains + c];
          steps += Number(results.n_steps.data[d * chains + c]);
        }
      }
    }
    state = Object.fromEntries(Object.entries(state).map(([name, value]) => [name, results[`next_${name}`] ?? value]));
    if (chunk.closes_window) {
      state.inverse_mass = regularizedVariance(state.welford_count, state.welford_m2);
      for (const name of WELFORD_INPUTS) {
        const { type, size, dims } = state[name];
        state[name] = new ort.Tensor(type, new SCHOOL_TYPED_ARRAYS[type](size), dims);
      }
    }
    done += chunk.n_draws;
    onChunk(done, total);
  }
  const seconds = (performance.now() - start) / 1000;
  const adapted = { step_size: Array.from(state.log_step.data, Math.exp), inverse_mass: Array.from(state.inverse_mass.data) };
  return { draws, divergences, steps, seconds, adapted };
}

function meanAndSd(values) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return [mean, Math.sqrt(variance)];
}

// Posterior draws after the warm-up of mu, tau and theta = mu + tau * theta_offset.
function schoolsPosterior(draws, tune) {
  const kept = draws.flatMap((chain) => chain.slice(tune));
  const mu = kept.map((q) => q[0]);
  const tau = kept.map((q) => Math.exp(q[1]));
  const theta = Array.from({ length: kept[0].length - 2 }, (_, j) => kept.map((q, i) => mu[i] + tau[i] * q[2 + j]));
  return { mu, tau, theta };
}

function schoolsSummary(posterior) {
  return { mu: meanAndSd(posterior.mu), tau: meanAndSd(posterior.tau), theta: posterior.theta.map(meanAndSd) };
}

function quantile(sorted, q) {
  return sorted[Math.round(q * (sorted.length - 1))];
}

// A histogram of the central 99% of `values`.
function drawHistogram(canvas, values, label, bins = 40) {
  const sorted = [...values].sort((a, b) => a - b);
  const low = quantile(sorted, 0.005), high = quantile(sorted, 0.995);
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    if (v >= low && v <= high) counts[Math.min(bins - 1, Math.floor(((v - low) / (high - low)) * bins))]++;
  }
  const context = canvas.getContext("2d");
  const { width, height } = canvas;
  context.clearRect(0, 0, width, height);
  context.fillStyle = "#3b6ea5";
  const top = Math.max(...counts);
  counts.forEach((count, i) => {
    const h = (count / top) * (height - 18);
    context.fillRect((i * width) / bins, height - h, width / bins - 1, h);
  });
  context.fillStyle = "#000";
  context.font = "12px sans-serif";
  context.fillText(`${label}, central 99%: ${low.toFixed(1)} to ${high.toFixed(1)}`, 2, 12);
}

// The posterior table: one row per quantity, with the school's observed
// effect; "–" before a fit.
function showSummary(summary) {
  const { info } = schoolsState;
  const cells = (ms) => (ms ? ms.map((v) => v.toFixed(2)) : ["–", "–"]);
  const row = (name, ms, effect = "") => `<tr><td>${name}</td><td>${cells(ms).join("</td><td>")}</td><td>${effect}</td></tr>`;
  const rows = [row("mu", summary?.mu), row("tau", summary?.tau),
                ...info.effects.map((effect, j) => row(`theta[${j}]`, summary?.theta[j], effect))];
  document.querySelector("#schools-summary tbody").innerHTML = rows.join("");
}

function showSchoolsRun(result) {
  const { info } = schoolsState;
  document.getElementById("schools-stats").textContent =
    `${info.chains} chains × ${info.tune} warm-up + ${info.draws} draws in ${result.seconds.toFixed(1)} s ` +
    `(${info.schedule.length} calls of the model, ${result.steps} leapfrog steps after the warm-up), ` +
    `${result.divergences} divergences. Plain onnxruntime in Python: ${info.onnxruntime.seconds} s, ` +
    `${info.onnxruntime.divergences} divergences.`;
}

async function fitSchools() {
  const button = document.getElementById("fit-schools");
  button.disabled = true;
  const progress = document.getElementById("schools-progress");
  try {
    const result = await sampleSchools((done, total) => { progress.value = done / total; });
    const posterior = schoolsPosterior(result.draws, schoolsState.info.tune);
    const summary = schoolsSummary(posterior);
    showSummary(summary);
    showSchoolsRun(result);
    drawHistogram(document.getElementById("schools-mu"), posterior.mu, "mu");
    drawHistogram(document.getElementById("schools-tau"), posterior.tau, "tau");
    return { ...result, summary };
  } finally {
    button.disabled = false;
  }
}

const schoolsReady = loadSchools().then(() => {
  showSummary(null);
  const button = document.getElementById("fit-schools");
  button.disabled = false;
  button.addEventListener("click", () => fitSchools());
});

window.schools = { ready: schoolsReady, sample: sampleSchools, fit: fitSchools };
