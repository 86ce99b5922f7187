"""autocat's vectorizer node inside a real TPOT 1.x search."""

import numpy as np
import pytest
from sklearn.metrics import r2_score

tpot = pytest.importorskip("tpot")

from autocat import TableVectorizer, _search_space  # noqa: E402
from autocat.integrations.tpot import configspace, vectorizer_node  # noqa: E402


def test_configspace_has_the_table_rows_and_their_conditions():
    space = configspace(seed=0)
    vectorizer_rows = [s for s in _search_space.SEARCH_SPACE if s.step == "vectorizer"]
    assert sorted(space) == sorted(s.name for s in vectorizer_rows)
    conditional = {c.child.name: c.value for c in space.conditions}
    expected = {s.name: s.only_for_encoder for s in vectorizer_rows}
    assert conditional == {k: v for k, v in expected.items() if v is not None}
    # the default configuration is the paper's recipe
    default = dict(space.get_default_configuration())
    paper = vectorizer_rows
    assert default == {s.name: s.default for s in paper if s.only_for_encoder is None}


def test_every_sampled_configuration_builds_a_vectorizer():
    node = vectorizer_node(random_state=0)
    for seed in range(10):
        vectorizer = node.generate(rng=seed).export_pipeline()
        assert isinstance(vectorizer, TableVectorizer)


@pytest.fixture
def client():
    """One in-process dask worker, dashboard on a free port (8787 may be busy)."""
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


def test_tpot_pipeline_fits_and_predicts_rows_with_unseen_titles(dirty_split, client):
    from tpot.config import get_search_space
    from tpot.search_spaces.pipelines import SequentialPipeline

    X_train, y_train, X_new, y_new = dirty_split
    space = SequentialPipeline([vectorizer_node(), get_search_space("XGBRegressor")])
    estimator = tpot.TPOTEstimator(
        search_space=space,
        scorers=["r2"],
        scorers_weights=[1],
        classification=False,
        cv=2,
        population_size=4,
        generations=2,
        max_time_mins=None,  # the generations bound the search
        max_eval_time_mins=1,
        client=client,
        random_state=0,
        verbose=0,
    )
    estimator.fit(X_train, y_train)
    assert isinstance(estimator.fitted_pipeline_.steps[0][1], TableVectorizer)
    predictions = estimator.predict(X_new)
    assert predictions.shape == (len(X_new),) and np.isfinite(predictions).all()
    # the rank and role inside never-seen titles explain most of the salary
    assert r2_score(y_new, predictions) > 0.5
