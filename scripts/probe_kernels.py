"""Measure which (ONNX op, dtype) pairs an ONNX runtime has kernels for.

Writes ``pytensor/link/onnx/kernels/onnxruntime.json``, the measured kernel
tables that the converters and the export targets read.
For every operator of the default ONNX domain and every binding of its type
constraints to the dtypes PyTensor has, it builds a one-node model with
inputs of unknown shape and asks the runtime to create a session: the
session fails with "Could not find an implementation" exactly when no
kernel is registered. Any other failure means the probe could not build a
valid node for that operator; such operators are left out of the table (the
target check then reports them as unknown rather than guessing).

Usage (regenerates the data file; without ``--write`` it prints it)::

    python scripts/probe_kernels.py --write
    python scripts/probe_kernels.py --write --only QuantizeLinear  # these rows only

``onnxruntime`` is probed in-process; ``onnxruntime-web`` is installed with
npm into a temporary directory and probed with Node (its wasm backend) and
stored as its differences from ``onnxruntime``.
"""

import argparse
import base64
import itertools
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
from onnx import defs, helper

from pytensor.link.onnx.builder import onnx_dtype
from pytensor.link.onnx.export.targets import MIN_OPSET, schema_dtypes
from pytensor.link.onnx.kernels import DTYPES, MEASUREMENTS, TENSOR_TYPES


NO_KERNEL = re.compile("Could not find an implementation|Failed to find kernel")
ORT_WEB_VERSION = "1.30.0"
PREFERRED = ["float32", "int64", "bool", "float64", "int32", "uint8"]
MAX_PRODUCT = 200

# Attribute values needed to build a valid node (required attributes, or
# values without which the kernel refuses the dtype).
ATTRIBUTES = {
    "Cast": lambda b: {"to": onnx_dtype(b["T2"])},
    "Concat": lambda b: {"axis": 0},
    "Einsum": lambda b: {"equation": "ij,jk->ik"},
    "Mod": lambda b: {"fmod": int(b["T"].startswith("float"))},
    "ConstantOfShape": lambda b: {
        "value": helper.make_tensor("v", onnx_dtype(b["T2"]), [1], [0])
    },
    "EyeLike": lambda b: {"dtype": onnx_dtype(b["T2"])},
    "Bernoulli": lambda b: {"dtype": onnx_dtype(b["T2"])},
    "Multinomial": lambda b: {"dtype": onnx_dtype(b["T2"])},
    "RandomNormalLike": lambda b: {"dtype": onnx_dtype(b["T2"])},
    "RandomUniformLike": lambda b: {"dtype": onnx_dtype(b["T2"])},
    "HannWindow": lambda b: {"output_datatype": onnx_dtype(b["T2"])},
    "HammingWindow": lambda b: {"output_datatype": onnx_dtype(b["T2"])},
    "BlackmanWindow": lambda b: {"output_datatype": onnx_dtype(b["T2"])},
    "MelWeightMatrix": lambda b: {"output_datatype": onnx_dtype(b["T3"])},
    "AveragePool": lambda b: {"kernel_shape": [1]},
    "MaxPool": lambda b: {"kernel_shape": [1]},
    "LpPool": lambda b: {"kernel_shape": [1]},
    "BitShift": lambda b: {"direction": "LEFT"},
    "DepthToSpace": lambda b: {"blocksize": 1},
    "SpaceToDepth": lambda b: {"blocksize": 1},
    "LRN": lambda b: {"size": 1},
    "GroupNormalization": lambda b: {"num_groups": 1},
}
VARIADIC_ARITY = {"Einsum": 2}
# Optional inputs probed as well: their dtype is the output's (without the
# zero point, QuantizeLinear's output is uint8 whatever the binding says).
OPTIONAL_INPUTS = {"QuantizeLinear": {"y_zero_point"}}


def bindings(schema):
    """Type-constraint bindings to probe: every combination when there are few, else each constraint alone."""
    allowed = schema_dtypes(schema)
    if not all(allowed.values()):
        return []
    if math.prod(len(dtypes) for dtypes in allowed.values()) <= MAX_PRODUCT:
        return [
            dict(zip(allowed, combo, strict=True))
            for combo in itertools.product(*allowed.values())
        ]
    default = {
        name: next((d for d in PREFERRED if d in dtypes), dtypes[0])
        for name, dtypes in allowed.items()
    }
    return [
        {**default, name: dtype} for name, dtypes in allowed.items() for dtype in dtypes
    ]


def formal_dtype(formal, binding):
    return binding.get(formal.type_str) or TENSOR_TYPES.get(formal.type_str)


def value_infos(prefix, formals, binding, variadic_arity, optional=frozenset()):
    infos = []
    for i, formal in enumerate(formals):
        is_optional = formal.option == defs.OpSchema.FormalParameterOption.Optional
        if is_optional and formal.name not in optional:
            continue
        dtype = formal_dtype(formal, binding)
        if dtype is None:
            return None
        count = (
            variadic_arity
            if formal.option == defs.OpSchema.FormalParameterOption.Variadic
            else 1
        )
        infos += [
            helper.make_tensor_value_info(f"{prefix}{i}_{k}", onnx_dtype(dtype), None)
            for k in range(count)
        ]
    return infos


def control_flow_node(schema, binding):
    """Loop and If with a trivial body carrying one value of the probed dtype."""
    dtype = onnx_dtype(binding["V"])
    if schema.name == "Loop":
        body = helper.make_graph(
            [
                helper.make_node("Identity", ["c_in"], ["c_out"]),
                helper.make_node("Identity", ["v_in"], ["v_out"]),
            ],
            "body",
            [
                helper.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
                helper.make_tensor_value_info("c_in", onnx.TensorProto.BOOL, []),
                helper.make_tensor_value_info("v_in", dtype, None),
            ],
            [
                helper.make_tensor_value_info("c_out", onnx.TensorProto.BOOL, []),
                helper.make_tensor_value_info("v_out", dtype, None),
            ],
        )
        inputs = [
            helper.make_tensor_value_info("m", onnx.TensorProto.INT64, []),
            helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            helper.make_tensor_value_info("v", dtype, None),
        ]
        return (
            helper.make_node("Loop", ["m", "c", "v"], ["out"], body=body),
            inputs,
            [helper.make_tensor_value_info("out", dtype, None)],
        )
    branch = [
        helper.make_graph(
            [helper.make_node("Identity", ["v"], [f"b{k}"])],
            f"branch{k}",
            [],
            [helper.make_tensor_value_info(f"b{k}", dtype, None)],
        )
        for k in range(2)
    ]
    inputs = [
        helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
        helper.make_tensor_value_info("v", dtype, None),
    ]
    node = helper.make_node(
        "If", ["c"], ["out"], then_branch=branch[0], else_branch=branch[1]
    )
    return node, inputs, [helper.make_tensor_value_info("out", dtype, None)]


def single_node_model(schema, binding, opset):
    if schema.name in ("Loop", "If"):
        node, inputs, outputs = control_flow_node(schema, binding)
    else:
        if (
            any(a.required for a in schema.attributes.values())
            and schema.name not in ATTRIBUTES
        ):
            return None
        arity = VARIADIC_ARITY.get(schema.name, 1)
        optional = OPTIONAL_INPUTS.get(schema.name, frozenset())
        inputs = value_infos("in", schema.inputs, binding, arity, optional)
        outputs = value_infos("out", schema.outputs, binding, 1)
        if inputs is None or outputs is None or not outputs:
            return None
        attributes = ATTRIBUTES.get(schema.name, lambda b: {})(binding)
        node = helper.make_node(
            schema.name,
            [i.name for i in inputs],
            [o.name for o in outputs],
            **attributes,
        )
    graph = helper.make_graph([node], "probe", inputs, outputs)
    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(
        graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets)
    )


def probe_cases(opsets, only=None):
    """``(key, model bytes)`` for every probed (op, model opset, binding).

    Availability depends on the model's opset and not only on the operator's
    version: onnxruntime falls back to an operator's function body only when
    that body is defined for the model's opset.
    """
    names = sorted(
        {s.name for s in defs.get_all_schemas_with_history() if s.domain == ""}
    )
    if only:
        names = [name for name in names if name in only]
    for opset in opsets:
        for name in names:
            try:
                schema = defs.get_schema(name, opset, "")
            except defs.SchemaError:
                continue
            if schema.deprecated:
                continue
            for binding in bindings(schema):
                model = single_node_model(schema, binding, opset)
                if model is not None:
                    yield (
                        (name, opset, tuple(binding.items())),
                        model.SerializeToString(),
                    )


def opset_model(opset):
    opsets = [helper.make_opsetid("", opset)]
    info = [
        helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None)
        for n in ("x", "y")
    ]
    graph = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["y"])], "probe", info[:1], info[1:]
    )
    return helper.make_model(
        graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets)
    ).SerializeToString()


def run_onnxruntime(models):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    results = []
    for model in models:
        try:
            ort.InferenceSession(
                model, sess_options=options, providers=["CPUExecutionProvider"]
            )
            results.append("ok")
        except Exception as err:
            results.append(str(err))
    return results, ort.__version__


NODE_SCRIPT = """
const ort = require('onnxruntime-web');
const fs = require('fs');
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'fatal';
(async () => {
  const models = JSON.parse(fs.readFileSync(process.argv[2]));
  const results = [];
  for (const model of models) {
    try {
      await ort.InferenceSession.create(Buffer.from(model, 'base64'), {graphOptimizationLevel: 'disabled'});
      results.push('ok');
    } catch (e) { results.push(String(e.message)); }
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(results));
})();
"""


def run_onnxruntime_web(models):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [
                "npm",
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                f"onnxruntime-web@{ORT_WEB_VERSION}",
            ],
            cwd=tmp,
            check=True,
            capture_output=True,
        )
        (tmp / "probe.js").write_text(NODE_SCRIPT)
        (tmp / "models.json").write_text(
            json.dumps([base64.b64encode(m).decode() for m in models])
        )
        subprocess.run(
            ["node", "probe.js", "models.json", "results.json"], cwd=tmp, check=True
        )
        return json.loads((tmp / "results.json").read_text()), ORT_WEB_VERSION


RUNNERS = {"onnxruntime": run_onnxruntime, "onnxruntime-web": run_onnxruntime_web}


def probe(target, only=None):
    """Return the measured kernel table and limits of ``target`` (of the operators ``only``)."""
    run = RUNNERS[target]
    candidate_opsets = list(range(MIN_OPSET, defs.onnx_opset_version() + 1))
    accepted, version = run([opset_model(o) for o in candidate_opsets])
    max_opset = max(
        o for o, r in zip(candidate_opsets, accepted, strict=True) if r == "ok"
    )
    cases = list(probe_cases(range(MIN_OPSET, max_opset + 1), only))
    results, version = run([model for _, model in cases])
    kernels, inconclusive = {}, {}
    for (name, opset, binding), result in zip(
        (key for key, _ in cases), results, strict=True
    ):
        entry = kernels.setdefault(name, {}).setdefault(opset, set())
        if result == "ok":
            entry.add(tuple(dtype for _, dtype in binding))
        elif not NO_KERNEL.search(result):
            inconclusive.setdefault((name, opset), result.splitlines()[0][:160])
    for name, opset in inconclusive:
        if not kernels[name][opset]:
            del kernels[name][opset]
            if not kernels[name]:
                del kernels[name]
    constraints = {
        name: {
            opset: [
                c.type_param_str
                for c in defs.get_schema(name, opset, "").type_constraints
            ]
            for opset in opsets
        }
        for name, opsets in kernels.items()
    }
    return {
        "version": version,
        "max_opset": max_opset,
        "kernels": kernels,
        "constraints": constraints,
        "inconclusive": inconclusive,
    }


def compress(signatures, constraint_names):
    """Encode a set of bindings as a product of per-constraint dtype sets when it is one."""
    if not signatures:
        return ""
    columns = [
        sorted({s[i] for s in signatures}, key=DTYPES.index)
        for i in range(len(constraint_names))
    ]
    if len(signatures) == len(list(itertools.product(*columns))):
        return "; ".join(
            f"{n}: {' '.join(c)}"
            for n, c in zip(constraint_names, columns, strict=True)
        )
    return " | ".join(
        ",".join(s)
        for s in sorted(signatures, key=lambda s: [DTYPES.index(d) for d in s])
    )


def kernel_specs(data):
    """``{op_type: {first_opset: spec}}``, a spec only where it changes."""
    specs = {}
    for name in sorted(data["kernels"]):
        by_opset = {
            opset: compress(signatures, data["constraints"][name][opset])
            for opset, signatures in sorted(data["kernels"][name].items())
        }
        specs[name] = {
            str(o): spec for o, spec in by_opset.items() if by_opset.get(o - 1) != spec
        }
    return specs


def render(measurements, base="onnxruntime"):
    """The data file: one line per operator; other runtimes as differences from ``base``."""
    return render_specs(
        {
            target: {
                "version": data["version"],
                "max_opset": data["max_opset"],
                "kernels": kernel_specs(data),
            }
            for target, data in measurements.items()
        },
        base,
    )


def stored_specs():
    """The stored tables, every runtime's complete, opsets as strings."""
    from pytensor.link.onnx.kernels import measurements

    return {
        target: data
        | {
            "kernels": {
                name: {str(o): spec for o, spec in versions.items()}
                for name, versions in data["kernels"].items()
            }
        }
        for target, data in measurements().items()
    }


def updated_specs(measurements, only):
    """The stored tables with the rows of the operators ``only`` measured anew."""
    tables = stored_specs()
    for target, data in measurements.items():
        kernels = tables[target]["kernels"]
        measured = kernel_specs(data)
        for name in only:
            kernels.pop(name, None)
            if name in measured:
                kernels[name] = measured[name]
        tables[target]["kernels"] = dict(sorted(kernels.items()))
    return tables


def render_specs(tables, base="onnxruntime"):
    base_specs = tables[base]["kernels"] if base in tables else {}
    blocks = []
    for target, table in tables.items():
        specs = table["kernels"]
        header = {"version": table["version"], "max_opset": table["max_opset"]}
        if target != base and base_specs:
            header["differences_from"] = base
            specs = {
                name: specs.get(name)
                for name in sorted(set(specs) | set(base_specs))
                if specs.get(name) != base_specs.get(name)
            }
        lines = [f"   {json.dumps(k)}: {json.dumps(v)}," for k, v in header.items()]
        rows = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in specs.items()]
        blocks.append(
            f"  {json.dumps(target)}: {{\n"
            + "\n".join(lines)
            + '\n   "kernels": {\n'
            + ",\n".join(rows)
            + "\n   }\n  }"
        )
    return (
        "{\n"
        ' "generated_by": "python scripts/probe_kernels.py --write",\n'
        f' "onnx": {json.dumps(onnx.__version__)},\n'
        ' "runtimes": {\n' + ",\n".join(blocks) + "\n }\n}\n"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", choices=list(RUNNERS))
    parser.add_argument(
        "--write", action="store_true", help=f"rewrite {MEASUREMENTS.name}"
    )
    parser.add_argument(
        "--output", type=Path, default=MEASUREMENTS, help="where --write writes"
    )
    parser.add_argument(
        "--only",
        action="append",
        help="probe only this operator and update its rows of the stored table",
    )
    args = parser.parse_args(argv)
    measurements = {
        target: probe(target, args.only) for target in args.target or list(RUNNERS)
    }
    for target, data in measurements.items():
        print(
            f"{target} {data['version']}: opset <= {data['max_opset']}, {len(data['kernels'])} ops",
            file=sys.stderr,
        )
        for (name, since), reason in sorted(data["inconclusive"].items()):
            print(f"  inconclusive {name}-{since}: {reason}", file=sys.stderr)
    if args.only:
        table = render_specs(updated_specs(measurements, args.only))
    else:
        table = render(measurements)
    if args.write:
        args.output.write_text(table)
    else:
        print(table, end="")


if __name__ == "__main__":
    main()
