from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, log_loss
from sklearn.model_selection import KFold, PredefinedSplit

from autocat import Recipe, auto_fit
from autocat._ensemble import fold_scorer
from autocat._splits import inner_split, make_splits
from autocat._target import encode_target, infer_task, tokens_as_missing
from autocat.cli import for_cli


def _multiclass(n=60, seed=0):
    # Classes 'a', 'b', 'c' and one row of 'rare'.
    rng = np.random.default_rng(seed)
    jobs = rng.choice(["police officer", "bus operator", "nurse"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    df["grade"] = np.where(df["years"] > 15, "senior", "junior")
    df.loc[df["job"] == "nurse", "grade"] = "nurse grade"
    df.loc[7, "grade"] = "rare"
    return df


def _codes(labels):
    return np.unique(labels, return_inverse=True)[1]


# --- single-row classes ----------------------------------------------------


@pytest.mark.slow
def test_a_class_with_one_row_fits_end_to_end():
    df = _multiclass()
    result = auto_fit(df, "grade", n_trials=2, cv=3, show_progress=False)
    assert result.task_ == "multiclass"
    assert "rare" in result.classes_.tolist()
    assert np.isfinite(result.cv_score_)
    assert result.predict_proba(df).shape == (len(df), 4)
    assert result.score(df, df["grade"]) > 0.5
    common = df[df["grade"] != "rare"]  # scoring rows without the rare class
    assert result.score(common, common["grade"]) == pytest.approx(
        np.mean(result.predict(common) == common["grade"].to_numpy())
    )
    # a label it never saw is a miss for accuracy (the model cannot predict it)
    rows = df.head(2)
    assert result.score(rows, ["new", "rare"]) == pytest.approx(
        np.mean(result.predict(rows) == np.array(["new", "rare"]))
    )


@pytest.mark.parametrize("cv", [2, 3, 5])
def test_single_row_classes_train_in_every_fold_and_validate_in_none(cv):
    y = _codes(_multiclass()["grade"])
    rare = np.flatnonzero(np.bincount(y)[y] == 1)
    assert len(rare) == 1
    folds = make_splits(None, y, "multiclass", cv, random_state=0)
    assert len(folds) == cv
    for train, valid in folds:
        assert set(rare) <= set(train) and not set(rare) & set(valid)
        assert set(np.unique(y[train])) == set(np.unique(y))  # XGBoost needs all
        assert not set(train) & set(valid)
    validated = np.sort(np.concatenate([valid for _, valid in folds]))
    np.testing.assert_array_equal(validated, np.setdiff1d(np.arange(len(y)), rare))


def test_two_row_classes_stay_in_every_training_part():
    y = np.array([0] * 20 + [1] * 20 + [2, 2] + [3])
    for train, valid in make_splits(None, y, "multiclass", 5, random_state=3):
        assert np.all(np.bincount(y[train], minlength=4) >= 1)
        assert np.bincount(y[valid], minlength=4)[2] <= 1


def test_splits_are_deterministic_and_seeded():
    y = _codes(_multiclass()["grade"])
    first = make_splits(None, y, "multiclass", 3, random_state=0)
    again = make_splits(None, y, "multiclass", 3, random_state=0)
    other = make_splits(None, y, "multiclass", 3, random_state=1)
    assert all(
        np.array_equal(a, b) and np.array_equal(c, d)
        for (a, c), (b, d) in zip(first, again, strict=True)
    )
    assert not all(
        np.array_equal(a, b) for (a, _), (b, _) in zip(first, other, strict=True)
    )


def test_a_splitter_keeps_its_folds_but_single_row_classes_move_to_training():
    y = np.array([0, 1] * 10 + [2])
    folds = make_splits(None, y, "multiclass", KFold(4), random_state=0)
    expected = list(KFold(4).split(y))
    for (train, valid), (train0, valid0) in zip(folds, expected, strict=True):
        np.testing.assert_array_equal(valid, np.setdiff1d(valid0, [20]))
        np.testing.assert_array_equal(train, np.union1d(train0, [20]))


def test_a_splitter_that_drops_a_class_from_training_is_a_clear_error():
    y = np.array([0] * 6 + [1] * 6)
    by_class = PredefinedSplit(test_fold=y)  # fold 0 trains on class 1 only
    with pytest.raises(ValueError, match=r"fold 0 .* trains on no row of class"):
        make_splits(None, y, "binary", by_class, random_state=0)


def test_more_folds_than_rows_of_any_class_is_a_clear_error():
    y = np.array([0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 rows"):
        make_splits(None, y, "multiclass", 5, random_state=0)


def test_validation_folds_missing_a_class_still_score_with_log_loss():
    # Class 2 has 2 rows: with 3 folds, one validation part lacks it.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=32)})
    y = np.array([0, 1] * 15 + [2, 2])
    scorer = fold_scorer("neg_log_loss", task="multiclass", n_classes=3)
    absent = 0
    for train, valid in make_splits(X, y, "multiclass", 3, random_state=0):
        absent += 2 not in y[valid]
        model = Recipe("multiclass", n_estimators=3).build_model()
        model.fit(X.iloc[train], y[train])
        proba = model.predict_proba(X.iloc[valid])
        expected = -log_loss(y[valid], proba, labels=[0, 1, 2])
        assert scorer(model, X.iloc[valid], y[valid]) == pytest.approx(expected)
    assert absent >= 1


# --- inner early-stopping split ------------------------------------------------


def test_inner_split_keeps_every_class_for_fitting():
    y = np.array([0] * 30 + [1] * 6 + [2, 2] + [3])
    train = np.arange(len(y))
    fit, stop = inner_split(train, y, "multiclass", random_state=0, fraction=0.2)
    assert np.all(np.bincount(y[fit], minlength=4) >= 1)
    assert 3 not in y[stop]  # one row: fit only
    np.testing.assert_array_equal(np.sort(np.r_[fit, stop]), train)
    assert len(stop) == round(0.2 * len(train))
    # stratified: about a fifth of each class of more than a few rows
    np.testing.assert_array_equal(np.bincount(y[stop], minlength=4)[:2], [6, 1])


def test_inner_split_is_deterministic_and_uses_the_given_rows():
    y = np.random.default_rng(0).normal(size=100)
    train = np.arange(0, 100, 2)
    fit, stop = inner_split(train, y, "regression", random_state=4)
    again = inner_split(train, y, "regression", random_state=4)
    assert np.array_equal(fit, again[0]) and np.array_equal(stop, again[1])
    assert set(fit) | set(stop) == set(train) and len(stop) == 10
    other = inner_split(train, y, "regression", random_state=5)[1]
    assert not np.array_equal(stop, other)


def test_inner_split_without_any_class_of_two_rows_stops_on_nothing():
    y = np.array([0, 1, 2])
    fit, stop = inner_split(np.arange(3), y, "multiclass", random_state=0)
    assert len(stop) == 0 and len(fit) == 3
    with pytest.raises(ValueError, match="fraction must be in"):
        inner_split(np.arange(3), y, "multiclass", random_state=0, fraction=1.0)


# --- pos_label -----------------------------------------------------------------


def test_pos_label_gets_code_one():
    y = np.array(["no", "yes", "yes", "no", "no"])
    codes, classes = encode_target(y, "binary")
    assert classes.tolist() == ["no", "yes"] and codes.tolist() == [0, 1, 1, 0, 0]
    codes, classes = encode_target(y, "binary", pos_label="no")
    assert classes.tolist() == ["yes", "no"] and codes.tolist() == [1, 0, 0, 1, 1]


def _binary(n=80, seed=0):
    rng = np.random.default_rng(seed)
    jobs = rng.choice(["police officer", "bus operator", "nurse"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    noisy = df["years"] + rng.normal(0, 8, n)
    df["paid"] = np.where(noisy > 15, "high", "low")
    return df


@pytest.mark.slow
def test_pos_label_flips_average_precision():
    df = _binary()
    kwargs = {"n_trials": 1, "cv": 2, "show_progress": False}
    default = auto_fit(df, "paid", **kwargs)
    flipped = auto_fit(df, "paid", pos_label="high", **kwargs)
    assert default.classes_.tolist() == ["high", "low"]  # 'low' sorts last
    assert flipped.classes_.tolist() == ["low", "high"]
    for result, positive in [(default, "low"), (flipped, "high")]:
        proba = result.predict_proba(df)[:, 1]
        expected = average_precision_score(df["paid"] == positive, proba)
        assert result.score(df, df["paid"]) == pytest.approx(expected)
        assert (
            result.predict(df).tolist()
            == np.where(
                proba > 0.5, positive, "high" if positive == "low" else "low"
            ).tolist()
        )
    # the same model scores differently with the other class as positive
    assert default.score(df, df["paid"]) != pytest.approx(flipped.score(df, df["paid"]))


def test_pos_label_errors():
    y = np.array(["no", "yes", "yes", "no"])
    with pytest.raises(
        ValueError, match=r"pos_label='Yes' is not a label .* \['no', 'yes'\]"
    ):
        encode_target(y, "binary", pos_label="Yes", name="answer")
    with pytest.raises(ValueError, match="a multiclass task"):
        encode_target(np.array([0, 1, 2, 2]), "multiclass", pos_label=1)
    with pytest.raises(ValueError, match="a regression task"):
        encode_target(np.array([0.5, 1.5]), "regression", pos_label=1.5)
    df = _binary(20).assign(grade=np.arange(20) % 3)
    with pytest.raises(ValueError, match="pos_label=1 chooses the positive class"):
        auto_fit(df, "grade", pos_label=1, n_trials=1)


# --- single-valued and unlearnable targets ------------------------------------------


@pytest.mark.parametrize(
    ("values", "task", "shown"),
    [(["a"] * 12, "auto", "'a'"), ([3.5] * 12, "regression", "3.5")],
)
def test_a_single_valued_target_is_a_clear_error(values, task, shown):
    df = _binary(12).assign(x=values)
    with pytest.raises(ValueError) as error:
        auto_fit(df, "x", task=task, n_trials=1)
    message = str(error.value)
    assert f"target 'x' has a single value {shown} in all 12 rows" in message
    assert "nothing to learn" in message


def test_a_single_valued_target_counts_rows_with_a_target():
    df = _binary(12).assign(x=["a"] * 10 + [None] * 2)
    with pytest.raises(ValueError, match="single value 'a' in all 10 rows"):
        auto_fit(df, "x", n_trials=1)


def test_only_one_class_with_two_rows_is_a_clear_error():
    y = np.array(["a"] * 10 + ["b", "c"])
    with pytest.raises(ValueError, match=r"\['b', 'c'\] have a single row") as labels:
        encode_target(y, "multiclass", name="grade")
    assert "task='regression'" not in str(labels.value)  # labels, not quantities


def test_numbers_too_rare_to_be_classes_suggest_a_regression():
    # A chart position known for 9 weeks: 8 integer values, 7 of them once. As
    # classes they cannot be validated; the error says how to take them as a
    # quantity, in the API's words and the command line's.
    y = np.array([2.0, 3.0, 23.0, 25.0, 36.0, 37.0, 47.0, 50.0, 50.0])
    assert infer_task(y)[0] == "multiclass"
    with pytest.raises(ValueError, match=r"have a single row") as error:
        encode_target(y, "multiclass", name="wk76")
    assert "use task='regression'" in str(error.value)
    assert "use --task regression" in for_cli(str(error.value))


# --- how the target is given --------------------------------------------------------


def test_a_target_column_with_an_integer_label_is_found():
    # A table read with header=None has columns 0, 1, 2...; 2 is a label, not data.
    df = _binary(40)
    df.columns = range(df.shape[1])
    result = auto_fit(df, df.shape[1] - 1, n_trials=1, cv=2, show_progress=False)
    assert result.target_ == str(df.shape[1] - 1)
    assert result.feature_names_in_.tolist() == ["0", "1"]
    assert result.predict(df).shape == (40,)
    with pytest.raises(ValueError, match=r"target=99 is not a column of df"):
        auto_fit(df, 99, n_trials=1)


def test_a_target_column_under_multiindex_columns_is_found_by_its_tuple():
    df = _binary(40)
    df.columns = pd.MultiIndex.from_tuples([("a", c) for c in df.columns])
    label = df.columns[-1]
    by_label = auto_fit(df, label, n_trials=1, cv=2, show_progress=False)
    # the reference: the same column's values given as the target
    by_values = auto_fit(df.drop(columns=[label]), df[label].to_numpy(), n_trials=1,
                         cv=2, show_progress=False)  # fmt: skip
    assert by_label.target_ == str(label)
    assert len(by_label.feature_names_in_) == df.shape[1] - 1
    np.testing.assert_array_equal(
        by_label.predict_proba(df), by_values.predict_proba(df.drop(columns=[label]))
    )
    with pytest.raises(ValueError, match=r"target=\('a', 'nope'\) is not a column"):
        auto_fit(df, ("a", "nope"), n_trials=1)


@pytest.mark.parametrize(
    "values",
    [
        pd.date_range("2001-01-01", periods=12),
        pd.to_timedelta(np.arange(12), unit="D"),
        pd.Series(pd.date_range("2001-01-01", periods=12)).astype(object),
    ],
    ids=["datetime64", "timedelta64", "timestamps as objects"],
)
def test_a_target_of_dates_is_a_clear_error_before_fitting(values, monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("fitted a date target")

    monkeypatch.setattr("autocat._auto.tune", no_fit)
    df = _binary(12).assign(when=values)
    with pytest.raises(ValueError, match=r"target 'when' holds dates or durations"):
        auto_fit(df, "when", n_trials=1)
    with pytest.raises(ValueError, match=r"target 'target' holds dates or durations"):
        auto_fit(df.drop(columns="when"), np.asarray(values), n_trials=1)


def test_a_target_of_dates_written_as_text_is_refused_unless_a_task_is_given():
    df = _binary(12).assign(when=[f"2001-01-{day:02d}" for day in range(1, 13)])
    with pytest.raises(ValueError, match=r"target 'when' holds dates written as text"):
        auto_fit(df, "when", n_trials=1)
    # Told that the dates are classes, auto_fit takes them as classes (here: too
    # rare to validate, which is a different error).
    with pytest.raises(ValueError, match=r"have a single row each"):
        auto_fit(df, "when", task="multiclass", n_trials=1)


def test_score_reads_a_regression_target_written_as_text_as_auto_fit_did():
    rng = np.random.default_rng(0)
    x = rng.normal(100, 20, 60)
    text = np.array([f"${v:,.2f}" for v in 20 * x], dtype=object)
    df = pd.DataFrame({"x": x, "price": text})
    result = auto_fit(df, "price", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "regression"
    numbers = 20 * np.round(x, 2)
    assert result.score(df, df["price"]) == pytest.approx(
        result.score(df, numbers), abs=1e-3
    )
    not_numbers = r"does not read as numbers.*regresses 'price'"
    with pytest.raises(ValueError, match=not_numbers):
        result.score(df, np.array(["cheap", "dear"] * 30, dtype=object))


def test_a_target_of_decimals_is_a_regression():
    # Databases return NUMERIC columns as decimal.Decimal objects.
    from decimal import Decimal

    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = np.round(3 * x + rng.normal(0, 0.1, 60), 3)
    df = pd.DataFrame({"x": x, "amount": [Decimal(str(v)) for v in y]})
    result = auto_fit(df, "amount", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "regression"
    assert result.score(df, df["amount"]) == pytest.approx(result.score(df, y))
    flags = pd.DataFrame({"x": x, "flag": np.array([True, False] * 30, dtype=object)})
    assert auto_fit(flags, "flag", n_trials=1, cv=2, show_progress=False).task_ == (
        "binary"
    )


def test_unseen_integer_labels_suggest_a_regression(caplog):
    # A count with few distinct values is read as classes; a count the training
    # rows never held is a miss, and the warning says how to fit a count.
    rng = np.random.default_rng(0)
    x = rng.normal(size=90)
    counts = np.clip(np.round(2 + x), 0, 5).astype(int)
    df = pd.DataFrame({"x": x, "articles": counts})
    result = auto_fit(df, "articles", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "multiclass"
    with caplog.at_level("WARNING", logger="autocat"):
        score = result.score(df.head(2), [9, 2])
    assert score == pytest.approx(np.mean(result.predict(df.head(2)) == [9, 2]))
    assert re.search(r"\[9\].*fit with task='regression'", caplog.text)
    labelled = pd.DataFrame({"x": x, "band": np.where(x > 0, "high", "low")})
    named = auto_fit(labelled, "band", n_trials=1, cv=2, show_progress=False)
    assert named.metric_ == "average_precision"  # on probabilities: no score
    with pytest.raises(ValueError, match=r"known: \['high', 'low'\]\. "):
        named.score(labelled.head(2), ["high", "medium"])
    named.metric_ = "f1"  # on the two labels of a binary task: no score either
    with pytest.raises(ValueError, match="defined on the two classes"):
        named.score(labelled.head(2), ["high", "medium"])


def test_score_reads_class_labels_written_as_numbers_as_auto_fit_did():
    # A CSV gives integer labels as text ("1" to "3"): auto_fit reads them as
    # numbers, so the classes are numbers, and score takes the same column.
    rng = np.random.default_rng(0)
    x = rng.normal(size=90)
    rate = np.clip(np.round(2 + x), 1, 3).astype(int).astype(str).astype(object)
    df = pd.DataFrame({"x": x, "rate": rate})
    result = auto_fit(df, "rate", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "multiclass"
    assert result.classes_.tolist() == [1, 2, 3]
    assert result.score(df, df["rate"]) == pytest.approx(
        result.score(df, rate.astype(int))
    )
    rows = np.array(["9", "2"], dtype=object)  # "9": a class it never saw, a miss
    assert result.score(df.head(2), rows) == pytest.approx(
        np.mean(result.predict(df.head(2)) == [9, 2])
    )


def test_a_few_stray_tokens_in_a_numeric_target_are_read_as_missing(caplog):
    # Money with "unknown" on a few rows: without the rule, the target was text,
    # every amount a class of one row (an error here; with two repeated tokens,
    # a classification of hundreds of classes, far over its time budget).
    rng = np.random.default_rng(0)
    x = rng.normal(100, 20, 44)
    price = np.array([f"${v:,.2f}" for v in 20 * x], dtype=object)
    price[:4] = "unknown"
    df = pd.DataFrame({"x": x, "price": price})
    with caplog.at_level("WARNING", logger="autocat"):
        result = auto_fit(df, "price", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "regression"
    assert "4 row(s) of non-numeric value(s) 'unknown'" in caplog.text
    assert "dropping 4 rows whose target is missing" in caplog.text
    assert result.n_rows_ == 40
    # Told that they are classes, auto_fit keeps every value as a class.
    assert tokens_as_missing(price, "price", "multiclass") is price


def test_integer_labels_with_a_token_stay_classes():
    places = np.array([str(v) for v in range(1, 21)] * 2 + ["DNF"] * 3, dtype=object)
    assert tokens_as_missing(places, "place", "auto") is places
    codes = np.array([f"0{v}" for v in range(10, 60)] + ["unknown"], dtype=object)
    assert tokens_as_missing(codes, "zip", "auto") is codes
    read = tokens_as_missing(places, "place", "regression")
    assert np.isnan(read[-3:]).all() and read[:3].tolist() == [1.0, 2.0, 3.0]


def test_integer_classes_with_missing_values_stay_integers():
    # A CSV column of integers with empty cells is read as floats: once its
    # missing rows are dropped, its classes are the integers written, not 2.0.
    rng = np.random.default_rng(0)
    x = rng.normal(size=90)
    rate = np.clip(np.round(2 + x), 1, 3)
    rate[:3] = np.nan
    df = pd.DataFrame({"x": x, "rate": rate})
    result = auto_fit(df, "rate", n_trials=1, cv=2, show_progress=False)
    assert result.task_ == "multiclass"
    assert result.classes_.dtype.kind == "i"
    assert result.classes_.tolist() == [1, 2, 3]
    assert result.predict(df.head(5)).dtype.kind == "i"
    nullable = df.assign(rate=df["rate"].astype("Int64"))
    assert auto_fit(
        nullable, "rate", n_trials=1, cv=2, show_progress=False
    ).classes_.tolist() == [1, 2, 3]


def test_a_target_series_in_another_row_order_is_a_clear_error():
    # y popped from a table that was shuffled afterwards: read by position,
    # every row would get another row's target.
    df = _binary(40)
    y = df.pop("paid")
    with pytest.raises(ValueError, match=r"another order.*reindex\(df\.index\)"):
        auto_fit(df.sample(frac=1, random_state=0), y, n_trials=1)
    # the same order, or other labels (a reset index), read by position as before
    result = auto_fit(df, y, n_trials=1, cv=2, show_progress=False)
    assert result.predict(df).shape == (40,)
    auto_fit(df.set_index(df.index + 100), y, n_trials=1, cv=2, show_progress=False)


def test_score_leaves_out_rows_whose_target_is_missing(caplog):
    # auto_fit trains without them; a test set with some of them (a CSV with
    # empty cells, "N/A" in a money column) scores on the others, and says so.
    from sklearn.metrics import accuracy_score, r2_score

    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    df = pd.DataFrame(
        {"x": x, "price": np.round(50 + 10 * x + rng.normal(0, 5, 80), 2)}
    )
    result = auto_fit(df, "price", n_trials=1, cv=2, show_progress=False)
    truth = df["price"].astype(object).copy()
    truth[[3, 7, 11]] = [None, "N/A", np.nan]
    known = np.ones(80, dtype=bool)
    known[[3, 7, 11]] = False
    with caplog.at_level("WARNING", logger="autocat"):
        score = result.score(df, truth)
    assert score == pytest.approx(
        r2_score(df["price"][known], result.predict(df[known])), rel=1e-6
    )
    assert "scoring the 77 of 80 rows whose target is known (3 missing)" in caplog.text
    noisy = x + rng.normal(0, 0.5, 80)
    labels = pd.DataFrame({"x": x, "band": np.where(noisy > 0, "high", "low")})
    named = auto_fit(labels, "band", n_trials=1, cv=2, metric="accuracy",
                     show_progress=False)  # fmt: skip
    with_gaps = labels["band"].where(~np.isin(np.arange(80), [0, 5]))
    kept = with_gaps.notna()
    assert named.score(labels, with_gaps) == pytest.approx(
        accuracy_score(labels["band"][kept], named.predict(labels[kept]))
    )
    with pytest.raises(ValueError, match=r"no known target \(3 missing values\)"):
        result.score(df.head(3), [None, np.nan, None])
    with pytest.raises(ValueError, match=r"X has 5 rows and y 4"):
        result.score(df.head(5), df["price"].head(4))


def test_score_refuses_a_target_series_in_another_row_order():
    # as auto_fit does: read by position, every row would be scored against
    # another row's target
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    df = pd.DataFrame({"x": x, "price": 50 + 10 * x + rng.normal(0, 5, 60)})
    result = auto_fit(df, "price", n_trials=1, cv=2, show_progress=False)
    shuffled = df["price"].sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match=r"y\.reindex\(X\.index\)"):
        result.score(df, shuffled)
    aligned = shuffled.reindex(df.index)
    assert result.score(df, aligned) == result.score(df, df["price"].to_numpy())
