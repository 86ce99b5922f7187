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


@pytest.mark.parametrize("learners", [["autocat"], ["lgbm"]])
def test_fit_predicts_rows_with_unseen_titles(dirty_split, learners):
    X_train, y_train, X_new, y_new = dirty_split
    automl = flaml.AutoML()
    names = add_learners(automl, learners)
    automl.fit(
        X_train,
        y_train,
        task="regression",
        time_budget=60,  # a bound only; max_iter ends the search
        n_jobs=1,
        max_iter=6,  # a fixed amount of search, however loaded the machine
        estimator_list=names,
        eval_method="holdout",
        skip_transform=True,
        verbose=0,
        seed=0,
    )
    assert automl.best_estimator == names[0]
    predictions = automl.predict(X_new)
    assert predictions.shape == (len(X_new),) and np.isfinite(predictions).all()
    # the rank and role inside never-seen titles explain most of the salary;
    # without the titles (FLAML drops all-distinct columns) R² is about 0.03
    assert r2_score(y_new, predictions) > 0.3
    # FLAML keeps its models by pickling them: the encoder comes along
    restored = pickle.loads(pickle.dumps(automl))
    np.testing.assert_allclose(restored.predict(X_new), predictions)
