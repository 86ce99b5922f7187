"""Low-cardinality columns as category codes, which XGBoost splits on as categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer, r2_score
from sklearn.model_selection import KFold
from sklearn.utils.estimator_checks import parametrize_with_checks
from xgboost import XGBRegressor

import autocat
from autocat import Recipe, TableVectorizer
from autocat._budget import Budget
from autocat._categorical import CategoryCodes
from autocat._learner_trials import LearnerTrials
from autocat._recipe import categorical_types
from autocat._sampler import REPEATS
from autocat._search_space import default_params
from autocat._splits import inner_splits
from autocat._trials import EncodingCache, TrialRecord, TrialRunner

SHOPS = [f"shop {letter}" for letter in "abcdefghijkl"]
# The shops that sell dearly: no ordering of the twelve (sorted, or any
# one-hot column) puts them on one side of a single threshold.
DEAR = {"shop a", "shop d", "shop e", "shop h", "shop k"}


def _reference_codes(values, categories) -> np.ndarray:
    """Each value's position among ``categories``, NaN for anything else."""
    position = {category: i for i, category in enumerate(categories)}
    return np.array([position.get(v, np.nan) for v in values], dtype=float)


def _shops_table(n_rows: int, seed: int, interaction: bool = True) -> pd.DataFrame:
    """Prices by shop: dear shops multiply the weight's effect (or add to it)."""
    rng = np.random.default_rng(seed)
    shop = rng.choice(SHOPS, n_rows).astype(object)
    shop[rng.random(n_rows) < 0.05] = None  # missing: neither dear nor cheap
    weight = rng.uniform(0, 1, n_rows)
    name = [f"item {i % 97} {rng.choice(['red', 'blue'])}" for i in range(n_rows)]
    dear = np.array([s in DEAR for s in shop])
    effect = 4.0 * dear * weight if interaction else 4.0 * dear
    price = effect + weight + rng.normal(scale=0.2, size=n_rows)
    return pd.DataFrame({"shop": shop, "weight": weight, "name": name, "price": price})


@parametrize_with_checks([TableVectorizer(low_cardinality="categorical")])
def test_the_categorical_vectorizer_follows_scikit_learn_conventions(estimator, check):
    check(estimator)


def test_category_codes_are_the_sorted_categories_nan_for_missing_and_unseen():
    train = pd.DataFrame({"size": ["S", "M", None, "L", "M", "XS"]})
    new = pd.DataFrame({"size": ["XS", "XXL", None, "L", np.nan, "S"]})
    codes = CategoryCodes().fit(train)
    expected = _reference_codes(new["size"], ["L", "M", "S", "XS"])
    out = codes.transform(new)
    assert out.dtype == np.float32 and out.shape == (6, 1)
    np.testing.assert_array_equal(out[:, 0], expected)
    assert codes.get_feature_names_out().tolist() == ["size"]


def test_the_vectorizer_marks_each_low_cardinality_column_as_one_categorical_output():
    frame = _shops_table(300, 0).drop(columns="price")
    frame["size"] = np.random.default_rng(1).choice(["S", "M", "L"], len(frame))
    vectorizer = TableVectorizer(low_cardinality="categorical")
    out = vectorizer.fit_transform(frame)
    names = vectorizer.get_feature_names_out().tolist()
    assert len(vectorizer.feature_types_) == out.shape[1] == len(names)
    kinds = vectorizer.column_kinds_
    assert kinds["shop"] == kinds["size"] == "low_cardinality"
    assert kinds["name"] == "high_cardinality" and kinds["weight"] == "numeric"
    for column, outputs in vectorizer.input_to_outputs_.items():
        types = [vectorizer.feature_types_[names.index(o)] for o in outputs]
        expected = ["c"] if kinds[column] == "low_cardinality" else ["q"] * len(outputs)
        assert types == expected, column
    # the shop's output is its code among the sorted shops, NaN where missing
    shop = out[:, names.index("shop")]
    np.testing.assert_array_equal(shop, _reference_codes(frame["shop"], sorted(SHOPS)))
    # one-hot, the default, marks nothing
    assert set(TableVectorizer().fit(frame).feature_types_) == {"q"}


def test_pandas_output_holds_the_codes_as_pandas_categories():
    frame = _shops_table(200, 2).drop(columns="price")
    vectorizer = TableVectorizer(low_cardinality="categorical")
    array = vectorizer.fit_transform(frame)
    vectorizer.set_output(transform="pandas")
    out = vectorizer.transform(frame)
    assert isinstance(out, pd.DataFrame) and out.index.equals(frame.index)
    assert isinstance(out["shop"].dtype, pd.CategoricalDtype)
    # every shop seen in fit is a category, even one a batch lacks
    assert out["shop"].cat.categories.tolist() == list(range(len(SHOPS)))
    codes = out["shop"].cat.codes.to_numpy()
    np.testing.assert_array_equal(
        np.where(codes < 0, np.nan, codes), array[:, list(out.columns).index("shop")]
    )
    assert str(out["weight"].dtype) == "float32"


@pytest.mark.parametrize("low_cardinality", ["categorical", "onehot"])
def test_one_split_on_categories_separates_what_one_hot_splits_cannot(low_cardinality):
    # One tree of depth one: a split on categories sends the five dear shops
    # one way; a one-hot split takes one shop from the rest.
    frame = _shops_table(1500, 3, interaction=False)
    y = frame.pop("price").to_numpy()
    recipe = Recipe(
        low_cardinality=low_cardinality, max_depth=1, n_estimators=1,
        learning_rate=1.0, reg_lambda=0.0, max_cat_to_onehot=1,
    )  # fmt: skip
    pipeline = recipe.build().fit(frame, y)
    score = r2_score(y, pipeline.predict(frame))
    if low_cardinality == "categorical":
        assert score > 0.85
    else:
        assert score < 0.4


def test_a_categorical_recipe_predicts_as_xgboost_on_pandas_categories():
    frame = _shops_table(800, 4)
    y = frame.pop("price").to_numpy()
    recipe = Recipe(low_cardinality="categorical", n_estimators=20, max_depth=3)
    pipeline = recipe.build().fit(frame, y)
    booster_types = pipeline.named_steps["model"].get_booster().feature_types
    assert booster_types.count("c") == 1
    # autocat's own fits: arrays and the vectorizer's feature types
    vectorizer = recipe.build_vectorizer()
    encoded = vectorizer.fit_transform(frame, y)
    model = recipe.build_model(**categorical_types(recipe, vectorizer.feature_types_))
    model.fit(encoded, y)
    new = _shops_table(300, 5).drop(columns="price")
    np.testing.assert_allclose(
        model.predict(vectorizer.transform(new)), pipeline.predict(new), rtol=1e-6
    )
    # the reference: XGBoost on the raw shop column as pandas categories
    names = vectorizer.get_feature_names_out().tolist()
    reference_frame = pd.DataFrame(encoded, columns=names)
    reference_frame["shop"] = pd.Categorical(frame["shop"], categories=sorted(SHOPS))
    reference = XGBRegressor(**{**model.get_params(), "feature_types": None}).fit(
        reference_frame, y
    )
    expected_new = pd.DataFrame(vectorizer.transform(new), columns=names)
    expected_new["shop"] = pd.Categorical(new["shop"], categories=sorted(SHOPS))
    np.testing.assert_allclose(
        reference.predict(expected_new), pipeline.predict(new), rtol=1e-6
    )


def test_category_codes_are_for_xgboost_only():
    with pytest.raises(ValueError, match="low_cardinality='categorical' is for XGB"):
        Recipe(learner="linear", low_cardinality="categorical")
    with pytest.raises(ValueError, match="low_cardinality must be one of"):
        Recipe(low_cardinality="ordinal")
    assert "low_cardinality" not in Recipe().params()
    assert Recipe(low_cardinality="categorical").params()["low_cardinality"] == (
        "categorical"
    )


@pytest.fixture(scope="module")
def shops_result():
    return autocat.auto_fit(
        _shops_table(400, 6), "price", n_trials=10, random_state=0, show_progress=False
    )


def test_a_search_repeats_its_best_trial_once_as_a_categorical_trial(shops_result):
    board = shops_result.leaderboard_
    assert list(board["learner"]).count("categorical") == 1
    row = board[board["learner"] == "categorical"].iloc[0]
    assert row["state"] == "COMPLETE" and row["n_estimators"] > 0
    assert row["colsample_bytree"] == 1.0  # the variant samples every column
    study = shops_result.study_
    trial = study.trials[int(row["trial"])]
    base = study.trials[trial.user_attrs[REPEATS]]  # kept out of the sampler's
    assert trial.params == base.params  # XGBoost's settings too
    # the best of the trials told before it (a search of 10 trials queues it
    # before its last batch, after a first batch of 8)
    told = [t for t in study.trials[: trial.number] if "learner" not in t.user_attrs]
    assert base.value == max(t.value for t in told if t.value is not None)
    # a candidate of the ensemble only: never the best trial's parameters
    assert "low_cardinality" not in shops_result.best_params_


def test_the_categorical_member_splits_on_categories_and_survives_a_model_file(
    shops_result, tmp_path
):
    board = shops_result.leaderboard_
    weight = board.loc[board["learner"] == "categorical", "weight"].iloc[0]
    assert weight > 0
    assert f"categorical ({weight:.2f}" in shops_result.summary()
    members = shops_result.model_.members_
    trials = shops_result.model_.trial_numbers_
    trial = int(board.loc[board["learner"] == "categorical", "trial"].iloc[0])
    member = members[trials.index(trial)]
    pipelines = [member] if hasattr(member, "named_steps") else member.members_
    for pipeline in pipelines:  # a refit, or its fold models
        assert "c" in pipeline.named_steps["model"].get_booster().feature_types
    rows = _shops_table(120, 7).drop(columns="price")
    loaded = autocat.load(shops_result.save(tmp_path / "shops.autocat"))
    np.testing.assert_array_equal(loaded.predict(rows), shops_result.predict(rows))


def test_no_categorical_trial_on_a_table_without_low_cardinality_columns():
    frame = _shops_table(300, 8).drop(columns="shop")
    result = autocat.auto_fit(
        frame, "price", n_trials=5, random_state=0, show_progress=False
    )
    assert "categorical" not in set(result.leaderboard_.get("learner", []))
    assert len(result.leaderboard_) == 5


def test_the_categorical_trial_runs_only_where_it_is_another_model_and_time_allows():
    def record(number, threshold, seconds):
        params = {"cardinality_threshold": threshold, "max_depth": number}
        return TrialRecord(number, params, fold_seconds=[seconds / 2] * 2)

    queue = [{"max_depth": 3}, {"max_depth": 5}, {"max_depth": 7}]
    trials = LearnerTrials(queue)
    assert [q.get("max_depth") for q in queue] == [3, 3, 3, 5, 7]  # linear, forest
    few = {"shop": 12, "name": 194}  # distinct values by string column
    best, other = record(4, 30, 3.0), record(2, 30, 1.0)
    trials.queue_variants([best, other], queue, few)
    assert len(queue) == 5  # it waits for the configurations queued first
    for number in range(4):
        trials.told(number, None)
    trials.queue_variants([best, other], queue, {"name": 194, "flag": 1})
    assert len(queue) == 5 and not trials.variants  # no low-cardinality column
    trials = LearnerTrials(queue=[{"max_depth": 3}])
    trials.queue_variants([best], queue, few, last_batch=True)
    variant = queue[0]
    assert variant == best.params and len(queue) == 6
    assert trials.enqueue_attrs(variant) == {"learner": "categorical", REPEATS: 4}
    assert trials.applies(variant, None)  # no time budget: it always runs
    assert trials.applies(variant, 12.0)  # its base took a quarter of 12 s
    assert not trials.applies(variant, 11.9)
    trials.drop(variant)  # taken off the queue: a later trial repeats nothing
    trials.asked(variant, 9)
    assert 9 not in trials.repeats
    trials.queue_variants([best], queue, few, last_batch=True)
    assert len(queue) == 6  # once


@pytest.mark.parametrize("with_names", [True, False])
def test_a_categorical_trial_never_reuses_a_one_hot_encoding(with_names):
    # The encoding cache keys what an encoding depends on; without
    # high-cardinality columns it keys little else, but category codes too.
    frame = _shops_table(300, 9)
    if not with_names:
        frame = frame.drop(columns="name")
    y = frame.pop("price").to_numpy()
    splits = list(KFold(2, shuffle=True, random_state=0).split(frame))
    runner = TrialRunner(
        X=frame, y=y, task="regression", scorer=get_scorer("r2"), splits=splits,
        inner=inner_splits(splits, y, "regression", 0), n_folds=2, random_state=0,
        xgb_threads=1, cache=EncodingCache(), budget=Budget(None), n_classes=0,
    )  # fmt: skip
    params = {**default_params("minhash"), "n_estimators": 20}
    one_hot = runner.run(None, params)
    categorical = runner.run(None, {**params, "low_cardinality": "categorical"})
    for record, expected in [(one_hot, set()), (categorical, {"shop"})]:
        kept = zip(record.models, record.vectorizers, splits, strict=True)
        for model, vectorizer, (train, _) in kept:
            if vectorizer is None:  # min-hash columns cut from a wider encoding
                recipe = runner.recipe(record.recipe_params)
                vectorizer = recipe.build_vectorizer().fit(frame.iloc[train], y[train])
            names = vectorizer.get_feature_names_out()
            types = model.get_booster().feature_types or ["q"] * len(names)
            assert {
                n for n, t in zip(names, types, strict=True) if t == "c"
            } == expected


def test_the_rescue_recipe_splits_on_categories_when_asked():
    # recipe 21 compares a rescue recipe with categories: its XGBoost must be
    # told which columns are codes, or it splits on them as numbers
    from autocat._rescue import fallback_model

    frame = _shops_table(400, 3)
    y = frame.pop("price").to_numpy()
    params = {"learning_rate": 0.1, "low_cardinality": "categorical"}
    model = fallback_model(frame, y, "regression", 0, 1, n_rows=400, xgb_params=params)
    types = model.named_steps["vectorizer"].feature_types_
    assert "c" in types
    assert model.named_steps["model"].get_booster().feature_types == types
    assert r2_score(y, model.predict(frame)) > 0.8
