from __future__ import annotations

import importlib.util
import re
import time

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.metrics import f1_score
from sklearn.pipeline import Pipeline
from xgboost import XGBClassifier, XGBRegressor

import autocat
import autocat._recipe
from autocat import AutoResult, TableVectorizer, auto_fit
from autocat._encoder_choice import ENCODER_NAMES
from autocat._rescue import rescue_rows
from autocat._target import infer_task
from autocat._tuning import BATCH_TRIALS

_HAS_POLARS = importlib.util.find_spec("polars") is not None


def _frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    jobs = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    df["salary"] = (
        df["years"] * 2.0 + (df["job"] == "nurse") * 10.0 + rng.normal(0, 1, n)
    )
    return df


@pytest.fixture(scope="module")
def regression():
    df = _frame()
    return df, auto_fit(df, "salary", n_trials=2, cv=3, show_progress=False)


@pytest.fixture(scope="module")
def labelled():
    df = _frame(90, seed=1)
    df["band"] = np.where(df["salary"] > df["salary"].median(), "high", "low")
    return df.drop(columns="salary")


def test_the_refit_grows_its_folds_trees_scaled_to_all_rows(regression):
    """Early stopping chose the trees on a fold's fit rows; all rows grow more."""
    df, result = regression
    board = result.leaderboard_
    boosted = board[board["n_estimators"].notna()]
    assert len(boosted) == 1  # the other trial is the linear one
    chosen = int(boosted["n_estimators"].iloc[0])
    # 3 folds of 80 rows: the first trains on 53, early stopping watches a fifth
    fit_rows = 53 * 0.8
    expected = round(chosen * len(df) / fit_rows)
    refit = result.pipeline_.named_steps["model"]
    assert refit.get_booster().num_boosted_rounds() == expected > chosen
    assert result.best_params_["n_estimators"] == expected


def test_auto_result_contract(regression):
    _, result = regression
    assert isinstance(result, AutoResult)
    pipeline = result.pipeline_
    assert isinstance(pipeline, Pipeline)
    assert [name for name, _ in pipeline.steps] == ["vectorizer", "model"]
    assert isinstance(pipeline.named_steps["vectorizer"], TableVectorizer)
    assert isinstance(pipeline.named_steps["model"], XGBRegressor)
    assert isinstance(result.study_, optuna.Study)
    assert result.task_ == "regression" and result.metric_ == "r2"
    assert result.target_ == "salary" and result.classes_ is None
    assert result.feature_names_in_.tolist() == ["job", "years"]
    assert result.n_trials_ == 2 and result.n_folds_ == 3
    assert result.cv_score_ > 0.5
    # Two trials: the portfolio's first two, not the paper's recipe.
    assert np.isnan(result.baseline_score_)
    assert result.best_params_["n_estimators"] >= 1
    assert list(result.ensemble_.columns) == ["trial", "weight", "fit", "score"]
    assert result.ensemble_["weight"].sum() == pytest.approx(1.0)
    assert set(result.ensemble_["fit"]) == {"refit"}  # no budget: all refit
    assert result.best_params_["encoder"] in ENCODER_NAMES
    assert result.elapsed_s_ > result.refit_s_ > 0
    assert result.random_state == 0
    X_sample, y_sample = result.sample_
    assert isinstance(X_sample, pd.DataFrame) and len(X_sample) == len(y_sample) == 80
    assert result.cache_info_["misses"] >= 1


def test_leaderboard_is_best_first(regression):
    _, result = regression
    board = result.leaderboard_
    assert list(board.columns[:7]) == [
        "trial",
        "state",
        "score",
        "score_std",
        "duration_s",
        "encoder",
        "n_components",
    ]
    assert {"learning_rate", "max_depth", "n_estimators", "weight"} <= set(
        board.columns
    )
    assert len(board) == 2
    assert board["score"].is_monotonic_decreasing
    assert board.loc[0, "score"] == pytest.approx(result.study_.best_value)
    assert (board["score_std"] > 0).all()  # three folds, three scores
    assert board["weight"].sum() == pytest.approx(1.0)


def test_predict_score_and_summary(regression):
    df, result = regression
    predictions = result.predict(df)  # the target column is ignored
    assert predictions.shape == (len(df),)
    np.testing.assert_array_equal(
        predictions, result.model_.predict(df[["job", "years"]])
    )
    assert result.score(df, df["salary"]) > 0.8
    text = result.summary()
    assert "task: regression" in text and "CV r2 of the model" in text
    assert "paper's recipe" in text and "elapsed" in text and "model:" in text
    assert len(text.splitlines()) == 7
    assert "AutoResult(task='regression'" in repr(result)
    with pytest.raises(AttributeError, match="only available for classification"):
        result.predict_proba(df)
    assert not hasattr(result, "predict_proba")
    with pytest.raises(ValueError, match="lacks 1 column"):
        result.predict(df[["job"]])


def test_best_params_rebuild_the_model(regression):
    df, result = regression
    recipe = autocat.Recipe.from_params("regression", result.best_params_)
    rebuilt = recipe.build().fit(df[["job", "years"]], df["salary"])
    X = df[["job", "years"]]
    np.testing.assert_allclose(
        rebuilt.predict(X), result.pipeline_.predict(X), rtol=1e-5
    )


def test_string_labels_round_trip(labelled):
    result = auto_fit(labelled, "band", n_trials=1, cv=3, show_progress=False)
    assert result.task_ == "binary" and result.metric_ == "average_precision"
    assert result.classes_.tolist() == ["high", "low"]
    assert isinstance(result.pipeline_.named_steps["model"], XGBClassifier)
    predictions = result.predict(labelled)
    assert set(predictions) <= {"high", "low"}
    proba = result.predict_proba(labelled)
    assert proba.shape == (len(labelled), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-5)
    assert result.score(labelled, labelled["band"]) > 0.5
    assert set(result.sample_[1]) <= {"high", "low"}
    with pytest.raises(ValueError, match="labels not seen"):
        result.score(labelled.head(2), ["high", "medium"])


@pytest.mark.parametrize(
    ("task", "metric", "reference"),
    [
        ("binary", "accuracy", lambda true, predicted: np.mean(true == predicted)),
        (
            "multiclass",
            "f1_macro",
            lambda true, predicted: f1_score(true, predicted, average="macro"),
        ),
    ],
)
def test_a_label_auto_fit_never_saw_is_scored_as_a_miss_by_label_metrics(
    labelled, caplog, task, metric, reference
):
    # A rare class of the held-out rows: metrics on predicted labels count it
    # wrong, as scikit-learn's functions do on the predictions, with a warning
    df = labelled.copy()
    if task == "multiclass":
        df["band"] = np.where(df.index % 3 == 0, "mid", df["band"])
    result = auto_fit(df, "band", metric=metric, n_trials=1, cv=3, show_progress=False)
    assert result.task_ == task
    truth = df["band"].to_numpy(dtype=object).copy()
    truth[:7] = "never seen"
    with caplog.at_level("WARNING", logger="autocat"):
        score = result.score(df, truth)
    assert score == pytest.approx(reference(truth, result.predict(df)))
    assert score < result.score(df, df["band"])
    assert "7 of 90 rows hold labels not seen in auto_fit" in caplog.text
    # a metric on probabilities cannot score it: the error names the label
    result.metric_ = "neg_log_loss"
    with pytest.raises(
        ValueError,
        match=r"not seen in auto_fit: \['never seen'\].*"
        "scores probabilities",
    ):
        result.score(df, truth)


def test_multiclass_with_a_separate_target_and_another_metric(labelled):
    y = np.array(["a", "b", "c"] * 30)
    result = auto_fit(
        labelled.drop(columns="band"),
        y,
        n_trials=1,
        cv=2,
        metric="balanced_accuracy",
        show_progress=False,
    )
    assert result.task_ == "multiclass" and result.target_ == "target"
    assert result.metric_ == "balanced_accuracy"
    assert result.predict_proba(labelled).shape == (90, 3)


@pytest.mark.skipif(not _HAS_POLARS, reason="polars is not installed")
def test_polars_input():
    import polars as pl

    df = pl.from_pandas(_frame(60))
    result = auto_fit(df, "salary", n_trials=1, cv=2, show_progress=False)
    assert result.predict(df).shape == (60,)
    assert isinstance(result.sample_[0], pd.DataFrame)
    y = pl.Series("y", _frame(60)["salary"].to_numpy())
    other = auto_fit(df.drop("salary"), y, n_trials=1, cv=2, show_progress=False)
    assert other.cv_score_ == pytest.approx(result.cv_score_)


def test_task_inference_and_override():
    assert infer_task(np.array([0.5, 1.5, 2.5]))[0] == "regression"
    assert infer_task(np.array([3, 7, 3]))[0] == "binary"
    assert infer_task(np.array([True, False]))[0] == "binary"
    assert infer_task(np.arange(5))[0] == "multiclass"
    assert infer_task(np.arange(50))[0] == "regression"
    assert infer_task(np.array([1.0, 2.0, 3.0]))[0] == "multiclass"
    df = _frame(60)
    df["level"] = np.arange(60) % 4
    result = auto_fit(
        df.drop(columns="salary"),
        "level",
        task="regression",
        n_trials=1,
        cv=2,
        show_progress=False,
    )
    assert result.task_ == "regression" and result.metric_ == "r2"


def test_clear_errors():
    df = _frame(40)
    with pytest.raises(ValueError, match="Did you mean 'salary'"):
        auto_fit(df, "Salary", n_trials=1)
    with pytest.raises(TypeError, match="pandas or polars DataFrame"):
        auto_fit(df.to_numpy(), "salary", n_trials=1)
    with pytest.raises(ValueError, match="is not a scikit-learn scorer"):
        auto_fit(df, "salary", n_trials=1, metric="r_2")
    with pytest.raises(ValueError, match="task must be 'auto' or one of"):
        auto_fit(df, "salary", task="classification")
    with pytest.raises(ValueError, match="needs 2 classes"):
        auto_fit(df.assign(c=np.arange(40) % 3), "c", task="binary", n_trials=1)
    with pytest.raises(ValueError, match="single row"):
        auto_fit(df.assign(c=["x"] * 39 + ["y"]), "c", n_trials=1)
    with pytest.raises(ValueError, match="has 3 values but df has 40 rows"):
        auto_fit(df, [1, 2, 3], n_trials=1)
    with pytest.raises(ValueError, match="time_budget must be"):
        auto_fit(df, "salary", time_budget=0)
    with pytest.raises(ValueError, match="cv must be"):
        auto_fit(df, "salary", cv=1)


def test_missing_targets_are_dropped(caplog):
    df = _frame(60)
    df.loc[:4, "salary"] = np.nan
    with caplog.at_level("WARNING", logger="autocat"):
        result = auto_fit(df, "salary", n_trials=1, cv=2, show_progress=False)
    assert result.n_rows_ == 55
    assert "dropping 5 rows" in caplog.text


def _boosters(model):
    """Every XGBoost model inside a final model, with how it was trained."""
    from autocat._ensemble import EnsembleModel
    from autocat._linear import LinearRegressor

    if isinstance(model, EnsembleModel):
        return [b for member in model.members_ for b in _boosters(member)]
    fitted = model.named_steps["model"]
    if isinstance(fitted, LinearRegressor) or not hasattr(fitted, "get_booster"):
        return []  # a ridge, or a forest (whole trees, no rounds to cut)
    return [fitted]


def _assert_fully_trained(result):
    from autocat._trials import EARLY_STOPPING_ROUNDS, MAX_ROUNDS

    for booster in _boosters(result.model_) + _boosters(result.pipeline_):
        rounds = booster.get_booster().num_boosted_rounds()
        if booster.get_params()["early_stopping_rounds"]:  # a fold model
            # Boosting ended by early stopping or at the cap, not by the clock.
            assert rounds in (
                booster.best_iteration + 1 + EARLY_STOPPING_ROUNDS,
                MAX_ROUNDS,
            ), (rounds, booster.best_iteration)
        else:  # a refit: exactly the trees asked for
            assert rounds == booster.get_params()["n_estimators"]


def test_time_budget_bounds_the_whole_call():
    df = _frame(120)
    budget = 3.0
    start = time.monotonic()
    result = auto_fit(df, "salary", time_budget=budget, cv=3, show_progress=False)
    elapsed = time.monotonic() - start
    assert result.n_trials_ >= 1
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    assert result.elapsed_s_ <= elapsed
    _assert_fully_trained(result)


def test_a_budget_shorter_than_one_trial_still_gives_a_trained_model():
    df = _frame(60)
    start = time.monotonic()
    result = auto_fit(df, "salary", time_budget=0.01, show_progress=False)
    assert time.monotonic() - start <= 2.01 + 0.5
    assert result.predict(df).shape == (60,)
    assert result.score(df, df["salary"]) > 0.5  # a real model, not a stump
    if result.n_trials_ == 0:
        assert "allowed no full trial" in result.summary()
    _assert_fully_trained(result)


@pytest.mark.slow
def test_compile_time_is_not_counted_in_the_first_fold(
    monkeypatch, planned_fold_seconds
):
    # Compiling the kernels (here: a warm-up made 6 s slower) happens before
    # trials, so the first fold's time, which chooses CV or holdout, excludes it.
    import autocat._final

    def slow_warm_up():
        autocat._final.warm_kernels()
        time.sleep(6)

    monkeypatch.setattr("autocat._auto.warm_kernels", slow_warm_up)
    seen = planned_fold_seconds
    auto_fit(_frame(80), "salary", time_budget=30, n_trials=1, cv=3,
             show_progress=False)  # fmt: skip
    assert seen and seen[0] < 6


def test_n_jobs_does_not_change_an_n_trials_result():
    df = _frame(80)
    results = [
        auto_fit(df, "salary", n_trials=4, cv=2, n_jobs=n_jobs, show_progress=False)
        for n_jobs in (1, 2, 16)
    ]
    predictions = [r.predict(df).tobytes() for r in results]
    assert predictions[0] == predictions[1] == predictions[2]
    assert results[0].cv_score_ == results[1].cv_score_ == results[2].cv_score_


def test_without_selection_the_score_is_the_trials_own():
    # One trial, no ensemble: nothing is chosen, so the cross-validated score of
    # the selection is that trial's mean fold score.
    result = auto_fit(_frame(80), "salary", n_trials=1, cv=3, ensemble=False,
                      show_progress=False)  # fmt: skip
    assert result.cv_score_ == pytest.approx(result.study_.best_value, rel=1e-9)
    assert result.model_ is result.pipeline_


def test_ensemble_false_returns_the_best_pipeline(regression):
    df, _ = regression
    result = auto_fit(df, "salary", n_trials=3, cv=3, ensemble=False,
                      show_progress=False)  # fmt: skip
    assert result.model_ is result.pipeline_
    assert len(result.ensemble_) == 1
    # the best XGBoost trial: a regression's linear trial is an ensemble candidate
    board = result.leaderboard_
    assert list(board["learner"]).count("linear") == 1
    searched = board[board["learner"] == "xgboost"]
    assert result.ensemble_.loc[0, "trial"] == searched["trial"].iloc[0]


def test_summary_of_a_result_without_a_search_names_no_protocol(regression):
    # the rescue recipe alone (no trial started in time): no folds to speak of
    import copy

    _, result = regression
    other = copy.copy(result)
    other.study_, other.n_folds_ = None, 0
    line = other.summary().splitlines()[2]
    assert line == "trials: 0 complete of 0 run"
    assert f"run ({result.n_folds_}-fold CV)" in result.summary()  # a search's


def test_summary_without_a_baseline(regression):
    import copy

    _, result = regression
    other = copy.copy(result)
    other.baseline_score_ = float("nan")
    assert "paper's recipe: did not finish" in other.summary()


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2, 8])
def test_time_budget_within_ten_percent(n_jobs):
    df = _frame(3000)
    for budget in (5.0, 10.0):
        start = time.monotonic()
        result = auto_fit(df, "salary", time_budget=budget, n_jobs=n_jobs,
                          show_progress=False)  # fmt: skip
        elapsed = time.monotonic() - start
        assert elapsed <= max(1.1 * budget, budget + 2), (budget, elapsed)
        assert result.n_trials_ >= 2
        _assert_fully_trained(result)


def test_ctrl_c_returns_the_best_so_far():
    def interrupt(study, trial):
        raise KeyboardInterrupt

    df = _frame(60)
    result = auto_fit(
        df, "salary", n_trials=20, cv=2, show_progress=False, callbacks=[interrupt]
    )
    # The first batch's trials had finished: they are kept, no other starts.
    assert result.interrupted_ and result.n_trials_ == BATCH_TRIALS
    assert result.predict(df).shape == (60,)


def test_holdout_on_large_data(monkeypatch):
    monkeypatch.setattr("autocat._auto.HOLDOUT_ROWS", 50)
    result = auto_fit(_frame(60), "salary", n_trials=1, cv=4, show_progress=False)
    assert result.n_folds_ == 1
    assert len(result.study_.best_trial.user_attrs["fold_scores"]) == 1


def test_shared_journal_storage(tmp_path):
    df = _frame(60)
    journal = tmp_path / "study.log"
    first = auto_fit(
        df, "salary", n_trials=1, cv=2, storage=journal, show_progress=False
    )
    second = auto_fit(
        df, "salary", n_trials=1, cv=2, storage=journal, show_progress=False
    )
    assert first.study_.study_name == second.study_.study_name == "autocat-salary"
    assert second.n_trials_ == 2
    complete = second.study_.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert [t.number for t in complete] == [0, 1]


def test_progress_bar_and_determinism(capsys):
    df = _frame(60)
    a = auto_fit(df, "salary", n_trials=2, cv=2, show_progress=True, random_state=3)
    err = capsys.readouterr().err
    assert "autocat" in err and "2/2" in err and "best=" in err
    b = auto_fit(df, "salary", n_trials=2, cv=2, show_progress=False, random_state=3)
    assert a.best_params_ == b.best_params_
    assert a.cv_score_ == b.cv_score_
    np.testing.assert_array_equal(a.predict(df), b.predict(df))


def test_parallel_trials_share_the_thread_budget(monkeypatch):
    # Asking for more threads than cores: trials share the cores, XGBoost gets
    # what is left per trial, and the refit gets them all.
    from autocat._tuning import resolve_threads

    monkeypatch.setattr("autocat._tuning._available_cores", lambda: 4)
    total, parallel, xgb_threads = resolve_threads(16, None)
    assert (total, parallel, xgb_threads) == (4, 4, 1)
    seen = []
    original = autocat._recipe.Recipe.build_model

    def spy(self, **overrides):
        seen.append(self.n_jobs)
        return original(self, **overrides)

    monkeypatch.setattr(autocat._recipe.Recipe, "build_model", spy)
    result = auto_fit(
        _frame(60), "salary", n_trials=2, cv=2, n_jobs=16, show_progress=False
    )
    assert result.n_trials_ == 2
    # Two trials at once (n_trials caps the batch): 2 threads each, refit 4.
    assert set(seen[:-2]) == {2} and seen[-1] == 4


_DETERMINISM_CODE = """
import hashlib, numpy as np, pandas as pd, autocat
rng = np.random.default_rng(0)
n = 120
kinds = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
jobs = [f"{k} grade {g}" for k, g in zip(kinds, rng.integers(0, 20, n))]
df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
df["salary"] = df["years"] * 2.0 + (kinds == "nurse") * 10.0
result = autocat.auto_fit(df, "salary", n_trials=3, cv=2, show_progress=False)
print(hashlib.sha256(result.predict(df).tobytes()).hexdigest(), result.cv_score_)
"""


@pytest.mark.slow
def test_same_bytes_in_another_process():
    import subprocess
    import sys

    outputs = [
        subprocess.run(
            [sys.executable, "-c", _DETERMINISM_CODE],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.slow
def test_two_processes_share_one_sqlite_study(tmp_path):
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'study.db'}"
    data = tmp_path / "data.csv"
    _frame(80).to_csv(data, index=False)
    code = (
        "import pandas as pd, autocat; "
        f"df = pd.read_csv({str(data)!r}); "
        f"autocat.auto_fit(df, 'salary', n_trials=2, cv=2, storage={url!r}, "
        "show_progress=False)"
    )
    processes = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
    assert [p.wait(timeout=300) for p in processes] == [0, 0]
    study = optuna.load_study(study_name="autocat-salary", storage=url)
    ended = [t for t in study.trials if t.state.is_finished()]
    # 2 trials each; 3 when both processes took the same queued trial (SQLite
    # cannot lock the row that Optuna pops), which both then ran and told
    assert len(ended) in (3, 4)


def test_rescue_model_trains_on_as_many_rows_as_the_time_allows():
    from autocat._rescue import fallback_model, rescue_model

    df = _frame(5000, seed=3)
    X, y = df.drop(columns="salary"), df["salary"].to_numpy()
    fallback = fallback_model(X, y, "regression", 0, 1)
    # Time for everything: 1,000 -> 4,000 -> 5,000 rows, the paper's recipe on
    # all rows, bit for bit.
    model, n_rows, seconds = rescue_model(
        X, y, "regression", 0, 1, time.monotonic() + 60, (fallback, 0.05)
    )
    assert n_rows == 5000 and 0 < seconds < 60  # the last fit's time
    whole = fallback_model(X, y, "regression", 0, 1, n_rows=5000)
    assert model.predict(X).tobytes() == whole.predict(X).tobytes()
    # No time left: the fallback itself.
    model, n_rows, seconds = rescue_model(
        X, y, "regression", 0, 1, time.monotonic() - 1, (fallback, 0.05)
    )
    assert n_rows == 1000 and model is fallback and seconds == 0.05


def test_the_rescue_recipe_is_min_hash_before_a_regularised_xgboost():
    # The rescue's XGBoost: learning rate 0.1, rows and columns subsampled,
    # trees by early stopping on an inner fifth. The same
    # model built by hand from the vectorizer's defaults and XGBoost predicts
    # the same, bit for bit; auto_fit's best_params_ reports those settings.
    from xgboost import XGBRegressor

    from autocat import TableVectorizer
    from autocat._rescue import RESCUE_XGB_PARAMS, fallback_model
    from autocat._splits import inner_splits

    assert RESCUE_XGB_PARAMS == {
        "learning_rate": 0.1, "subsample": 0.8, "colsample_bytree": 0.8,
    }  # fmt: skip
    df = _frame(600, seed=5)
    X, y = df.drop(columns="salary"), df["salary"].to_numpy()
    rescue = fallback_model(X, y, "regression", 3, 1, n_rows=600)
    rows = np.arange(600)
    (fit, stop), = inner_splits([(rows, rows)], y, "regression", 3)  # fmt: skip
    encoded = TableVectorizer(random_state=3).fit_transform(X, y)
    by_hand = XGBRegressor(
        tree_method="hist", n_estimators=1000, early_stopping_rounds=50,
        learning_rate=0.1, subsample=0.8, colsample_bytree=0.8,
        random_state=3, n_jobs=1,
    )  # fmt: skip
    by_hand.fit(encoded[fit], y[fit], eval_set=[(encoded[stop], y[stop])],
                verbose=False)  # fmt: skip
    assert rescue.named_steps["model"].best_iteration == by_hand.best_iteration
    assert rescue.predict(X).tobytes() == by_hand.predict(encoded).tobytes()
    # a budget that allows no trial reports the rescue's settings and trees
    result = auto_fit(df, "salary", time_budget=0.01, show_progress=False)
    assert result.n_trials_ == 0  # the budget ended before the search began
    for name, value in RESCUE_XGB_PARAMS.items():
        assert result.best_params_[name] == value
    assert result.best_params_["encoder"] == "minhash"
    assert result.best_params_["n_components"] == 30
    assert 1 <= result.best_params_["n_estimators"] < 1000


def test_the_rescue_gets_what_the_paper_recipe_on_all_rows_needs(monkeypatch):
    # The search stops early enough for the rescue: a third of the budget, or
    # the paper's recipe on all rows, estimated from the fallback's fit on
    # 1,000 rows (scaled to the rows and threads), up to two thirds.
    import autocat._auto
    from autocat._rescue import rescue_seconds
    from autocat._trials import thread_speedup

    calls, kept = [], []

    def spy(*args):
        calls.append(args)
        kept.append(rescue_seconds(*args))
        return kept[-1]

    def tune_spy(*args, **kwargs):
        kept.append(kwargs["deadline"] - kwargs["first_result_by"].when)
        return real_tune(*args, **kwargs)

    real_tune = autocat._auto.tune
    monkeypatch.setattr(autocat._auto, "rescue_seconds", spy)
    monkeypatch.setattr(autocat._auto, "tune", tune_spy)
    auto_fit(_frame(3000, seed=4), "salary", time_budget=6, n_jobs=1,
             show_progress=False)  # fmt: skip
    (budget, fallback_s, n_rows, threads, fallback_threads), = calls  # fmt: skip
    assert (budget, n_rows, threads, fallback_threads) == (6.0, 3000, 1, 1)
    assert 0.0 < fallback_s < 6.0  # the fallback's measured fit
    assert kept[1] == pytest.approx(kept[0])
    # the rule itself: a third, more when the recipe needs it, two thirds at
    # most; the need is the last fit's (margined by 1.3) and the fits on the way
    # to it, whose rows grow 4 times a step: a third of it more
    assert rescue_seconds(60.0, 0.1, 3000, 1) == 20.0
    assert rescue_seconds(60.0, 0.75, 30_000, 1) == pytest.approx(1.3 * 22.5 * 4 / 3)
    four_threads = rescue_seconds(60.0, 1.5, 30_000, 4)
    assert four_threads == pytest.approx(1.3 * 45 * 4 / 3 / thread_speedup(4.0))
    assert four_threads < 1.3 * 45 * 4 / 3 / 2
    # a fallback measured on the 4 threads needs no speed-up
    assert rescue_seconds(60.0, 0.5, 30_000, 4, 4) == pytest.approx(1.3 * 15 * 4 / 3)
    assert rescue_seconds(60.0, 5.0, 30_000, 1) == 40.0


def _fit_with_the_whole_budget_kept_for_the_rescue(
    monkeypatch, budget, show_progress=False
):
    """auto_fit whose first search ends at once: the rescue's reserve is all."""
    import autocat._auto

    monkeypatch.setattr(autocat._auto, "rescue_seconds", lambda budget, *args: budget)
    df = _frame(3000, seed=4)
    start = time.monotonic()
    result = auto_fit(df, "salary", time_budget=budget, n_jobs=1,
                      show_progress=show_progress)  # fmt: skip
    return df, result, time.monotonic() - start


def test_the_search_resumes_when_the_rescue_leaves_time_for_a_trial(
    monkeypatch, capsys
):
    # The rescue's reserve is an estimate: here the whole budget, so the first
    # search ends before any trial, however fast the machine (at 0.95 of it, a
    # fast machine finished a trial in the 0.5 s left). The paper's recipe on
    # 3,000 rows then takes well under a second, and the search resumes in the
    # time left: its trials, not the recipe, make the model.
    from autocat._final import warm_kernels

    warm_kernels()  # a cold compile cache would take the time left for the trials
    budget = 10.0
    df, result, elapsed = _fit_with_the_whole_budget_kept_for_the_rescue(
        monkeypatch, budget, show_progress=True
    )
    assert result.n_trials_ >= 1
    assert "the search resumed" in result.summary()
    # its progress bar says it is the resumed search, not a second "autocat" one
    bars = capsys.readouterr().err
    assert "autocat (resumed):" in bars and "autocat:" in bars
    assert "trained on a sample of" not in result.summary()
    assert np.isfinite(result.cv_score_)
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    assert result.score(df, df["salary"]) > 0.9
    _assert_fully_trained(result)


def test_the_search_does_not_resume_for_a_trial_the_time_left_cannot_hold(
    monkeypatch,
):
    # As above, but the rescue recipe's fits are made slow, 2 ms a row: the
    # rescue grows from 1,000 rows to about 2,300 in about 4.5 s, which says
    # that a trial on 2,400 rows needs 4.5 s or more, and less is left, so the
    # rescue recipe is the model. Before that estimate was checked, the search
    # resumed whenever more time was left than it had run: on a 200,000-row,
    # 100-class table, a trial cut in the middle of an encoding that cannot be
    # cut ran the call past its budget.
    import autocat._auto
    import autocat._rescue

    fallback_model = autocat._rescue.fallback_model

    def slow_fit(X, y, *args, n_rows=1000, **kwargs):
        time.sleep(0.002 * n_rows)
        return fallback_model(X, y, *args, n_rows=n_rows, **kwargs)

    monkeypatch.setattr(autocat._rescue, "fallback_model", slow_fit)
    budget = 8.0
    _, result, elapsed = _fit_with_the_whole_budget_kept_for_the_rescue(
        monkeypatch, budget
    )
    assert result.n_trials_ == 0
    assert "the search resumed" not in result.summary()
    rows = re.search(r"a sample of ([\d,]+) of 3,000 rows", result.summary())
    assert rows and 1000 < int(rows.group(1).replace(",", "")) < 3000
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    _assert_fully_trained(result)


def test_a_search_with_no_finished_trial_leaves_a_third_to_the_rescue(
    trials_never_finish,
):
    # Trials that never finish: two thirds into the budget the search gives up,
    # and the paper's recipe is trained on more rows than the fallback's 1,000
    # (all 3,000 on an idle machine: about 0.6 s of the 3 s left).
    gave_up = trials_never_finish
    df = _frame(3000, seed=4)
    budget = 9.0
    start = time.monotonic()
    # One thread: XGBoost's threads are slowed the most by tests running beside.
    result = auto_fit(df, "salary", time_budget=budget, n_jobs=1, show_progress=False)
    elapsed = time.monotonic() - start
    assert result.n_trials_ == 0
    # ... and does not resume: less time is left than the search had run
    assert gave_up and max(gave_up) - start < budget * 2 / 3 + 0.5
    rows = re.search(r"a sample of ([\d,]+) of 3,000 rows", result.summary())
    assert rows and int(rows.group(1).replace(",", "")) > 1000
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    assert result.score(df, df["salary"]) > 0.9
    _assert_fully_trained(result)


def test_the_rescue_recipes_cv_score_is_its_score_on_the_rows_it_left_out(
    monkeypatch, trials_never_finish
):
    # No trial finishes, and the rescue recipe trains on 1,000 of 3,000 rows:
    # cv_score_ is scikit-learn's R² of the model on the other 2,000, which
    # chose nothing, and summary() says so (it was NaN: no estimate at all).
    from sklearn.metrics import r2_score

    import autocat._auto
    import autocat._rescue

    def rescue_on_1000_rows(X, y, task, random_state, n_threads, *rest):
        start = time.monotonic()
        model = autocat._rescue.fallback_model(
            X, y, task, random_state, n_threads, n_rows=1000
        )
        return model, 1000, time.monotonic() - start

    monkeypatch.setattr(autocat._auto, "rescue_model", rescue_on_1000_rows)
    df = _frame(3000, seed=5)
    result = auto_fit(df, "salary", time_budget=6.0, n_jobs=1, random_state=3,
                      show_progress=False)  # fmt: skip
    assert result.n_trials_ == 0
    assert "a sample of 1,000 of 3,000 rows" in result.summary()
    y = df["salary"].to_numpy()
    outside = np.setdiff1d(np.arange(3000), rescue_rows(y, "regression", 3, 1000))
    assert len(outside) == 2000
    expected = r2_score(y[outside], result.predict(df.iloc[outside]))
    assert result.cv_score_ == pytest.approx(expected, abs=1e-5)
    assert result.cv_score_ != pytest.approx(result.score(df, y), abs=1e-4)
    assert "rescue recipe's on 2,000 rows outside its sample" in result.summary()
    line = result.summary().splitlines()[3]
    assert line.startswith(f"CV r2 of the model: {result.cv_score_:.4f} (no trial")


_THREADS_LEFT_CODE = """
import os, time, numpy as np, pandas as pd, autocat
from autocat._final import warm_kernels
warm_kernels()
rng = np.random.default_rng(0)
frame = pd.DataFrame({"job": [f"job {i % 80} grade {i % 7}" for i in range(600)],
                      "x": rng.normal(size=600)})
frame["y"] = frame["x"] + np.arange(600) % 7
# warm_kernels' threads, too, end a moment after it returns: count once they have
before = len(os.listdir("/proc/self/task"))
for _ in range(50):
    time.sleep(0.1)
    now = len(os.listdir("/proc/self/task"))
    if now == before:
        break
    before = now
autocat.auto_fit(frame, "y", n_jobs=2, show_progress=False, LIMIT)
# The teams of the threads that ended exit on their own, a moment later on a
# busy machine; a team left in this thread stays.
for _ in range(100):
    if len(os.listdir("/proc/self/task")) <= before:
        break
    time.sleep(0.1)
print(before, len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(
    not __import__("os").path.isdir("/proc/self/task"),
    reason="counts the process's threads through Linux's /proc",
)
@pytest.mark.parametrize("limit", ["time_budget=3", "n_trials=2"])
def test_auto_fit_leaves_no_openmp_team_in_the_calling_thread(limit):
    # XGBoost sizes a region by its global thread count, not by n_jobs: the
    # fallback's one-thread fit (with a time budget), or else the refit, in the
    # caller's thread, left an idle OpenMP team there, which made the next
    # search's trials of small parallel regions up to 8x slower. A fresh
    # process: none was started yet.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _THREADS_LEFT_CODE.replace("LIMIT", limit)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    before, after = map(int, done.stdout.split())
    assert after == before, done.stdout


def test_many_classes_keep_the_budget_when_even_the_rescue_recipe_is_slow():
    # XGBoost grows a tree per class each round: on 200 classes the fallback
    # model (the rescue recipe on 1,000 rows) boosts for seconds, and used to
    # run to its end whatever the budget (22 s for 5 s on a table of countries).
    rng = np.random.default_rng(0)
    code = rng.integers(0, 200, 3000)
    df = pd.DataFrame({
        "code": [f"C{c:03d}" for c in code],
        "noise": rng.random(3000),
        "country": [f"country {c}" for c in code],
    })  # fmt: skip
    budget = 2.0
    start = time.monotonic()
    result = auto_fit(df, "country", time_budget=budget, n_jobs=4, show_progress=False)
    elapsed = time.monotonic() - start
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    assert result.predict(df.head(5)).shape == (5,)
    text = result.summary()
    if "the model is the rescue recipe" in text:
        assert "its boosting stopped at the deadline after" in text
    if "cut by the time budget in its first fold" in text:  # weighed against it
        assert "trials: 0 complete of 1 run" in text
        assert result.leaderboard_["state"].tolist() == ["PRUNED"]
