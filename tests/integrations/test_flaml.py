"""autocat's learners inside a real FLAML AutoML: fit, then predict unseen titles."""

import pickle
import types

import numpy as np
import pytest
from sklearn.metrics import r2_score

flaml = pytest.importorskip("flaml")

# FLAML 2.7 calls reset_index(inplace=True), deprecated by pandas 3.1: drop this
# once the pinned FLAML (ci/flaml.txt) no longer does.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The inplace keyword:pandas.errors.Pandas4Warning"
)

from autocat import _search_space  # noqa: E402
from autocat.integrations.flaml import (  # noqa: E402
    FLAML_LEARNERS,
    add_learners,
    search_space,
    starting_points,
)


def test_search_space_has_every_row_of_the_table():
    space = search_space(("vectorizer", "model"))
    for spec in _search_space.SEARCH_SPACE:
        name = "autocat_" + spec.name if spec.step == "vectorizer" else spec.name
        assert space[name]["init_value"] == spec.default
        # every value FLAML draws lies in the table's distribution
        for _ in range(20):
            value = space[name]["domain"].sample()
            assert spec.distribution._contains(
                spec.distribution.to_internal_repr(value)
            ), (name, value)


def test_add_learners_registers_the_names_it_returns():
    automl = flaml.AutoML()
    names = add_learners(automl, ["autocat", "lgbm"])
    assert names == ["autocat", "autocat_lgbm"]
    assert set(names) <= set(automl._state.learner_classes)


def test_add_learners_rejects_an_unknown_learner():
    with pytest.raises(ValueError, match="catboost"):
        add_learners(flaml.AutoML(), ["catboost"])
    assert "catboost" not in FLAML_LEARNERS


def _small_search(X, y, learners, *, max_iter, **fit_params):
    """A real FLAML search of ``max_iter`` configurations of autocat's ``learners``."""
    automl = flaml.AutoML()
    names = add_learners(automl, learners)
    automl.fit(
        X,
        y,
        task="regression",
        time_budget=60,  # a bound only; max_iter ends the search
        n_jobs=1,
        max_iter=max_iter,  # a fixed amount of search, however loaded the machine
        estimator_list=names,
        eval_method="holdout",
        skip_transform=True,
        verbose=0,
        seed=0,
        **fit_params,
    )
    return automl, names


def test_starting_points_are_the_portfolio_inside_flamls_space():
    portfolio = _search_space.portfolio()
    points = starting_points(n_rows=2_000)["autocat"]
    learner = flaml.AutoML()
    add_learners(learner, ["autocat"])
    space = learner._state.learner_classes["autocat"].search_space(
        data_size=(1_000, 3), task="regression"
    )
    assert len(points) == len(portfolio) > 1
    for point, entry in zip(points, portfolio, strict=True):
        assert set(point) == set(space)  # complete: no parameter left to FLAML
        for name, value in entry.items():
            flaml_name = name if name in space else "autocat_" + name
            assert point[flaml_name] == value
        # FLAML keeps only points inside its domains (it would drop the others)
        for name, value in point.items():
            domain = space[name]["domain"]
            if hasattr(domain, "categories"):
                assert value in domain.categories, name
            else:
                assert domain.lower <= value <= domain.upper, (name, value)
        # early stopping chooses the trees: a point allows auto_fit's most,
        # within FLAML's bound (half the rows here)
        assert point["n_estimators"] == 1_000
    # on few rows, the trees stay under FLAML's bound (the rows), and the leaf
    # sums are scaled to the rows XGBoost is fitted on, as in auto_fit
    small = starting_points(100)["autocat"]
    assert all(p["n_estimators"] == 50 for p in small)
    scaled = _search_space.portfolio(fit_rows=80)
    assert [p["min_child_weight"] for p in small] == [
        e["min_child_weight"] for e in scaled
    ]
    assert scaled[0]["min_child_weight"] < portfolio[0]["min_child_weight"]
    with pytest.raises(ValueError, match="n_rows"):
        starting_points(0)


def test_flaml_evaluates_the_starting_points_first(dirty_split, tmp_path):
    from flaml.automl.training_log import training_log_reader

    X_train, y_train, _, _ = dirty_split
    points = starting_points(len(X_train))["autocat"][:3]
    _small_search(
        X_train,
        y_train,
        ["autocat"],
        max_iter=3,
        starting_points={"autocat": points},
        log_file_name=str(tmp_path / "flaml.log"),
        log_type="all",
    )
    with training_log_reader(str(tmp_path / "flaml.log")) as reader:
        tried = [record.config for record in reader.records()]
    assert len(tried) == 3
    for config, point in zip(tried, points, strict=True):
        assert config["autocat_encoder"] == point["autocat_encoder"]
        assert config["learning_rate"] == pytest.approx(point["learning_rate"])
        assert config["n_estimators"] == point["n_estimators"]


@pytest.mark.parametrize("learners", [["autocat"], ["lgbm"]])
def test_fit_predicts_rows_with_unseen_titles(dirty_split, learners):
    X_train, y_train, X_new, y_new = dirty_split
    automl, names = _small_search(X_train, y_train, learners, max_iter=6)
    assert automl.best_estimator == names[0]
    predictions = automl.predict(X_new)
    assert predictions.shape == (len(X_new),) and np.isfinite(predictions).all()
    # the rank and role inside never-seen titles explain most of the salary;
    # without the titles (FLAML drops all-distinct columns) R² is about 0.03
    assert r2_score(y_new, predictions) > 0.3
    # FLAML keeps its models by pickling them: the encoder comes along
    restored = pickle.loads(pickle.dumps(automl))
    np.testing.assert_allclose(restored.predict(X_new), predictions)


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_the_autocat_learner_chooses_its_trees_by_early_stopping(dirty_split, task):
    # As in auto_fit's trials: n_estimators is a bound, a stratified fifth of
    # the training rows stops the boosting, and the model keeps the best round.
    from xgboost import XGBClassifier, XGBRegressor

    from autocat import TableVectorizer
    from autocat._splits import inner_split
    from autocat.integrations.flaml import _learner_class

    X_train, y_train, X_new, _ = dirty_split
    if task == "binary":
        y_train = (y_train > y_train.median()).astype(int)
    learner = _learner_class("autocat")(
        task=task, n_estimators=1_000, learning_rate=0.3, max_depth=6,
        n_jobs=1, random_state=0,
    )  # fmt: skip
    learner.fit(X_train, y_train)
    model = learner._model
    rounds = model.get_booster().num_boosted_rounds()
    assert rounds < 1_000  # stopped, 50 rounds after its best
    assert rounds == model.best_iteration + 1 + 50
    # the same model by hand: the vectorizer on every training row, XGBoost on
    # the fit rows, early stopping on the others
    y = y_train.to_numpy()
    fit_rows, stop_rows = inner_split(np.arange(len(y)), y, task, 0)
    assert len(stop_rows) == round(0.2 * len(y))
    if task == "binary":  # stratified: the classes' shares are kept
        assert abs(y[stop_rows].mean() - y.mean()) < 0.02
    encoded = TableVectorizer(random_state=0).fit_transform(X_train, y)
    kind = XGBClassifier if task == "binary" else XGBRegressor
    by_hand = kind(
        n_estimators=1_000, learning_rate=0.3, max_depth=6, n_jobs=1,
        random_state=0, early_stopping_rounds=50, tree_method="hist",
    )  # fmt: skip
    stop = [(encoded[stop_rows], y[stop_rows])]
    by_hand.fit(encoded[fit_rows], y[fit_rows], eval_set=stop, verbose=False)
    assert model.best_iteration == by_hand.best_iteration
    new = TableVectorizer(random_state=0).fit(X_train, y).transform(X_new)
    expected = by_hand.predict(new)
    np.testing.assert_allclose(learner.predict(X_new), expected, rtol=1e-5)


def test_flamls_budget_bounds_the_vectorizers_fit(dirty_split):
    # FLAML gives each fit a time budget. A spent one settles the Gamma-Poisson
    # fit at once (its initial topics, no pass), the model gets FLAML's
    # one-round floor, and the learner still predicts; without a budget the
    # same learner runs the passes.
    from autocat.integrations.flaml import _learner_class

    X_train, y_train, X_new, _ = dirty_split
    config = {
        "autocat_encoder": "gamma_poisson", "autocat_n_components": 30,
        "n_estimators": 1_000, "learning_rate": 0.3, "max_depth": 6,
        "n_jobs": 1, "random_state": 0,
    }  # fmt: skip
    fits = {}
    for budget in (1e-6, None):
        learner = _learner_class("autocat")(task="regression", **config)
        learner.fit(X_train, y_train, budget=budget)
        (encoder,) = [
            transformer
            for transformer in learner._vectorizer.transformers_.values()
            if type(transformer).__name__ == "GammaPoissonEncoder"
        ]
        fits[budget] = encoder.n_iter_, learner._model, learner.predict(X_new)
    n_iter, model, predicted = fits[1e-6]
    assert n_iter == 0 and model.get_booster().num_boosted_rounds() == 1
    assert np.isfinite(predicted).all()
    n_iter, model, predicted = fits[None]
    assert n_iter > 1 and model.get_booster().num_boosted_rounds() > 10
    assert np.isfinite(predicted).all()


def _recorded_search(X, y, task, metric, *, eval_method="cv", max_iter=8):
    """A real FLAML search whose metric is a ``TrialRecorder`` of ``metric``."""
    from autocat.integrations.flaml import TrialRecorder

    recorder = TrialRecorder(metric)
    automl = flaml.AutoML()
    names = add_learners(automl, ["autocat", "lgbm"])
    automl.fit(
        X, y, task=task, metric=recorder, time_budget=60, n_jobs=1,
        max_iter=max_iter, estimator_list=names, eval_method=eval_method,
        n_splits=3, skip_transform=True, verbose=0, seed=0,
        starting_points=starting_points(len(X)), keep_search_state=True,
    )  # fmt: skip
    return automl, recorder


@pytest.fixture
def recorded(dirty_split):
    X_train, y_train, _, _ = dirty_split
    return _recorded_search(X_train, y_train, "regression", "r2", max_iter=10)


def test_the_recorder_keeps_each_trials_out_of_fold_predictions(dirty_split, recorded):
    _, y_train, _, _ = dirty_split
    automl, recorder = recorded
    trials = recorder.candidates()
    assert len(trials) >= 3
    y = y_train.to_numpy()
    for trial in trials:
        # 3-fold CV: every training row validated once, by a model that did not
        # train on it; FLAML's loss is 1 - R² of each fold, averaged
        assert sorted(trial["rows"]) == list(range(len(y)))
        # FLAML shuffles the rows first: its index numbers them after that
        np.testing.assert_array_equal(np.sort(trial["target"]), np.sort(y))
        same = trials[0]["target"][np.argsort(trials[0]["rows"])]
        np.testing.assert_array_equal(trial["target"][np.argsort(trial["rows"])], same)
        assert len(trial["losses"]) == 3
        assert trial["loss"] == pytest.approx(np.mean(trial["losses"]))
        assert trial["loss"] == pytest.approx(
            1 - r2_score(trial["target"], trial["predictions"]), abs=0.05
        )
    assert automl.best_loss == pytest.approx(min(t["loss"] for t in trials))


def test_the_ensemble_of_the_recorded_trials_beats_its_best_member(
    dirty_split, recorded
):
    from autocat._ensemble import blend
    from autocat._selection import select_weights

    def by_config_keys(model):
        return [repr(d["config"]) for d in model.description_]

    X_train, y_train, X_new, y_new = dirty_split
    _, recorder = recorded
    model = recorder.ensemble(X_train, y_train)
    assert model.task == "regression" and model.classes_ is None
    assert model.weights_.sum() == pytest.approx(1) and (model.weights_ > 0).all()
    trials = recorder.candidates()
    by_config = {repr(t["config"]): t for t in trials}
    members = [by_config[repr(d["config"])] for d in model.description_]
    # its out-of-fold score: at least the best trial's (the selection starts there)
    order = [np.argsort(t["rows"]) for t in members]
    oof = blend([t["predictions"][o] for t, o in zip(members, order, strict=True)],
                model.weights_, task="regression")  # fmt: skip
    target = members[0]["target"][order[0]]
    # the weights are greedy ensemble selection's over all candidates
    every = [t["predictions"][np.argsort(t["rows"])] for t in trials]
    weights = select_weights(every, target, "r2", "regression", True)
    chosen = {repr(t["config"]): w for t, w in zip(trials, weights, strict=True) if w}
    assert chosen == dict(zip(by_config_keys(model), model.weights_, strict=True))
    best = trials[0]
    best_oof = r2_score(best["target"], best["predictions"])
    assert r2_score(target, oof) >= best_oof - 1e-9
    # the members, refit on all rows, averaged with their weights
    pairs = zip(model.weights_, model.members_, strict=True)
    expected = sum(weight * member.predict(X_new) for weight, member in pairs)
    np.testing.assert_allclose(model.predict(X_new), expected)
    assert r2_score(y_new, model.predict(X_new)) > 0.3  # unseen titles
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(restored.predict(X_new), model.predict(X_new))


def test_the_recorder_keeps_the_fold_models_of_its_best_trials(recorded):
    from autocat.integrations.flaml import TrialRecorder

    automl, recorder = recorded
    trials = recorder.candidates()
    assert len(trials) > 3
    # FLAML's rows after its shuffle, as the recorded row numbers name them
    X, y = automl._state.X_train_all, np.asarray(automl._state.y_train_all)
    holding = [trial for trial in trials if trial["models"]]
    assert len(holding) >= 3
    assert [id(t) for t in holding] == [id(t) for t in trials[: len(holding)]]
    for trial in holding:
        models = trial["models"]
        assert len(models) == 3 and len({id(m._model) for m in models}) == 3
        # fold k's model made the predictions recorded on fold k's rows
        for k, model in enumerate(models):
            rows = trial["rows"][100 * k : 100 * (k + 1)]
            np.testing.assert_array_equal(
                trial["target"][100 * k : 100 * (k + 1)], y[rows]
            )
            np.testing.assert_allclose(
                model.predict(X.loc[rows]),
                trial["predictions"][100 * k : 100 * (k + 1)],
                rtol=1e-6,
            )
    # at most keep_models trials hold theirs: the best ones. Each fold is
    # given its trial's mean loss: a trial in progress is ranked by its folds
    # so far, so with FLAML's own fold losses the order of the folds decides
    few = TrialRecorder("r2", keep_models=2)
    for trial in recorder.trials_:
        estimator = types.SimpleNamespace(_task=None)  # FLAML's: one per trial
        for fold in range(3):
            rows = trial["rows"][100 * fold : 100 * (fold + 1)]
            few._keep(
                estimator, trial["config"],
                {"rows": rows, "target": y[rows], "predictions": y[rows]},
                None, 200, trial["loss"], 0.0,
            )  # fmt: skip
    held = [t["loss"] for t in few.candidates() if t["models"]]
    assert held == sorted(t["loss"] for t in few.trials_)[:2]
    with pytest.raises(ValueError, match="keep_models"):
        TrialRecorder("r2", keep_models=-1)


def test_the_ensembles_time_budget_refits_only_what_fits(
    dirty_split, recorded, monkeypatch
):
    import autocat._selection
    from autocat.integrations.flaml import FoldAverage

    X_train, y_train, X_new, _ = dirty_split
    _, recorder = recorded
    trials = recorder.candidates()
    holding = sum(1 for trial in trials if trial["models"])

    def heavier_first(predictions, *args):  # every trial a member, the best heaviest
        weights = np.arange(len(predictions), 0, -1, dtype=float)
        return weights / weights.sum()

    monkeypatch.setattr(autocat._selection, "select_weights", heavier_first)
    everything = recorder.ensemble(X_train, y_train, time_budget=600)
    assert len(everything.members_) == len(trials) >= 3
    assert {d["built"] for d in everything.description_} == {"refit on all rows"}
    # no time: the members are their trials' fold models, none is refit
    folds = recorder.ensemble(X_train, y_train, time_budget=0)
    assert len(folds.members_) == holding >= 3
    assert all(isinstance(member, FoldAverage) for member in folds.members_)
    assert {d["built"] for d in folds.description_} == {"mean of 3 fold models"}
    first = folds.members_[0]
    np.testing.assert_allclose(
        first.predict(X_new), np.mean([m.predict(X_new) for m in first.models_], axis=0)
    )
    # the trials without fold models are left out of the selection, which is
    # made again among those that can be built
    weights = heavier_first(range(holding))
    np.testing.assert_allclose(folds.weights_, weights)
    expected = sum(
        w * member.predict(X_new)
        for w, member in zip(weights, folds.members_, strict=True)
    )
    np.testing.assert_allclose(folds.predict(X_new), expected)
    restored = pickle.loads(pickle.dumps(folds))
    np.testing.assert_allclose(restored.predict(X_new), folds.predict(X_new))
    # a member that can be neither refit nor averaged is left out, and the
    # selection is made again without it (not its weight dropped afterwards)
    trials[1]["models"] = []
    fewer = recorder.ensemble(X_train, y_train, time_budget=0)
    np.testing.assert_allclose(fewer.weights_, heavier_first(range(holding - 1)))
    assert [d["loss"] for d in fewer.description_] == [
        t["loss"] for t in trials[:holding] if t is not trials[1]
    ]
    # with no fold model kept, no time leaves the heaviest member alone, refit
    for trial in recorder.trials_:
        trial["models"] = []
    alone = recorder.ensemble(X_train, y_train, time_budget=0)
    assert len(alone.members_) == 1 and alone.weights_.tolist() == [1.0]
    assert alone.description_[0]["built"] == "refit on all rows"
    assert alone.description_[0]["config"] == everything.description_[0]["config"]
    assert alone.description_[0]["loss"] == trials[0]["loss"]


def test_the_ensemble_takes_flamls_final_model_for_its_best_configuration(
    dirty_split, recorded, monkeypatch
):
    import autocat._selection

    X_train, y_train, X_new, _ = dirty_split
    automl, recorder = recorded
    n_trials = len(recorder.candidates())

    def even(predictions, *args):
        return np.full(len(predictions), 1 / len(predictions))

    monkeypatch.setattr(autocat._selection, "select_weights", even)
    model = recorder.ensemble(X_train, y_train, automl=automl)
    assert len(model.members_) == n_trials
    # FLAML's best trial is the first candidate; its member is FLAML's model
    assert recorder.candidates()[0]["config"] == automl.best_config
    assert model.members_[0] is automl.model
    assert not any(member is automl.model for member in model.members_[1:])
    # without automl, that configuration is refit (on rows in another order
    # than FLAML's shuffle: its early stopping rows differ)
    refit = recorder.ensemble(X_train, y_train).members_[0]
    assert refit is not automl.model and type(refit) is type(automl.model)
    assert model.predict(X_new).shape == (len(X_new),)


@pytest.mark.parametrize(
    ("metric", "eval_method"), [("accuracy", "holdout"), ("log_loss", "cv")]
)
def test_the_recorder_ensembles_classes_with_their_labels(
    dirty_split, metric, eval_method
):
    X_train, y_train, X_new, y_new = dirty_split
    # with skip_transform=True, FLAML hands the labels to the learners as they
    # are, and XGBoost takes codes 0 .. k-1 only
    bands = np.array([0, 1, 2])

    def band(values):
        return bands[np.digitize(values, np.quantile(y_train, [1 / 3, 2 / 3]))]

    _, recorder = _recorded_search(
        X_train, band(y_train), "classification", metric,
        eval_method=eval_method, max_iter=4,
    )  # fmt: skip
    trials = recorder.candidates()
    assert trials and all(t["labels"].tolist() == bands.tolist() for t in trials)
    for trial in trials:
        proba = trial["predictions"]
        assert proba.shape == (len(trial["rows"]), 3)
        np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-5)
    # members refit on all rows, then (no time) their fold models
    for time_budget in (None, 0):
        model = recorder.ensemble(X_train, band(y_train), time_budget=time_budget)
        assert model.task == "multiclass"
        assert model.classes_.tolist() == bands.tolist()
        proba = model.predict_proba(X_new)
        np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-5)
        predicted = model.predict(X_new)
        assert set(predicted) <= set(bands)
        np.testing.assert_array_equal(predicted, bands[np.argmax(proba, axis=1)])
        assert np.mean(predicted == band(y_new)) > 0.5  # three bands: chance is 1/3


def test_the_recorder_refuses_what_it_cannot_ensemble(dirty_split):
    from autocat.integrations.flaml import TrialRecorder

    with pytest.raises(ValueError, match="mape"):
        TrialRecorder("mape")
    with pytest.raises(ValueError, match="metric=recorder"):
        TrialRecorder("r2").ensemble(*dirty_split[:2])
