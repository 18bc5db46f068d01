import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.raise_op
import pytensor.sparse
import pytensor.tensor as pt
import pytensor.typed_list
import pytest
from pytensor.compile.mode import Mode, get_mode
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.raise_op import Assert

import pytensor
from pytensor.link.onnx import ONNXLinker
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.session import ONNXRuntimeFailure
from tests.link.onnx.utils import (
    compare_onnx_and_py,
    no_rewrites,
    onnx_mode,
    onnx_model_of,
    py_mode,
)


@pytest.mark.parametrize("mode", ["ONNX", "onnx", Mode(linker="onnx")])
def test_mode_spellings(mode):
    x = pt.vector("x")
    fn = pytensor.function([x], x * 2, mode=mode)
    assert isinstance(fn.maker.linker, ONNXLinker)
    np.testing.assert_array_equal(fn(np.array([1.0, 2.0])), [2.0, 4.0])


def test_the_mode_setting_takes_onnx():
    x = pt.vector("x")
    with pytensor.config.change_flags(mode="ONNX"):
        fn = pytensor.function([x], x * 2)
    assert isinstance(fn.maker.linker, ONNXLinker)
    with pytest.raises(ValueError, match="Expected one of"):
        pytensor.config.mode = "NOT_A_MODE"


@pytest.mark.slow
def test_pytensor_flags_select_the_onnx_mode_at_import():
    script = (
        "import pytensor, pytensor.tensor as pt\n"
        "x = pt.vector('x')\n"
        "print(pytensor.config.mode, type(pytensor.function([x], x).maker.linker).__name__)"
    )
    env = {**os.environ, "PYTENSOR_FLAGS": "mode=ONNX"}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ONNX", "ONNXLinker"]


def test_one_model_one_session_per_function():
    x = pt.matrix("x")
    y = pt.exp(x) * x + 1
    fn = pytensor.function([x], [y, y * 2], mode="ONNX")
    linker = fn.maker.linker
    assert isinstance(linker.onnx_model, onnx.ModelProto)
    assert linker.onnx_model.opset_import[0].version == 18
    assert linker.onnx_model.ir_version == 8
    assert linker.onnx_session is fn.vm.jit_fn.session
    other = pytensor.function([x], y, mode="ONNX")
    assert other.maker.linker is not linker
    assert other.maker.linker.onnx_session is not linker.onnx_session


def test_linker_settings_survive_for_every_function():
    mode = Mode(ONNXLinker(opset=20), "fast_run")
    x = pt.vector("x")
    first = pytensor.function([x], x + 1, mode=mode)
    second = pytensor.function([x], x + 2, mode=mode)
    for fn in (first, second):
        assert onnx_model_of(fn).opset_import[0].version == 20


@pytest.mark.parametrize("opset", [17, 18, 21])
def test_the_linker_builds_models_at_its_opset(opset):
    # Opset 17 takes ReduceMax's axes as an attribute, 18 as an input
    m = pt.matrix("m")
    mode = Mode(ONNXLinker(opset=opset), "fast_run")
    fn = pytensor.function([m], [m.max(axis=0), m.sum(axis=1)], mode=mode)
    assert onnx_model_of(fn).opset_import[0].version == opset
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fn(value)[0], value.max(axis=0))
    np.testing.assert_array_equal(fn(value)[1], value.sum(axis=1))


def test_registering_twice_is_harmless():
    from pytensor.link.onnx import register_onnx_mode

    register_onnx_mode()
    register_onnx_mode()
    assert get_mode("ONNX") is onnx_mode


def test_shared_variables_are_fed_every_call():
    w = shared(np.array([1.0, 2.0]), name="w")
    x = pt.vector("x")
    fn = pytensor.function([x], x * w, mode="ONNX")
    np.testing.assert_array_equal(fn(np.ones(2)), [1.0, 2.0])
    w.set_value(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(fn(np.ones(2)), [3.0, 4.0])


def test_updates_accumulate():
    counter = shared(np.array(0, dtype="int64"), name="counter")
    total = shared(np.zeros(3), name="total")
    x = pt.vector("x")
    fn = pytensor.function(
        [x], total, updates={counter: counter + 1, total: total + x}, mode="ONNX"
    )
    for _ in range(3):
        fn(np.array([1.0, 2.0, 3.0]))
    assert counter.get_value() == 3
    np.testing.assert_array_equal(total.get_value(), [3.0, 6.0, 9.0])


@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "int8", "int64", "uint8", "bool"]
)
def test_outputs_that_alias_inputs_or_repeat(dtype):
    x = pt.vector("x", dtype=dtype)
    values = np.array([1, 0, 1], dtype=dtype)
    compare_onnx_and_py([x], [x, x, pt.as_tensor(np.array([1], dtype=dtype))], [values])


def test_output_is_constant_only():
    x = pt.vector("x")
    fn = pytensor.function(
        [x], pt.constant(np.arange(3.0)), mode="ONNX", on_unused_input="ignore"
    )
    np.testing.assert_array_equal(fn(np.zeros(2)), np.arange(3.0))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zero_d_and_empty(dtype):
    s = pt.scalar("s", dtype=dtype)
    m = pt.matrix("m", dtype=dtype)
    compare_onnx_and_py(
        [s, m],
        [s * 2, m + s],
        [np.asarray(1.5, dtype=dtype), np.zeros((0, 3), dtype=dtype)],
    )


def test_value_infos_carry_static_and_symbolic_shapes():
    x = pt.tensor("x", shape=(None, 3), dtype="float32")
    fn = pytensor.function([x], x + 1, mode="ONNX")
    [inp] = onnx_model_of(fn).graph.input
    dims = inp.type.tensor_type.shape.dim
    assert dims[0].dim_param == "x_dim0"
    assert dims[1].dim_value == 3
    assert inp.type.tensor_type.elem_type == onnx.TensorProto.FLOAT


def test_user_names_kept():
    x = pt.vector("x")
    y = (x + 1).copy(name="y")
    fn = pytensor.function([x], y, mode="ONNX")
    model = onnx_model_of(fn)
    assert [i.name for i in model.graph.input] == ["x"]
    assert [o.name for o in model.graph.output] == ["y"]


def test_check_and_raise_raises_like_other_modes():
    from pytensor.raise_op import Assert

    sigma = pt.scalar("sigma")
    checked = Assert("sigma must be positive")(sigma, pt.gt(sigma, 0))
    fn = pytensor.function([sigma], checked * 2, mode="ONNX")
    assert fn(2.0) == 4.0
    with pytest.raises(AssertionError, match="sigma must be positive"):
        fn(-1.0)


@pytest.mark.parametrize(
    "make_input, type_name",
    [
        (lambda: pytensor.sparse.csr_matrix("x"), "SparseTensorType"),
        (
            lambda: pytensor.typed_list.TypedListType(pt.dvector, depth=1)("x"),
            "TypedListType",
        ),
    ],
)
def test_unsupported_input_type_fails_at_compile_time(make_input, type_name):
    x = make_input()
    with pytest.raises(
        NotImplementedError,
        match=rf"(?s)ONNX backend cannot take the input .*{type_name}",
    ):
        pytensor.function([x], x, mode="ONNX")


def test_unsupported_op_names_op_and_variable():
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class MyUnknownOp(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]

    x = pt.vector("x")
    y = MyUnknownOp()(x)
    y.name = "mystery"
    with pytest.raises(
        NotImplementedError, match=r"(?s)MyUnknownOp.*mystery.*onnx_funcify.register"
    ):
        pytensor.function([x], y, mode="ONNX")


def test_constants_keep_their_dtype():
    x = pt.vector("x", dtype="int64")
    compare_onnx_and_py([x], [x + np.int64(2**40)], [np.array([1, 2], dtype="int64")])


def test_one_value_behind_several_outputs():
    x = pt.vector("x")
    y = pt.exp(x)
    compare_onnx_and_py([x], [y, y * 1, y, y.copy()], [np.array([0.0, 1.0])])


def type_casting_ops():
    from pytensor import gradient

    ops = {
        "view": lambda x: pytensor.compile.ops.view_op(x),
        "zero_grad": gradient.zero_grad,
        "disconnected_grad": gradient.disconnected_grad,
        "grad_clip": lambda x: gradient.grad_clip(x, -1.0, 1.0),
        "grad_scale": lambda x: gradient.grad_scale(x, 2.0),
    }
    try:
        from pytensor.assumptions import assume
    except ImportError:  # PyTensor < 3
        return ops
    ops["assume"] = lambda x: assume(x, positive_definite=True)
    return ops


@pytest.mark.parametrize(
    "op", type_casting_ops().values(), ids=type_casting_ops().keys()
)
def test_type_casting_ops_pass_their_input_through(op):
    x = pt.matrix("x")
    compare_onnx_and_py(
        [x], op(x) * 2.0, [np.arange(4.0).reshape(2, 2)], onnx_mode=no_rewrites
    )


@pytest.mark.parametrize("factor", [1 + 1e-9, 1 - 5e-9], ids=["1e-9", "-5e-9"])
def test_a_product_with_a_constant_close_to_one_is_kept(factor):
    # onnxruntime's NoopElimination would drop the Mul (the linker disables it)
    x = pt.vector("x")
    compare_onnx_and_py([x], pt.exp(pt.sin(x) * factor), [np.array([3.0, 0.5])])


def test_compiled_functions_pickle_with_their_model(monkeypatch):
    w = shared(np.array([1.0, 2.0]), name="w")
    x = pt.vector("x")
    fn = pytensor.function([x], (x * w).sum(), updates={w: w + 1}, mode="ONNX")
    fn(np.ones(2))
    pickled = pickle.dumps(fn)

    def no_conversion(*args, **kwargs):
        raise AssertionError("unpickling converted the graph again")

    monkeypatch.setattr(pytensor.link.onnx.dispatch, "onnx_funcify", no_conversion)
    copy = pickle.loads(pickled)
    assert copy.maker.linker.onnx_model == onnx_model_of(fn)
    assert copy(np.ones(2)) == fn(np.ones(2)) == 5.0
    assert copy(np.ones(2)) == 7.0


def test_session_options_survive_pickling():
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    x = pt.vector("x")
    fn = pytensor.function(
        [x], pt.exp(x), mode=Mode(ONNXLinker(session_options=options), "fast_run")
    )
    copy = pickle.loads(pickle.dumps(fn))
    assert copy.maker.linker.session_options.intra_op_num_threads == 2
    np.testing.assert_array_equal(copy(np.zeros(2)), [1.0, 1.0])


@pytest.mark.parametrize("share_memory", [False, True])
def test_copied_functions_update_like_in_other_modes(share_memory):
    def calls(mode):
        w = shared(np.array(1.0), name="w")
        fn = pytensor.function([], w, updates={w: w * 2}, mode=mode)
        copy = fn.copy(share_memory=share_memory)
        return [fn(), fn(), copy(), copy(), w.get_value()]

    assert calls("ONNX") == calls(py_mode)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "float64", "bool"])
def test_outputs_have_the_numpy_types_of_other_modes(dtype):
    x = pt.vector("x", dtype=dtype)
    outputs = [x, x.sum(), pt.as_tensor(x.shape[0])]
    onnx_fn = pytensor.function([x], outputs, mode="ONNX")
    py_fn = pytensor.function([x], outputs, mode=py_mode)
    value = np.array([1, 0, 1], dtype=dtype)
    for onnx_value, py_value in zip(onnx_fn(value), py_fn(value), strict=True):
        assert type(onnx_value) is type(py_value)
        assert onnx_value.dtype.char == py_value.dtype.char
        assert type(onnx_value[()]) is type(py_value[()])


def run_in_threads(call, n_threads=8):
    errors = []

    def call_and_keep_errors(k):
        try:
            call(k)
        except Exception as error:
            errors.append(error)

    threads = [
        threading.Thread(target=call_and_keep_errors, args=(k,))
        for k in range(n_threads)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_concurrent_calls_lose_no_update():
    counter = shared(np.array(0.0), name="counter")
    fn = pytensor.function([], counter, updates={counter: counter + 1}, mode="ONNX")
    fn()

    def call_repeatedly(k):
        for _ in range(250):
            fn()

    run_in_threads(call_repeatedly)
    assert counter.get_value() == 1 + 8 * 250


def test_copies_called_from_threads_share_updates_and_keep_their_outputs():
    # PyTensor's Function validates explicit inputs without a lock (in every
    # mode): each thread calls its own copy, sharing the shared variables
    counter = shared(np.array(0.0), name="counter")
    x = pt.vector("x")
    fn = pytensor.function(
        [x], [x * 2, counter], updates={counter: counter + 1}, mode="ONNX"
    )
    fn(np.zeros(3))

    # Made before the threads start: PyTensor compiles (and copies) under
    # config.change_flags, which is not thread-safe
    copies = [fn.copy(share_memory=True) for _ in range(8)]

    def call_repeatedly(k):
        value = np.full(3, float(k))
        for _ in range(250):
            doubled, _ = copies[k](value)
            np.testing.assert_array_equal(doubled, 2 * value)

    run_in_threads(call_repeatedly)
    assert counter.get_value() == 1 + 8 * 250


def test_a_failed_assertion_applies_no_update():
    counter = shared(np.array(0.0), name="counter")
    x = pt.scalar("x")
    checked = pytensor.raise_op.Assert("x must be positive")(x, x > 0)
    fn = pytensor.function([x], checked, updates={counter: counter + 1}, mode="ONNX")
    fn(1.0)
    with pytest.raises(AssertionError, match="x must be positive"):
        fn(-1.0)
    assert counter.get_value() == 1.0


def test_trusted_array_likes_are_converted():
    class ArrayLike:
        def __init__(self, values):
            self.values = np.asarray(values)

        def __array__(self, dtype=None, copy=None):
            return self.values

    x = pt.vector("x")
    fn = pytensor.function([x], x * 2, mode="ONNX")
    fn.trust_input = True
    np.testing.assert_array_equal(fn(ArrayLike([1.0, 2.0])), [2.0, 4.0])


class ReshapeToFour(Op):
    """An Op whose (deliberately wrong) converter fails in onnxruntime at run time."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


@onnx_funcify.register(ReshapeToFour)
def onnx_funcify_ReshapeToFour(op, node, builder, inputs, **kwargs):
    return [builder.add("Reshape", [inputs[0], builder.constant([4], "int64")])]


def test_a_run_failing_in_onnxruntime_names_the_pytensor_node(capfd):
    x = pt.vector("x")
    fn = pytensor.function([x], ReshapeToFour()(x), mode="ONNX")
    with pytest.raises(ONNXRuntimeFailure, match="ReshapeToFour") as failure:
        fn(np.ones(3))
    assert failure.value.node.op == ReshapeToFour()
    assert "onnxruntime" not in capfd.readouterr().err


def test_a_failing_check_explains_a_failed_run():
    v, i = pt.vector("v"), pt.lscalar("i")
    in_range = Assert("i is out of range")(i, pt.lt(i, v.shape[0]))
    fn = pytensor.function([v, i], ReshapeToFour()(v)[in_range], mode="ONNX")
    with pytest.raises(AssertionError, match="i is out of range"):
        fn(np.ones(3), 7)
    with pytest.raises(ONNXRuntimeFailure):
        fn(np.ones(3), 1)


def test_none_for_a_tensor_input_raises_a_type_error():
    x = pt.scalar("x")
    fn = pytensor.function([pytensor.In(x)], x * 2, mode="ONNX")
    fn.trust_input = True
    with pytest.raises(TypeError, match="not None"):
        fn(None)
