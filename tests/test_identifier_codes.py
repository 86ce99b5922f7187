"""Identifier codes (tail numbers, product codes): dropped by default, measured."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer, r2_score
from sklearn.model_selection import KFold

from autocat import Recipe, TableVectorizer
from autocat import _model_state as model_state
from autocat._budget import Budget
from autocat._search_space import default_params
from autocat._splits import inner_splits
from autocat._trials import EncodingCache, TrialRecord, TrialRunner
from autocat._tuning import BATCH_TRIALS, tune
from autocat._unique_text import IdentifierCodesTrial

N_ROWS = 300
OPERATORS = np.array(["UW", "US", "AA", "DL"])


def _fleet(n: int = N_ROWS, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Aircraft whose tail number ends with its operator's letters.

    The operator sets the target (its fleet's age) and no other column tells
    it: only the codes' parts carry the signal.
    """
    rng = np.random.default_rng(seed)
    operator = rng.integers(0, len(OPERATORS), n)
    X = pd.DataFrame(
        {
            "row": np.arange(n),  # a row index: dropped whatever is measured
            "tailnum": [f"N{i + 100}{OPERATORS[o]}" for i, o in enumerate(operator)],
            "seats": rng.integers(50, 200, n).astype(float),
        }
    )
    y = operator * 5.0 + rng.normal(0, 0.5, n)
    return X, y


def test_identifier_codes_are_dropped_by_default_and_kept_as_text_on_request():
    X, _ = _fleet()
    dropped = TableVectorizer().fit(X)
    assert dropped.column_kinds_ == {
        "row": "dropped", "tailnum": "dropped", "seats": "numeric",
    }  # fmt: skip
    kept = TableVectorizer(drop_identifiers="indexes").fit(X)
    # the row index still goes; the codes are min-hashed as other text
    assert kept.column_kinds_ == {
        "row": "dropped", "tailnum": "high_cardinality", "seats": "numeric",
    }  # fmt: skip
    assert dropped.identifier_codes_ == kept.identifier_codes_ == ["tailnum"]
    reasons = kept.describe().set_index("column")["reason"]
    assert "identifier-like" in reasons["tailnum"]
    assert "kept (drop_identifiers='indexes')" in reasons["tailnum"]
    assert kept.transform(X.head(5)).shape == (5, 31)
    # neither rule with drop_identifiers=False
    neither = TableVectorizer(drop_identifiers=False).fit(X)
    assert neither.column_kinds_["row"] == "numeric"
    # a table without codes lists none
    assert TableVectorizer().fit(X[["row", "seats"]]).identifier_codes_ == []
    with pytest.raises(ValueError, match="drop_identifiers"):
        TableVectorizer(drop_identifiers="codes").fit(X)


def test_a_vectorizer_that_keeps_identifier_codes_round_trips():
    X, _ = _fleet()
    vectorizer = TableVectorizer(drop_identifiers="indexes").fit(X)
    archive = zipfile.ZipFile(io.BytesIO(model_state.write_archive(vectorizer, {})))
    members = {info.filename: archive.read(info) for info in archive.infolist()}
    reader, graph = model_state.check_graph(members, "test")
    loaded = reader.build(graph)
    assert loaded.drop_identifiers == "indexes"
    assert loaded.identifier_codes_ == ["tailnum"]
    assert loaded.transform(X).tobytes() == vectorizer.transform(X).tobytes()


def test_the_recipe_lists_drop_identifiers_only_when_it_keeps_something():
    assert "drop_identifiers" not in Recipe().params()
    kept = Recipe(drop_identifiers="indexes")
    assert kept.params()["drop_identifiers"] == "indexes"
    assert kept.build_vectorizer().drop_identifiers == "indexes"
    assert Recipe.from_params("regression", kept.params()).drop_identifiers == (
        "indexes"
    )
    with pytest.raises(ValueError, match="drop_identifiers must be True, False or"):
        Recipe(drop_identifiers="codes")
    with pytest.raises(ValueError, match="drop_identifiers must be True, False or"):
        Recipe(drop_identifiers=1)


def test_keeping_the_codes_is_an_encoding_of_its_own_for_each_encoder():
    X, y = _fleet()
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    runner = TrialRunner(
        X=X, y=y, task="regression", scorer=get_scorer("r2"), splits=splits,
        inner=inner_splits(splits, y, "regression", 0), n_folds=3,
        random_state=0, xgb_threads=1, cache=EncodingCache(), budget=Budget(None),
        n_classes=0,
    )  # fmt: skip
    dropped = runner.encoded(Recipe(), 0)
    assert runner.cache.identifier_codes[0] == (("tailnum", 200),)
    # no other string column: with the codes dropped, encoders do not matter
    same = runner.encoded(Recipe(encoder="gamma_poisson", n_components=10), 0)
    assert same[0] is dropped[0]
    kept = runner.encoded(Recipe(drop_identifiers="indexes"), 0)
    assert kept[0].shape[1] == dropped[0].shape[1] + 30
    # kept, the codes are a high-cardinality column: their encoder matters
    target = runner.encoded(Recipe(drop_identifiers="indexes", encoder="target"), 0)
    assert target[0].shape[1] == dropped[0].shape[1] + 1
    assert runner.cache.misses == 3


def _search(X, y, n_trials, portfolio):
    return tune(
        X,
        y,
        task="regression",
        scorer=get_scorer("r2"),
        splits=list(KFold(3, shuffle=True, random_state=0).split(X)),
        n_trials=n_trials,
        time_budget=None,
        deadline=None,
        portfolio=portfolio,
    )


def _portfolio(n):
    # a target-encoding configuration first: a code seen in one row gets only
    # the mean, so the measurement waits for a configuration that min-hashes
    first = {**default_params("target"), "max_depth": 2}
    rest = [
        {**default_params("minhash"), "max_depth": 2 + i % 5, "learning_rate": lr}
        for i, lr in enumerate(np.linspace(0.05, 0.5, n - 1).round(3).tolist())
    ]
    return [first, *rest]


def _flags(trials):
    return [t.params.get("drop_identifiers") for t in trials]


def test_the_search_keeps_identifier_codes_when_their_parts_tell_the_target():
    X, y = _fleet()
    n_trials = 2 * BATCH_TRIALS + 2
    outcome = _search(X, y, n_trials, _portfolio(n_trials))
    trials = outcome.study.trials
    first_batch = trials[:BATCH_TRIALS]
    # unknown before the first encoding: not suggested in the first batch
    assert _flags(first_batch) == [None] * BATCH_TRIALS
    # then the best min-hash configuration, again with the codes kept
    wide = [t for t in first_batch if t.params["encoder"] != "target"]
    best = max(wide, key=lambda t: t.value)
    pair = trials[BATCH_TRIALS]
    assert pair.params == {**best.params, "drop_identifiers": "indexes"}
    # asked with it, before it was scored: the portfolio keeps the default
    assert _flags(trials[BATCH_TRIALS + 1 : 2 * BATCH_TRIALS]) == [True] * (
        BATCH_TRIALS - 1
    )
    # the codes carry the signal: with them the trial scores far higher (the
    # seats alone explain nothing), and the next batch's entries keep them
    assert best.value < 0.1 and pair.value > best.value + 0.5
    assert _flags(trials[2 * BATCH_TRIALS :]) == ["indexes", "indexes"]


def test_the_search_drops_identifier_codes_that_are_only_keys():
    X, y = _fleet()
    # random keys: the target is the seats' alone
    rng = np.random.default_rng(5)
    X["tailnum"] = [f"K{v:08x}" for v in rng.permutation(16**6)[:N_ROWS]]
    y = np.sqrt(X["seats"].to_numpy()) + rng.normal(0, 1.5, N_ROWS)
    n_trials = 2 * BATCH_TRIALS + 2
    outcome = _search(X, y, n_trials, _portfolio(n_trials))
    trials = outcome.study.trials
    assert trials[BATCH_TRIALS].params["drop_identifiers"] == "indexes"
    # lost: the trials after it keep the default, and the sampler no longer
    # suggests keeping them
    assert _flags(trials[2 * BATCH_TRIALS :]) == [None, None]


def test_the_search_never_suggests_the_flag_without_identifier_codes():
    X, y = _fleet()
    X = X.drop(columns="tailnum")
    outcome = _search(X, y, BATCH_TRIALS + 2, _portfolio(BATCH_TRIALS + 2))
    assert _flags(outcome.study.trials) == [None] * (BATCH_TRIALS + 2)


def _record(number, params, y, noise, seed=1):
    oof = y + np.random.default_rng(seed).normal(0, noise, len(y))
    score = 1 - np.mean((oof - y) ** 2) / np.var(y)
    return TrialRecord(number=number, params=params, fold_scores=[score], oof=oof)


@pytest.mark.parametrize(
    ("pair_noise", "seed", "kept"),
    [(0.3, 2, True), (1.0, 1, False), (0.95, 21, False)],
    ids=["clearly-better", "the-same-predictions", "within-the-noise"],
)
def test_codes_are_kept_only_when_keeping_them_wins_beyond_the_noise(
    pair_noise, seed, kept
):
    y = np.random.default_rng(0).normal(size=400)
    cache = EncodingCache()
    measure = IdentifierCodesTrial(cache, y, get_scorer("r2"), "regression")
    assert measure.skip() == ("drop_identifiers",)
    cache.identifier_codes[0] = (("tailnum", 400),)
    assert measure.skip() == ()
    target = _record(0, default_params("target"), y, 0.5)
    queue = [{"encoder": "minhash"}]
    measure.queue([target], queue)
    assert len(queue) == 1  # target encoding gives a unique code the mean only
    measure.fill(queue, [])
    assert queue == [{"encoder": "minhash", "drop_identifiers": True}]
    base = _record(1, default_params("minhash"), y, 1.0)
    measure.queue([target, base], queue)
    assert queue[0] == {**base.params, "drop_identifiers": "indexes"}
    params = queue.pop(0)
    measure.asked(7, params)
    measure.told(7, _record(7, params, y, pair_noise, seed), queue)
    if kept:
        assert queue == [{"encoder": "minhash", "drop_identifiers": "indexes"}]
        assert measure.skip() == ()
    else:  # the default, and no longer suggested
        assert queue == [{"encoder": "minhash"}]
        assert measure.skip() == ("drop_identifiers",)


def test_auto_fit_learns_from_codes_whose_parts_tell_the_target(tmp_path):
    import autocat

    X, y = _fleet(400)
    result = autocat.auto_fit(
        X.assign(age=y), "age", n_trials=10, random_state=0, show_progress=False
    )
    best = result.leaderboard_.iloc[0]
    assert best["drop_identifiers"] == "indexes"
    # new aircraft of the same operators: only their codes tell their age
    X_new, y_new = _fleet(200, seed=1)
    X_new["tailnum"] = [f"N{i + 900}{code[-2:]}" for i, code in
                        enumerate(X_new["tailnum"])]  # fmt: skip
    assert r2_score(y_new, result.predict(X_new)) > 0.9
    path = tmp_path / "fleet.autocat"
    result.save(path)
    loaded = autocat.load(path)
    assert loaded.predict(X_new).tobytes() == result.predict(X_new).tobytes()
