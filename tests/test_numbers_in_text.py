"""Codes and text that are mostly numbers: encoded as text, and as numbers too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

from autocat import TableVectorizer
from autocat import _model_state as model_state
from autocat._column_kinds import MOSTLY_NUMBERS, decide, number_share
from autocat._vectorizer_columns import column_from_state


def _zip_codes(n: int, seed: int = 0) -> np.ndarray:
    """Five-digit ZIP codes written with their leading zeros, some repeated."""
    rng = np.random.default_rng(seed)
    return np.asarray([f"{z:05d}" for z in rng.integers(500, 99_999, n)], dtype=object)


def _survey_zips(n: int, seed: int = 0) -> np.ndarray:
    """ZIP codes as a survey's free answers hold them: 7 answers are not numbers.

    Seven distinct non-numbers are more than the 5 tokens a column of numbers
    may hold, so the column is text whatever its leading zeros. They fill the
    first quarter of the rows in turn, so that a random half holds them all.
    """
    values = _zip_codes(n, seed)
    answers = ["No home", "73132-1531", "o2465", "33862 & 49106", "n.a.", "?x", "-"]
    values[: n // 4] = np.resize(np.asarray(answers, dtype=object), n // 4)
    return values


def test_a_survey_column_of_zip_codes_keeps_its_numbers():
    zips = _survey_zips(300)
    frame = pd.DataFrame({"zip": zips, "x": np.arange(300.0) % 7})
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(frame)
    names = list(vectorizer.get_feature_names_out())
    assert vectorizer.column_kinds_["zip"] == "high_cardinality"
    assert names.index("zip_number") == len(vectorizer.input_to_outputs_["zip"]) - 1
    reason = vectorizer.describe().set_index("column").loc["zip", "reason"]
    assert " distinct values are numbers: read as text and as numbers; " in reason
    # the value read as a number where it is one, NaN where it is not
    expected = pd.to_numeric(pd.Series(zips), errors="coerce").to_numpy()
    np.testing.assert_array_equal(out[:, names.index("zip_number")], expected)
    assert np.isnan(out[:75, names.index("zip_number")]).all()
    # new values at transform: a ZIP code never seen, a word, a missing value
    new = vectorizer.transform(pd.DataFrame({"zip": ["60601", "abc", None], "x": 1.0}))
    number = new[:, names.index("zip_number")]
    np.testing.assert_array_equal(number, [60601, np.nan, np.nan])
    np.testing.assert_array_equal(vectorizer.transform(frame), out)


def test_words_with_a_few_numbers_get_no_number_output():
    jobs = [f"job {i}" for i in range(60)] + ["911", "411"]
    vectorizer = TableVectorizer().fit(pd.DataFrame({"job": jobs}))
    assert "job_number" not in vectorizer.get_feature_names_out()
    # the rule's threshold: a majority of the distinct values
    half = np.asarray(["1", "2", "one", "two"], dtype=object)
    assert number_share(half) == MOSTLY_NUMBERS
    assert decide("string", half, 0, 4).as_number
    assert not decide("string", half[1:], 0, 3).as_number


def test_a_column_the_user_sets_gets_only_what_was_set():
    frame = pd.DataFrame({"zip": _survey_zips(200)})
    vectorizer = TableVectorizer(specific_transformers={"zip": "minhash"}).fit(frame)
    assert vectorizer.input_to_outputs_["zip"] == [f"zip_{i}" for i in range(30)]


def test_the_order_of_zip_codes_reaches_the_trees():
    # The target is the region, which follows the ZIP codes' first digit: text
    # encodings see the digits as characters, the number output as an order.
    zips = _survey_zips(1200, seed=1)
    numbers = pd.to_numeric(pd.Series(zips), errors="coerce").fillna(50_000)
    region = np.digitize(numbers, [20_000, 45_000, 70_000])
    frame = pd.DataFrame({"zip": zips})
    train, test = train_test_split(np.arange(len(frame)), test_size=0.5, random_state=0)

    def accuracy(vectorizer: TableVectorizer) -> float:
        X_train = vectorizer.fit_transform(frame.iloc[train])
        model = XGBClassifier(n_estimators=50, max_depth=3, random_state=0, n_jobs=1)
        model.fit(X_train, region[train])
        predicted = model.predict(vectorizer.transform(frame.iloc[test]))
        return float(np.mean(predicted == region[test]))

    with_numbers = accuracy(TableVectorizer())
    text_only = accuracy(TableVectorizer(specific_transformers={"zip": "minhash"}))
    assert with_numbers > 0.98
    assert with_numbers > text_only + 0.1


def test_the_number_output_round_trips_through_a_model_file():
    codes = np.resize(np.asarray(["007", "012", "120", "300"], dtype=object), 200)
    frame = pd.DataFrame({"zip": _survey_zips(200), "code": codes})
    vectorizer = TableVectorizer().fit(frame)
    data = model_state.write_archive(vectorizer, {})
    reader, graph = model_state.check_graph(
        model_state.read_members(data, "test"), "test"
    )
    loaded = reader.build(graph)
    assert loaded.get_feature_names_out().tolist()[-1] == "code_number"
    assert loaded.transform(frame).tobytes() == vectorizer.transform(frame).tobytes()


def test_a_column_saved_before_the_number_output_has_none():
    # a model file written before this output records five fields per decision
    state = {
        "name": "zip", "dtype": "str", "family": "string", "n_distinct": 2,
        "missing_share": 0.0, "transformer": None, "outputs": ("zip_02134",),
        "tz_aware": None, "near_unique": False,
        "decision": ("low_cardinality", "codes", "text", None, ()),
    }  # fmt: skip
    assert column_from_state(state).decision.as_number is False


@pytest.mark.parametrize("encoder", ["minhash", "gamma_poisson", "target", "text"])
def test_every_encoder_keeps_the_number_output_last(encoder):
    zips = _survey_zips(240)
    y = np.arange(240.0) % 5
    vectorizer = TableVectorizer(high_cardinality=encoder, n_components=4)
    out = vectorizer.fit_transform(pd.DataFrame({"zip": zips}), y)
    assert vectorizer.input_to_outputs_["zip"][-1] == "zip_number"
    expected = pd.to_numeric(pd.Series(zips), errors="coerce").to_numpy()
    np.testing.assert_array_equal(out[:, -1], expected.astype(np.float32))
    assert not np.isnan(out[:, :-1]).any()
