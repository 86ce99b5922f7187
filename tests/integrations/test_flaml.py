"""autocat's learners inside a real FLAML AutoML: fit, then predict unseen titles."""

import pickle

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
    # on few rows, the trees stay under FLAML's bound (the rows)
    assert all(p["n_estimators"] == 50 for p in starting_points(100)["autocat"])
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
    from autocat._trials import inner_split
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
