"""Near-unique text (names, titles): found, dropped on request, measured."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

from autocat import Recipe, TableVectorizer
from autocat import _model_state as model_state
from autocat._budget import Budget
from autocat._search_space import (
    SEARCH_SPACE,
    _portfolio_entry,
    default_params,
    param_distributions,
    suggest_params,
)
from autocat._splits import inner_splits
from autocat._trials import EncodingCache, TrialRecord, TrialRunner
from autocat._tuning import BATCH_TRIALS, tune
from autocat._unique_text import UniqueTextTrial

N_ROWS = 150
WORDS = np.array(["north", "star", "bank", "steel", "oil", "group", "holdings"])


def _table(n: int = N_ROWS, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    sector = rng.choice(["bank", "oil", "steel", "retail"], n)
    return (
        pd.DataFrame(
            {
                # every name its own: near-unique, with spaces
                "name": [f"{' '.join(rng.choice(WORDS, 2))} {i}" for i in range(n)],
                # every code its own, no space: an identifier
                "ticker": [f"T{i:04d}" for i in range(n)],
                # 40 titles repeated: high-cardinality, not near-unique
                "job": [f"{s} clerk {i % 40}" for i, s in enumerate(sector)],
                "sector": sector,
                "assets": rng.lognormal(size=n),
            }
        ),
        np.log(rng.lognormal(size=n) + 1.0) + (sector == "bank") * 2.0,
    )


def _runner(X, y, splits, cache=None):
    return TrialRunner(
        X=X,
        y=y,
        task="regression",
        scorer=get_scorer("r2"),
        splits=splits,
        inner=inner_splits(splits, y, "regression", 0),
        n_folds=len(splits),
        random_state=0,
        xgb_threads=1,
        cache=cache or EncodingCache(),
        budget=Budget(None),
        n_classes=0,
    )


# -- the vectorizer ---------------------------------------------------------------


def test_near_unique_text_is_listed_and_kept_by_default():
    X, _ = _table()
    vectorizer = TableVectorizer().fit(X)
    assert vectorizer.near_unique_text_ == ["name"]
    assert vectorizer.column_kinds_["name"] == "high_cardinality"
    assert len(vectorizer.input_to_outputs_["name"]) == 30
    # the identifier goes by its own rule, whatever drop_unique_text says
    assert vectorizer.column_kinds_["ticker"] == "dropped"
    assert vectorizer.column_kinds_["job"] == "high_cardinality"


SHADES = ["red", "blue", "green", "grey", "gold", "violet", "orange", "brown"]


def _colours(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Single-word colour names, each its own, whose words say the target."""
    rng = np.random.default_rng(seed)
    shade = rng.integers(0, len(SHADES), n)
    tone = rng.choice(["dark", "light", "pale", "deep", ""], n)
    names = [
        f"{t}{SHADES[s]}{i}" for i, (t, s) in enumerate(zip(tone, shade, strict=True))
    ]
    X = pd.DataFrame({"colour": names, "x": rng.normal(size=n)})
    return X, shade * 10.0 + rng.normal(size=n)


def test_single_words_are_near_unique_text_and_codes_are_identifiers():
    # Colour names have no space, as codes have not: their letters tell them
    # apart (at least WORD_LETTERS of a value's characters).
    X, _ = _colours(300, 0)
    X["sku"] = [f"SKU-{i:06d}" for i in range(300)]  # 0.3 letters
    X["hash"] = [f"{i * 2654435761 % 2**40:010x}" for i in range(300)]
    vectorizer = TableVectorizer().fit(X)
    assert vectorizer.near_unique_text_ == ["colour"]
    assert vectorizer.column_kinds_["colour"] == "high_cardinality"
    assert vectorizer.column_kinds_["sku"] == "dropped"
    assert vectorizer.column_kinds_["hash"] == "dropped"
    reason = vectorizer.describe().set_index("column").loc["sku", "reason"]
    assert reason == (
        "identifier-like: 300 distinct values in 300 rows, codes (no spaces, "
        "few letters)"
    )
    dropped = TableVectorizer(drop_unique_text=True).fit(X)
    assert dropped.column_kinds_["colour"] == "dropped"


def test_most_values_decide_words_from_codes():
    from autocat._text_kinds import WORD_LETTERS, identifier_reason

    def pair(i: int) -> str:
        return chr(97 + i % 26) + chr(97 + i // 26)

    # 3 letters in 4 characters: words; 2 in 4: codes; capitals: codes
    assert WORD_LETTERS == 0.75
    words = np.array([f"{pair(i)}x{i % 10}" for i in range(60)], dtype=object)
    codes = np.array([f"{pair(i)}{i % 10}-" for i in range(60)], dtype=object)
    capitals = np.array([f"{pair(i)}x".upper() for i in range(60)], dtype=object)
    assert identifier_reason(words, 0, 60) is None
    assert identifier_reason(codes, 0, 60) is not None
    assert identifier_reason(capitals, 0, 60) is not None
    # most values decide: a few words among codes leave them codes
    assert identifier_reason(np.concatenate([codes[:40], words[40:]]), 0, 60)
    assert not identifier_reason(np.concatenate([codes[:20], words[20:]]), 0, 60)


def test_a_model_learns_from_single_word_names():
    # Dropped as identifiers, the names left nothing to learn from (R² near 0);
    # kept and min-hashed, their words give the target.
    X, y = _colours(600, 1)
    X_test, y_test = _colours(300, 2)
    model = Recipe(random_state=0).build().fit(X, y)
    assert model.score(X_test, y_test) > 0.8
    blind = Recipe(random_state=0, drop_unique_text=True).build().fit(X, y)
    assert blind.score(X_test, y_test) < 0.2


def test_drop_unique_text_drops_names_and_nothing_else():
    X, _ = _table()
    kept = TableVectorizer().fit(X)
    dropped = TableVectorizer(drop_unique_text=True).fit(X)
    plan = dropped.describe().set_index("column")
    assert plan.loc["name", "kind"] == "dropped"
    assert plan.loc["name", "reason"] == (
        f"near-unique text: {N_ROWS} distinct values in {N_ROWS} rows "
        "(drop_unique_text)"
    )
    assert dropped.near_unique_text_ == ["name"]
    assert dropped.input_to_outputs_["name"] == []
    others = ["ticker", "job", "sector", "assets"]
    assert {c: dropped.column_kinds_[c] for c in others} == {
        c: kept.column_kinds_[c] for c in others
    }
    # the other columns' outputs are the same numbers, in the same order
    names = list(dropped.get_feature_names_out())
    assert names == [n for n in kept.get_feature_names_out() if n in set(names)]
    full = pd.DataFrame(kept.transform(X), columns=kept.get_feature_names_out())
    assert dropped.transform(X).tobytes() == full[names].to_numpy().tobytes()


def test_free_text_that_is_near_unique_is_dropped_too():
    rng = np.random.default_rng(1)
    notes = [" ".join(rng.choice(WORDS, 8)) + f" {i}" for i in range(80)]
    X = pd.DataFrame({"note": notes, "x": rng.normal(size=80)})
    assert TableVectorizer().fit(X).column_kinds_["note"] == "text"
    vectorizer = TableVectorizer(drop_unique_text=True).fit(X)
    assert vectorizer.column_kinds_["note"] == "dropped"


@pytest.mark.parametrize(
    "values",
    [
        # 49 present values: below the 50 the rule needs
        [f"film title {i}" for i in range(49)] + [None] * 31,
        # 90% distinct: below the 95% the rule needs
        [f"film title {i % 72}" for i in range(80)],
    ],
    ids=["too-few-rows", "repeated-titles"],
)
def test_text_that_is_not_near_unique_stays(values):
    X = pd.DataFrame({"title": values, "x": np.arange(len(values), dtype=float)})
    vectorizer = TableVectorizer(drop_unique_text=True).fit(X)
    assert vectorizer.near_unique_text_ == []
    assert vectorizer.column_kinds_["title"] == "high_cardinality"


def test_a_column_set_by_the_user_is_never_dropped_as_near_unique_text():
    X, _ = _table()
    vectorizer = TableVectorizer(
        drop_unique_text=True, specific_transformers={"name": "minhash"}
    ).fit(X)
    assert vectorizer.column_kinds_["name"] == "high_cardinality"
    assert vectorizer.describe().set_index("column").loc["name", "reason"] == (
        "set by the user"
    )


def test_near_unique_text_is_kept_when_every_column_would_be_dropped():
    X = pd.DataFrame({"name": [f"company number {i}" for i in range(60)]})
    vectorizer = TableVectorizer(drop_unique_text=True).fit(X)
    assert vectorizer.column_kinds_["name"] == "high_cardinality"
    assert vectorizer.transform(X).shape == (60, 30)


def test_a_vectorizer_that_drops_near_unique_text_round_trips():
    X, _ = _table()
    vectorizer = TableVectorizer(drop_unique_text=True, n_components=4).fit(X)
    archive = zipfile.ZipFile(io.BytesIO(model_state.write_archive(vectorizer, {})))
    members = {info.filename: archive.read(info) for info in archive.infolist()}
    reader, graph = model_state.check_graph(members, "test")
    loaded = reader.build(graph)
    assert loaded.drop_unique_text is True
    assert loaded.near_unique_text_ == ["name"]
    assert loaded.transform(X).tobytes() == vectorizer.transform(X).tobytes()


# -- the recipe and the search space ---------------------------------------------


def test_recipe_builds_the_flag_and_lists_it_only_when_set():
    assert "drop_unique_text" not in Recipe().params()
    recipe = Recipe(drop_unique_text=True, max_depth=3)
    assert recipe.params()["drop_unique_text"] is True
    assert recipe.build_vectorizer().drop_unique_text is True
    assert Recipe.from_params("regression", recipe.params()) == recipe
    assert recipe.vectorizer_params["drop_unique_text"] is True
    with pytest.raises(TypeError, match="drop_unique_text must be True or False"):
        Recipe(drop_unique_text="yes")


def test_the_search_space_holds_the_flag_as_a_choice_of_booleans():
    space = param_distributions("regression")
    assert space["vectorizer__drop_unique_text"].choices == (False, True)
    assert default_params()["drop_unique_text"] is False
    # a stored configuration may set it; a number in its place is refused
    entry = {"encoder": "minhash", "drop_unique_text": True}
    assert _portfolio_entry(entry)["drop_unique_text"] is True
    assert _portfolio_entry({"encoder": "minhash", "drop_unique_text": 1}) is None
    # and booleans stay refused where numbers are expected
    assert _portfolio_entry({"encoder": "minhash", "max_depth": True}) is None


def test_suggest_params_leaves_skipped_parameters_at_their_defaults():
    import optuna

    trial = optuna.trial.FixedTrial(default_params())
    params = suggest_params(trial, skip=("drop_unique_text",))
    names = [s.name for s in SEARCH_SPACE if s.name in default_params()]
    assert list(params) == [n for n in names if n != "drop_unique_text"]
    assert Recipe(**params).drop_unique_text is False


# -- the search ------------------------------------------------------------------


def test_dropping_changes_no_encoding_where_a_fold_has_no_near_unique_text():
    X, y = _table()
    X = X.drop(columns="name")
    runner = _runner(X, y, list(KFold(3, shuffle=True, random_state=0).split(X)))
    first = runner.encoded(Recipe(), 0)
    again = runner.encoded(Recipe(drop_unique_text=True, max_depth=2), 0)
    assert (runner.cache.hits, runner.cache.misses) == (1, 1)
    assert again[0].tobytes() == first[0].tobytes()
    assert runner.cache.unique_text[0] == ()


def test_dropping_is_a_new_encoding_where_a_fold_has_near_unique_text():
    X, y = _table()
    runner = _runner(X, y, list(KFold(3, shuffle=True, random_state=0).split(X)))
    first = runner.encoded(Recipe(), 0)
    assert runner.cache.unique_text[0] == (("name", "high_cardinality"),)
    dropped = runner.encoded(Recipe(drop_unique_text=True), 0)
    assert runner.cache.misses == 2
    assert dropped[0].shape[1] == first[0].shape[1] - 30


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
    # a target-encoding configuration first: it gives a column of names one
    # output, so the measurement waits for a configuration that min-hashes it
    first = {**default_params("target"), "max_depth": 2}
    rest = [
        {**default_params("minhash"), "max_depth": 2 + i % 5, "learning_rate": lr}
        for i, lr in enumerate(np.linspace(0.05, 0.5, n - 1).round(3).tolist())
    ]
    return [first, *rest]


def test_the_search_measures_dropping_near_unique_text_once_and_follows_it():
    X, _ = _table()
    # the target is written in the names (their "bank" and "oil"), nowhere else
    words = X["name"].str.split()
    y = np.array([("bank" in w) * 2.0 + ("oil" in w) for w in words])
    y = y + np.random.default_rng(3).normal(0, 0.1, len(y))
    X = X.drop(columns=["sector", "job"])
    n_trials = 2 * BATCH_TRIALS + 1
    outcome = _search(X, y, n_trials, _portfolio(n_trials))
    trials = outcome.study.trials
    first_batch = trials[:BATCH_TRIALS]
    # unknown before the first encoding: not suggested in the first batch
    assert all("drop_unique_text" not in t.params for t in first_batch)
    # then the best min-hash configuration, again without the names
    wide = [t for t in first_batch if t.params["encoder"] != "target"]
    best = max(wide, key=lambda t: t.value)
    pair = trials[BATCH_TRIALS]
    # (and the default of the other measured choice, on the ticker codes)
    assert pair.params == {
        **best.params,
        "drop_unique_text": True,
        "drop_identifiers": True,
    }
    # asked with it, before it was scored: the names are kept
    assert trials[BATCH_TRIALS + 1].params["drop_unique_text"] is False
    # the names carry the signal here: without them the trial scores far
    # lower, and the next batch's portfolio entries keep them
    assert pair.value < best.value - 0.1
    later = trials[BATCH_TRIALS + 2 :]
    assert [t.params["drop_unique_text"] for t in later] == [False] * len(later)


def test_the_search_never_suggests_the_flag_without_near_unique_text():
    X, y = _table()
    X = X.drop(columns="name")
    n_trials = 2 * BATCH_TRIALS + 1
    outcome = _search(X, y, n_trials, _portfolio(BATCH_TRIALS + 2))
    trials = outcome.study.trials
    assert len(trials) == n_trials
    # the sampler's trials included
    assert all("drop_unique_text" not in t.params for t in trials)


def _pair(kinds=("high_cardinality",)):
    y = np.random.default_rng(0).normal(size=400)
    cache = EncodingCache()
    cache.unique_text[0] = tuple((f"name{i}", kind) for i, kind in enumerate(kinds))
    return y, UniqueTextTrial(cache, y, get_scorer("r2"), "regression")


def _record(number, params, y, noise, seed=1):
    oof = y + np.random.default_rng(seed).normal(0, noise, len(y))
    score = 1 - np.mean((oof - y) ** 2) / np.var(y)
    return TrialRecord(number=number, params=params, fold_scores=[score], oof=oof)


@pytest.mark.parametrize(
    ("pair_noise", "seed", "dropped"),
    # seed 21: R² 0.246 against 0.157, higher in 84% of the resamples only
    [(0.3, 2, True), (1.0, 1, False), (0.95, 21, False)],
    ids=["clearly-better", "the-same-predictions", "within-the-noise"],
)
def test_the_text_is_dropped_only_when_dropping_wins_beyond_the_noise(
    pair_noise, seed, dropped
):
    y, measure = _pair()
    minhash = {**default_params("minhash"), "max_depth": 3}
    base = _record(0, minhash, y, 1.0)
    queue = [{"encoder": "minhash", "drop_unique_text": False}]
    measure.queue([base], queue)
    assert queue[0] == {**minhash, "drop_unique_text": True}
    measure.queue([base], queue)  # once only
    assert len(queue) == 2
    params = queue.pop(0)
    measure.asked(7, params)
    pair = _record(7, params, y, pair_noise, seed)
    if seed == 21:  # higher, yet not beyond the noise of 400 rows
        assert pair.score > base.score + 0.05
    measure.told(7, pair, queue)
    assert queue == [{"encoder": "minhash", "drop_unique_text": dropped}]


def test_a_cut_measurement_keeps_the_text():
    y, measure = _pair()
    queue = [{"encoder": "minhash", "drop_unique_text": False}]
    measure.queue([_record(0, default_params("minhash"), y, 1.0)], queue)
    measure.asked(3, queue.pop(0))
    measure.told(3, None, queue)
    assert queue[0]["drop_unique_text"] is False


def test_the_measurement_waits_for_a_trial_that_encodes_the_text_wide():
    y, measure = _pair()
    target = _record(0, default_params("target"), y, 0.5)
    queue: list[dict] = []
    measure.queue([target], queue)
    assert queue == []  # one target-encoded column says little either way
    minhash = _record(1, default_params("minhash"), y, 1.0)
    measure.queue([target, minhash], queue)
    assert queue == [{**minhash.params, "drop_unique_text": True}]
    # free text goes to the text encoder whatever the encoder: no wait
    y, measure = _pair(kinds=("text",))
    measure.queue([target], queue := [])
    assert queue == [{**target.params, "drop_unique_text": True}]


def test_the_flag_is_skipped_until_a_fold_shows_near_unique_text():
    _, measure = _pair()
    assert measure.skip() == ()
    measure.cache.unique_text.clear()
    assert measure.skip() == ("drop_unique_text",)
    measure.cache.unique_text[0] = ()
    assert measure.skip() == ("drop_unique_text",)


def test_the_papers_recipe_is_the_baseline_whether_or_not_the_flag_was_asked():
    import optuna

    from autocat._auto import _baseline_score

    distributions = {s.name: s.distribution for s in SEARCH_SPACE}

    def study_of(*trials):
        study = optuna.create_study(direction="maximize")
        for params, value in trials:
            study.add_trial(
                optuna.trial.create_trial(
                    params=params,
                    distributions={k: distributions[k] for k in params},
                    value=value,
                )
            )
        return study

    paper = {k: v for k, v in default_params().items() if k != "drop_unique_text"}
    other = {**paper, "max_depth": 3}
    # a table without near-unique text: the flag is never asked
    assert _baseline_score(study_of((other, 0.5), (paper, 0.7))) == 0.7
    # a table with some: asked, and kept
    kept = {**paper, "drop_unique_text": False}
    assert _baseline_score(study_of((other, 0.5), (kept, 0.6))) == 0.6
    # dropping the text is another recipe than the paper's
    dropped = {**paper, "drop_unique_text": True}
    assert np.isnan(_baseline_score(study_of((dropped, 0.8))))
