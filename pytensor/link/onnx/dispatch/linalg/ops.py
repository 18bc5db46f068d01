"""The linear-algebra Op classes of the installed PyTensor.

PyTensor 3 defines them in ``pytensor.tensor.linalg``; PyTensor 2 in
``nlinalg``, ``slinalg`` and ``_linalg``, with two gradient Ops of its own
(``EighGrad``, ``EigvalshGrad``: ``None`` in PyTensor 3).
"""

try:  # PyTensor >= 3
    from pytensor.tensor.linalg import (
        LU,
        QR,
        QZ,
        SVD,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Det,
        Eig,
        Eigh,
        Eigvalsh,
        Expm,
        Lstsq,
        LUFactor,
        LUFactorTridiagonal,
        MatrixInverse,
        MatrixPinv,
        PivotToPermutations,
        Schur,
        SLogDet,
        Solve,
        SolveLUFactorTridiagonal,
        SolveTriangular,
        TensorInv,
        TensorSolve,
    )
    from pytensor.tensor.linalg.solvers.linear_control import TRSYL

    EighGrad = EigvalshGrad = None
except ImportError:  # PyTensor 2
    from pytensor.tensor._linalg.solve.linear_control import TRSYL
    from pytensor.tensor._linalg.solve.tridiagonal import (
        LUFactorTridiagonal,
        SolveLUFactorTridiagonal,
    )
    from pytensor.tensor.nlinalg import (
        SVD,
        Det,
        Eig,
        Eigh,
        EighGrad,
        Lstsq,
        MatrixInverse,
        MatrixPinv,
        SLogDet,
        TensorInv,
        TensorSolve,
    )
    from pytensor.tensor.slinalg import (
        LU,
        QR,
        QZ,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Eigvalsh,
        EigvalshGrad,
        Expm,
        LUFactor,
        PivotToPermutations,
        Schur,
        Solve,
        SolveTriangular,
    )

__all__ = [
    "LU",
    "QR",
    "QZ",
    "SVD",
    "TRSYL",
    "BlockDiagonal",
    "Cholesky",
    "CholeskySolve",
    "Det",
    "Eig",
    "Eigh",
    "EighGrad",
    "Eigvalsh",
    "EigvalshGrad",
    "Expm",
    "LUFactor",
    "LUFactorTridiagonal",
    "Lstsq",
    "MatrixInverse",
    "MatrixPinv",
    "PivotToPermutations",
    "SLogDet",
    "Schur",
    "Solve",
    "SolveLUFactorTridiagonal",
    "SolveTriangular",
    "TensorInv",
    "TensorSolve",
]
