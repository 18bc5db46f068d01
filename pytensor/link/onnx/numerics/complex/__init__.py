"""Complex numbers as ONNX holds them, the real pairs of their parts
(`pytensor.link.onnx.complex_pairs`): arithmetic, order, and the elementary
functions."""
