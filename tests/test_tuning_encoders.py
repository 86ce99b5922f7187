"""The search's encoding cache tells apart recipes that differ in the new encoders."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

from autocat._budget import Budget
from autocat._recipe import Recipe
from autocat._splits import inner_splits
from autocat._trials import EncodingCache, TrialRunner

WORDS = ["red", "green", "blue", "cat", "dog", "tree", "sky", "sea", "sun", "rain"]


def test_text_and_target_parameters_are_part_of_the_encoding_key():
    rng = np.random.default_rng(0)
    n = 90
    X = pd.DataFrame(
        {
            "notes": [" ".join(rng.choice(WORDS, 7)) for _ in range(n)],
            "years": rng.integers(0, 30, n).astype(float),
        }
    )
    y = X["years"].to_numpy() + rng.normal(0, 1, n)
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    objective = TrialRunner(
        X=X, y=y, task="regression", scorer=get_scorer("r2"), splits=splits,
        inner=inner_splits(splits, y, "regression", 0), n_folds=3,
        random_state=0, xgb_threads=1, cache=EncodingCache(), budget=Budget(None),
        n_classes=0,
    )  # fmt: skip
    wide, _, _, _ = objective.encoded(Recipe(text_encoder="text"), 0)
    narrow, _, _, _ = objective.encoded(
        Recipe(text_encoder="text", text_n_components=10), 0
    )
    assert (wide.shape[1], narrow.shape[1]) == (31, 11)
    word, _, _, _ = objective.encoded(
        Recipe(text_encoder="text", text_n_components=10, text_analyzer="word"), 0
    )
    assert not np.array_equal(word, narrow)
    # with the text column one-hot encoded (threshold 500), no encoder parameter
    # matters, unless a column is set to an encoder by the user
    low = Recipe(cardinality_threshold=500, text_encoder="text")
    other = Recipe(cardinality_threshold=500, encoder="target", text_analyzer="word")
    assert objective._key(low, 0) == objective._key(other, 0)
    forced = Recipe(specific_transformers={"notes": "target"}, n_components=5)
    target, _, _, _ = objective.encoded(forced, 0)
    assert target.shape[1] == 2
