"""Text features: TfIdfVectorizer over integer tokens.

The pool of n-grams is static, so each n-gram length and skip distance is one
comparison of the windows of the input with all the pool's n-grams of that
length; the counts go to their output columns through a constant 0/1 matrix.
"""

import itertools

import numpy as np
import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype


def pool_ngrams(node):
    """``(length, n-grams as an (G, length) array, their output columns)`` per length."""
    pool = np.asarray(node.attr("pool_int64s"), dtype="int64")
    starts = [*node.attr("ngram_counts"), len(pool)]
    columns = list(node.attr("ngram_indexes"))
    groups, first = [], 0
    for length, (start, end) in enumerate(itertools.pairwise(starts), start=1):
        count = (end - start) // length
        grams = pool[start : start + count * length].reshape(count, length)
        groups.append((length, grams, columns[first : first + count]))
        first += count
    return groups


def ngram_counts(rows, length, grams, skip):
    """How often each of ``grams`` occurs in each row with ``skip`` between items."""
    fits = pt.maximum(rows.shape[1] - (length - 1) * skip, 0)
    windows = pt.stack(
        [rows[:, k * skip : k * skip + fits] for k in range(length)], axis=-1
    )
    matches = pt.all(pt.eq(windows[:, :, None, :], pt.constant(grams)), axis=-1)
    return matches.sum(axis=1)


@onnx_op("TfIdfVectorizer", since=9)
def tfidf_vectorizer(node, x):
    if not node.attr("pool_int64s"):
        raise NotImplementedError(f"{node.label}: TfIdfVectorizer over strings")
    shortest, longest = node.attr("min_gram_length"), node.attr("max_gram_length")
    max_skip = node.attr("max_skip_count")
    rows = x if x.ndim == 2 else x.reshape((1, -1))
    size = max(node.attr("ngram_indexes")) + 1
    frequencies = pt.zeros((rows.shape[0], size), dtype="int64")
    for length, grams, columns in pool_ngrams(node):
        if not shortest <= length <= longest or not len(grams):
            continue
        skips = [1] if length == 1 else range(1, max_skip + 2)
        counts = sum(ngram_counts(rows, length, grams, skip) for skip in skips)
        to_columns = np.zeros((len(grams), size), dtype="int64")
        to_columns[np.arange(len(grams)), columns] = 1
        frequencies = frequencies + pt.dot(counts, pt.constant(to_columns))
    y = weighted(node, as_dtype(frequencies, "float32"))
    return y if x.ndim == 2 else y[0]


def weighted(node, frequencies):
    mode, weights = node.attr("mode"), node.attr("weights")
    if mode == "TF":
        return frequencies
    weights = pt.constant(np.asarray(weights or 1.0, dtype="float32"))
    if mode == "IDF":
        return as_dtype(frequencies > 0, "float32") * weights
    return frequencies * weights
