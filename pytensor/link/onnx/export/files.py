"""Writing model files: atomically, with external data for large weights."""

import hashlib
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import onnx
from onnx import TensorProto, numpy_helper


# Initializers at least this large go to the external data file (onnx's default).
EXTERNAL_MIN_BYTES = 1024
EXTERNAL_ALIGNMENT = 4096
TEST_DATA_DIR = "test_data_set_0"


def check_file(model_file: Path):
    """The checks of :func:`prepare_export`, for a model with external data."""
    onnx.checker.check_model(str(model_file), full_check=True)
    inferred = model_file.with_name(model_file.name + ".inferred")
    try:
        onnx.shape_inference.infer_shapes_path(
            str(model_file), str(inferred), check_type=True, strict_mode=True
        )
    finally:
        inferred.unlink(missing_ok=True)


class StagedFiles:
    """Files written next to their destination under temporary names, then moved in place."""

    def __init__(self, path: Path | None, directory: Path):
        self.path = path
        self.directory = directory
        self.model_file: Path | None = None
        self.data_file: Path | None = None
        self.test_data: Path | None = None
        self.created: list[Path] = []

    def temporary(self, suffix: str) -> Path:
        name = self.path.name if self.path else "model.onnx"
        fd, tmp = tempfile.mkstemp(
            dir=self.directory, prefix=f".{name}.", suffix=suffix
        )
        os.close(fd)
        # mkstemp makes files only the owner can read; published files get
        # the usual permissions
        os.chmod(tmp, file_mode(self.path))
        self.created.append(Path(tmp))
        return Path(tmp)

    def write_model_bytes(self, data: bytes):
        self.model_file = self.temporary(".tmp")
        write_synced(self.model_file, [data])

    def write_external(self, prepared):
        """Write the weights to a data file named after its digest, then the model.

        Returns the staged model file and the model it holds.
        """
        name = self.path.name if self.path else "model.onnx"
        data_tmp = self.temporary(".data.tmp")
        external = {
            n: v for n, v in prepared.weights.items() if v.nbytes >= EXTERNAL_MIN_BYTES
        }
        with open(data_tmp, "wb") as file:
            offsets, digest = write_tensors(file, external.values())
        data_name = f"{name}.{digest[:16]}.data"
        self.data_file = self.directory / data_name
        if not self.data_file.exists():
            os.replace(data_tmp, self.data_file)
            self.created.append(self.data_file)
        model = prepared.with_external_weights(
            data_name, dict(zip(external, offsets, strict=True))
        )
        self.model_file = self.temporary(".tmp")
        write_synced(self.model_file, [model.SerializeToString()])
        return self.model_file, model

    def write_test_data(self, prepared, feeds, expected):
        staging = Path(
            tempfile.mkdtemp(dir=self.directory, prefix=f".{TEST_DATA_DIR}.")
        )
        os.chmod(staging, 0o777 & ~current_umask())
        self.created.append(staging)
        for i, (name, value) in enumerate(feeds.items()):
            tensor = numpy_helper.from_array(np.asarray(value), name)
            write_synced(staging / f"input_{i}.pb", [tensor.SerializeToString()])
        for i, (name, value) in enumerate(
            zip(prepared.output_names, expected, strict=True)
        ):
            tensor = numpy_helper.from_array(np.asarray(value), name)
            write_synced(staging / f"output_{i}.pb", [tensor.SerializeToString()])
        self.test_data = staging

    def commit(self):
        previous_data = external_data_files(self.path) if self.path.exists() else set()
        if self.test_data is not None:
            destination = self.path.parent / TEST_DATA_DIR
            if destination.exists():
                old = Path(
                    tempfile.mkdtemp(dir=self.directory, prefix=".old_test_data.")
                )
                os.replace(destination, old / TEST_DATA_DIR)
                self.created.append(old)
            os.replace(self.test_data, destination)
        os.replace(self.model_file, self.path)
        self.created = [p for p in self.created if p.name.startswith(".")]
        if self.data_file is not None:
            previous_data.discard(self.data_file.name)
        for name in previous_data:
            if name.startswith(f"{self.path.name}.") and name.endswith(".data"):
                (self.path.parent / name).unlink(missing_ok=True)

    def discard(self):
        for created in reversed(self.created):
            if created.is_dir():
                shutil.rmtree(created, ignore_errors=True)
            else:
                created.unlink(missing_ok=True)


def current_umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def file_mode(path: Path | None) -> int:
    """The permissions of the file at ``path``, or those of a new file."""
    if path is not None and path.exists():
        return stat.S_IMODE(path.stat().st_mode)
    return 0o666 & ~current_umask()


@contextmanager
def staged_files(path):
    """Stage files next to ``path`` (or in a temporary directory); clean up on exit."""
    if path is None:
        with tempfile.TemporaryDirectory() as directory:
            yield StagedFiles(None, Path(directory))
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stage = StagedFiles(path, path.parent)
    try:
        yield stage
    finally:
        stage.discard()


def external_data_files(model_path: Path) -> set[str]:
    try:
        model = onnx.load(str(model_path), load_external_data=False)
    except Exception:
        return set()
    return {
        entry.value
        for tensor in model.graph.initializer
        if tensor.data_location == TensorProto.EXTERNAL
        for entry in tensor.external_data
        if entry.key == "location"
    }


def write_tensors(file, arrays, chunk_bytes=2**26):
    """Write ``arrays`` as raw little-endian data, each aligned to 4 KiB.

    All-zero chunks are skipped (they read back as zeros, and the file stays
    sparse where the file system allows). Returns the ``(offset, length)``
    of each array and a SHA-256 digest of the content (of the chunk digests).
    """
    digest = hashlib.sha256()
    zero_digests = {}
    offsets = []
    position = 0
    for array in arrays:
        position += -position % EXTERNAL_ALIGNMENT
        data = np.asarray(array, dtype=array.dtype.newbyteorder("<"), order="C")
        raw = memoryview(data.reshape(-1)).cast("B")
        offsets.append((position, len(raw)))
        for start in range(0, len(raw), chunk_bytes):
            chunk = raw[start : start + chunk_bytes]
            file.seek(position + start)
            if np.frombuffer(chunk, dtype=np.uint8).any():
                file.write(chunk)
                digest.update(hashlib.sha256(chunk).digest())
            else:
                if len(chunk) not in zero_digests:
                    zero_digests[len(chunk)] = hashlib.sha256(
                        bytes(len(chunk))
                    ).digest()
                digest.update(zero_digests[len(chunk)])
        position += len(raw)
        digest.update(str(position).encode())
    file.truncate(position)
    file.flush()
    os.fsync(file.fileno())
    return offsets, digest.hexdigest()


def write_synced(path: Path, chunks):
    with open(path, "wb") as file:
        for chunk in chunks:
            file.write(chunk)
        file.flush()
        os.fsync(file.fileno())
