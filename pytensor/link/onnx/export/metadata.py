"""What an exported model says about itself: producer, versions, metadata."""

import json

from onnx import helper
from pytensor.link.onnx.export.precision import PRECISION_REPORT_METADATA


PRODUCER = "pytensor-onnx"


# Metadata key of the JSON object {key input: advanced key output or null}
RANDOM_KEYS_METADATA = "random_keys"


def set_metadata(model, options, random_keys):
    import pytensor

    model.producer_name = PRODUCER
    model.producer_version = package_version()
    model.doc_string = options.doc_string
    model.model_version = int(options.model_version)
    props = {"pytensor_version": pytensor.__version__}
    if random_keys:
        props[RANDOM_KEYS_METADATA] = json.dumps(random_keys)
    extra = dict(options.metadata or {})
    reserved = sorted(
        set(extra) & {*props, RANDOM_KEYS_METADATA, PRECISION_REPORT_METADATA}
    )
    if reserved:
        raise ValueError(f"metadata: the export writes {reserved} itself")
    if not all(isinstance(v, str) and isinstance(k, str) for k, v in extra.items()):
        raise TypeError("metadata: keys and values must be strings")
    helper.set_model_props(model, props | extra)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PRODUCER)
    except PackageNotFoundError:
        return "unknown"
