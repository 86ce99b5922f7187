"""autocat's feature generator inside a real AutoGluon TabularPredictor."""

import numpy as np
import pytest
from sklearn.metrics import r2_score

pytest.importorskip("autogluon.tabular")

from autogluon.tabular import TabularPredictor

from autocat.integrations.autogluon import (
    AutocatFeatureGenerator,
    feature_generator,
)


@pytest.mark.parametrize("mode", ["replace", "add"])
def test_generator_encodes_only_the_dirty_column(dirty_split, mode):
    X_train, y_train, X_new, _ = dirty_split
    generator = AutocatFeatureGenerator(mode=mode, n_components=8, verbosity=0)
    out = generator.fit_transform(X_train, y_train)
    assert generator.encoded_columns_ == ["title"]
    encoded = [c for c in out.columns if c.startswith("title") and c != "title"]
    assert len(encoded) == 8
    assert ("title" in out.columns) == (mode == "add")
    assert {"department", "years"} <= set(out.columns)
    new = generator.transform(X_new)
    assert list(new.columns) == list(out.columns)
    # never-seen titles get encodings of their own, not one "unknown" row
    assert len(np.unique(new[encoded].to_numpy(), axis=0)) > 50


def test_bad_mode_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="'add', 'replace'"):
        AutocatFeatureGenerator(mode="both")


def test_predictor_fits_and_predicts_rows_with_unseen_titles(dirty_split, tmp_path):
    X_train, y_train, X_new, y_new = dirty_split
    train = X_train.assign(salary=y_train)
    predictor = TabularPredictor(label="salary", path=str(tmp_path), verbosity=0).fit(
        train,
        time_limit=30,
        hyperparameters={"GBM": {}, "RF": {}},
        feature_generator=feature_generator(n_components=8),
    )
    predictions = predictor.predict(X_new)
    assert predictions.shape == (len(X_new),) and np.isfinite(predictions).all()
    # the rank and role inside never-seen titles explain most of the salary;
    # AutoGluon alone sees every new title as an unknown category
    assert r2_score(y_new, predictions) > 0.5
    # the predictor saved by AutoGluon loads and predicts the same
    loaded = TabularPredictor.load(str(tmp_path))
    np.testing.assert_allclose(loaded.predict(X_new), predictions)


@pytest.mark.parametrize("mode", ["replace", "add"])
def test_pipeline_transforms_new_rows_after_pruning_duplicates(dirty_split, mode):
    X_train, y_train, X_new, _ = dirty_split
    # AutoGluon drops the copy as a duplicate and prunes what feeds it
    X_train = X_train.assign(copy=X_train["department"])
    X_new = X_new.assign(copy=X_new["department"])
    pipeline = feature_generator(mode=mode, n_components=8, verbosity=0)
    out = pipeline.fit_transform(X_train, y_train)
    assert "copy" not in out.columns
    new = pipeline.transform(X_new)
    assert list(new.columns) == list(out.columns)
    assert sum(c.startswith("title_") for c in new.columns) == 8
