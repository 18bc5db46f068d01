"""Reading and editing ONNX graphs: which values nodes read, renaming, copying;
how many nodes they hold and run."""

import json
import os
import tempfile
from collections import Counter

import onnx


def rename_input(node: onnx.NodeProto, old: str, new: str):
    """Rename the input ``old`` of ``node`` and of the nodes of its subgraphs."""
    for position, name in enumerate(node.input):
        if name == old:
            node.input[position] = new
    for attribute in node.attribute:
        for graph in [attribute.g] if attribute.HasField("g") else attribute.graphs:
            for inner in graph.node:
                rename_input(inner, old, new)


def names_used_inside(graph: onnx.GraphProto) -> dict[str, None]:
    """The value names read by the nodes of ``graph``, of its nested subgraphs
    and by its outputs, in order of first use."""
    used = {}
    for node in graph.node:
        used.update(dict.fromkeys(node.input))
        for attribute in node.attribute:
            for subgraph in (attribute.g, *attribute.graphs):
                used.update(names_used_inside(subgraph))
    used.update(dict.fromkeys(info.name for info in graph.output))
    return used


def value_readers(graph) -> Counter:
    """How many nodes (or graph outputs) of ``graph`` read each value.

    A subgraph that reads a value counts once, however many of its nodes do.
    """
    readers = Counter(info.name for info in graph.output)
    for node in graph.node:
        readers.update(node.input)
        for attribute in node.attribute:
            for subgraph in (attribute.g, *attribute.graphs):
                readers.update(names_used_inside(subgraph).keys())
    return readers


def replace_uses(graph, mapping):
    """Make every node read ``mapping[name]`` instead of ``name``, subgraphs included."""
    if not mapping:
        return
    for node in graph.node:
        for position, name in enumerate(node.input):
            if name in mapping:
                node.input[position] = mapping[name]
        for attribute in node.attribute:
            for subgraph in [attribute.g, *attribute.graphs]:
                local = defined_names(subgraph)
                replace_uses(
                    subgraph, {k: v for k, v in mapping.items() if k not in local}
                )


def defined_names(graph) -> set[str]:
    names = {info.name for info in graph.input}
    names |= {t.name for t in graph.initializer}
    names |= {out for node in graph.node for out in node.output}
    return names


def count_nodes(graph: onnx.GraphProto) -> int:
    """The nodes of ``graph``, those of the subgraphs of its nodes included."""
    total = len(graph.node)
    for node in graph.node:
        for attribute in node.attribute:
            subgraphs = [attribute.g] if attribute.HasField("g") else []
            total += sum(count_nodes(g) for g in (*subgraphs, *attribute.graphs))
    return total


def nodes_per_loop_depth(graph: onnx.GraphProto, depth=0, counts=None) -> dict:
    """The nodes of ``graph`` by how many ``Loop`` bodies deep they are (0:
    outside every loop), ``If`` branches counted with the graph they are in:
    onnxruntime runs the nodes of a body at every iteration."""
    counts = {} if counts is None else counts
    counts[depth] = counts.get(depth, 0) + len(graph.node)
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                inner = depth + (node.op_type == "Loop")
                nodes_per_loop_depth(attribute.g, inner, counts)
    return counts


def nodes_run(model: onnx.ModelProto, inputs) -> int:
    """How many nodes onnxruntime runs to compute ``model`` on ``inputs`` once
    (from its profile): those of the ``If`` branches taken and of every
    ``Loop`` iteration, the ``If`` and ``Loop`` nodes themselves not."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.enable_profiling, options.intra_op_num_threads = True, 1
    with tempfile.TemporaryDirectory() as directory:
        options.profile_file_prefix = os.path.join(directory, "profile")
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        names = [info.name for info in session.get_inputs()]
        session.run(None, dict(zip(names, inputs, strict=True)))
        with open(session.end_profiling()) as profile:
            events = json.load(profile)
    return sum(
        event.get("cat") == "Node"
        and event["name"].endswith("_kernel_time")
        and event["args"].get("op_name") not in ("If", "Loop")
        for event in events
    )


def remove_unread(graph: onnx.GraphProto):
    """Remove the nodes of ``graph`` whose outputs nothing reads, and unread constants.

    Converters that fuse Ops read through nodes they do not remove (see
    ``DenseLayerFusion``); this is where those nodes go when nothing else
    reads them. Nodes are in topological order.
    """
    read = {info.name for info in graph.output}
    kept = []
    for node in reversed(graph.node):
        if not read.intersection(node.output):
            continue
        kept.append(node)
        read.update(node.input)
        for attribute in node.attribute:
            for subgraph in (attribute.g, *attribute.graphs):
                read.update(names_used_inside(subgraph))
    if len(kept) < len(graph.node):
        del graph.node[:]
        graph.node.extend(reversed(kept))
    unread = [t for t in graph.initializer if t.name not in read]
    for tensor in unread:
        graph.initializer.remove(tensor)


def model_without(model, initializer_names) -> onnx.ModelProto:
    """A copy of ``model`` without the named initializers, which are never copied."""
    copy = onnx.ModelProto()
    copy_fields(model, copy, skip={"graph"})
    copy_fields(model.graph, copy.graph, skip={"initializer"})
    copy.graph.initializer.extend(
        t for t in model.graph.initializer if t.name not in initializer_names
    )
    return copy


def is_repeated(field) -> bool:
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def copy_fields(source, destination, skip):
    for field, value in source.ListFields():
        if field.name in skip:
            continue
        if is_repeated(field):
            getattr(destination, field.name).extend(value)
        elif field.type == field.TYPE_MESSAGE:
            getattr(destination, field.name).CopyFrom(value)
        else:
            setattr(destination, field.name, value)
