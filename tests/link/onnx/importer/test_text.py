"""TfIdfVectorizer against ONNX's reference."""

import numpy as np
import pytest

from tests.link.onnx.utils import assert_matches_reference, single_node_model


POOL = {
    "ngram_counts": [0, 4, 8],
    "ngram_indexes": [5, 0, 1, 2, 3, 4, 8, 6, 7, 9],
    "pool_int64s": [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 2, 3, 5, 2, 2, 3],
}


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("grams, skips", [((1, 1), 0), ((1, 3), 2), ((2, 2), 5)])
@pytest.mark.parametrize("batched", [False, True])
def test_tfidf_vectorizer(mode, grams, skips, batched):
    tokens = np.random.default_rng(1).integers(2, 9, (3, 14) if batched else (14,))
    feeds = {"x": tokens.astype("int32")}
    weights = {"weights": np.linspace(0.5, 2.0, 10).tolist()} if mode != "TF" else {}
    model = single_node_model(
        "TfIdfVectorizer",
        feeds,
        opset=9,
        mode=mode,
        min_gram_length=grams[0],
        max_gram_length=grams[1],
        max_skip_count=skips,
        **POOL,
        **weights,
    )
    assert_matches_reference(model, feeds)


def test_tfidf_vectorizer_of_a_sequence_shorter_than_the_n_grams():
    feeds = {"x": np.array([5, 6], dtype="int64")}
    model = single_node_model(
        "TfIdfVectorizer", feeds, opset=9, mode="TF", min_gram_length=3,
        max_gram_length=3, max_skip_count=1, **POOL,
    )  # fmt: skip
    assert_matches_reference(model, feeds)
