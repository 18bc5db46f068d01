"""Untrusted ONNX files are safe to open: crafted files give clear errors."""

import os
import tracemalloc

import numpy as np
import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from pytensor.link.onnx import import_onnx
from pytensor.link.onnx.importer import ONNXImportError, UnsupportedONNXError
from tests.link.onnx.utils import make_model, run_imported


def model_with_weight(weight: TensorProto):
    """``y = x + w`` with ``w`` the initializer ``weight``."""
    node = helper.make_node("Add", ["x", "w"], ["y"])
    shape = list(weight.dims)
    return make_model(
        [node],
        [("x", TensorProto.FLOAT, shape)],
        [("y", TensorProto.FLOAT, shape)],
        initializers=[weight],
    )


def external_weight(location, dims=(4,), offset=0, length=None):
    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(dims))
    tensor.data_location = TensorProto.EXTERNAL
    entries = {"location": location, "offset": str(offset)}
    if length is not None:
        entries["length"] = str(length)
    for key, value in entries.items():
        tensor.external_data.add(key=key, value=value)
    return tensor


def save(model, folder, name="model.onnx"):
    path = folder / name
    path.write_bytes(model.SerializeToString())
    return path


def test_external_data_inside_the_folder_is_read(tmp_path):
    (tmp_path / "weights.bin").write_bytes(np.arange(4, dtype="float32").tobytes())
    path = save(model_with_weight(external_weight("weights.bin")), tmp_path)
    x = np.ones(4, dtype="float32")
    [y] = run_imported(path, {"x": x})
    np.testing.assert_array_equal(y, x + np.arange(4))


@pytest.mark.parametrize(
    "location",
    ["../weights.bin", "sub/../../weights.bin", "/etc/passwd", "", "missing.bin"],
)
def test_external_data_outside_the_folder_is_refused(tmp_path, location):
    inner = tmp_path / "model"
    (inner / "sub").mkdir(parents=True)
    (tmp_path / "weights.bin").write_bytes(bytes(16))
    path = save(model_with_weight(external_weight(location)), inner)
    with pytest.raises(ONNXImportError, match="external data"):
        import_onnx(path)


def test_symlink_leaving_the_folder_is_refused(tmp_path):
    inner = tmp_path / "model"
    inner.mkdir()
    (tmp_path / "secret.bin").write_bytes(bytes(16))
    os.symlink(tmp_path / "secret.bin", inner / "weights.bin")
    path = save(model_with_weight(external_weight("weights.bin")), inner)
    with pytest.raises(ONNXImportError, match="leaves the model's folder"):
        import_onnx(path)


def test_symlink_inside_the_folder_is_followed(tmp_path):
    (tmp_path / "real.bin").write_bytes(np.ones(4, dtype="float32").tobytes())
    os.symlink(tmp_path / "real.bin", tmp_path / "weights.bin")
    path = save(model_with_weight(external_weight("weights.bin")), tmp_path)
    [y] = run_imported(path, {"x": np.zeros(4, dtype="float32")})
    np.testing.assert_array_equal(y, np.ones(4))


def test_external_data_needs_a_folder_when_given_a_model_proto(tmp_path):
    with pytest.raises(ONNXImportError, match="base_dir"):
        import_onnx(model_with_weight(external_weight("weights.bin")))


def peak_memory_of(function):
    tracemalloc.start()
    try:
        function()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    "dims, match",
    [
        ((2**30,), "holds only"),  # 4 GiB declared, 16 bytes present
        ((2**40, 2**10), "more than the limit"),
    ],
)
def test_declared_sizes_are_checked_before_allocating(tmp_path, dims, match):
    (tmp_path / "weights.bin").write_bytes(bytes(16))
    path = save(model_with_weight(external_weight("weights.bin", dims)), tmp_path)

    def load():
        with pytest.raises(ONNXImportError, match=match):
            import_onnx(path)

    assert peak_memory_of(load) < 2**22  # 4 MiB of the 4 GiB (or more) declared


def test_external_length_disagreeing_with_dims_is_refused(tmp_path):
    (tmp_path / "weights.bin").write_bytes(bytes(64))
    weight = external_weight("weights.bin", (4,), length=64)
    path = save(model_with_weight(weight), tmp_path)
    with pytest.raises(ONNXImportError, match="declares 16 bytes"):
        import_onnx(path)


def test_inline_data_shorter_than_its_dims_is_refused():
    weight = numpy_helper.from_array(np.ones(4, dtype="float32"), "w")
    weight.dims[:] = [1000, 1000]
    with pytest.raises(ONNXImportError, match="holds 16 values/bytes"):
        import_onnx(model_with_weight(weight).SerializeToString())


def valid_model_bytes():
    weight = numpy_helper.from_array(np.arange(6, dtype="float32").reshape(2, 3), "w")
    return model_with_weight(weight).SerializeToString()


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00" * 10, b"not an onnx file at all", b"\xff" * 100],
    ids=["empty", "zeros", "text", "ff"],
)
def test_garbage_bytes_give_a_clear_error(data):
    with pytest.raises(ONNXImportError):
        import_onnx(data)


@given(st.integers(min_value=1, max_value=len(valid_model_bytes()) - 1))
def test_truncated_files_give_a_clear_error(end):
    with pytest.raises((ONNXImportError, UnsupportedONNXError)):
        import_onnx(valid_model_bytes()[:end])


@given(st.binary(min_size=1, max_size=300))
def test_random_bytes_never_crash(data):
    try:
        import_onnx(data)
    except (ONNXImportError, UnsupportedONNXError):
        pass


def test_a_missing_file_gives_a_clear_error(tmp_path):
    with pytest.raises(ONNXImportError, match="cannot read"):
        import_onnx(tmp_path / "nothing.onnx")


def test_huge_dims_in_value_infos_allocate_nothing():
    node = helper.make_node("Relu", ["x"], ["y"])
    model = make_model(
        [node],
        [("x", TensorProto.FLOAT, [2**40, 2**20])],
        [("y", TensorProto.FLOAT, [2**40, 2**20])],
    )
    peak = peak_memory_of(lambda: import_onnx(model))
    assert peak < 2**24


def test_old_opsets_are_upgraded():
    node = helper.make_node("Relu", ["x"], ["y"])
    model = make_model(
        [node],
        [("x", TensorProto.FLOAT, [3])],
        [("y", TensorProto.FLOAT, [3])],
        opset=6,
    )
    [y] = run_imported(model, {"x": np.array([-1, 0, 2], dtype="float32")})
    np.testing.assert_array_equal(y, [0, 0, 2])


def test_a_model_that_fails_the_checker_is_refused():
    node = helper.make_node("Relu", ["x"], ["y"])
    model = make_model([node], [("x", TensorProto.FLOAT, [3])], [("y", 1, [3])])
    model.graph.node.append(helper.make_node("Relu", ["x"], ["y"]))
    with pytest.raises(ONNXImportError, match="not a valid ONNX model"):
        import_onnx(model)


def test_loading_does_not_modify_the_caller_s_model(tmp_path):
    model = onnx.ModelProto.FromString(valid_model_bytes())
    before = model.SerializeToString()
    import_onnx(model)
    assert model.SerializeToString() == before
