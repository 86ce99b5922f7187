"""TableVectorizer: target encoding, the free-text kind and per-column overrides."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold
from sklearn.preprocessing import OneHotEncoder, StandardScaler, TargetEncoder

from autocat import (
    DatetimeEncoder,
    GammaPoissonEncoder,
    MinHashEncoder,
    TableVectorizer,
    TextEncoder,
)

WORDS = ["red", "green", "blue", "cat", "dog", "tree", "sky", "sea", "sun", "rain"]


def _table(n: int = 120, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    city = np.array([f"city {i}" for i in rng.integers(0, 40, n)], dtype=object)
    notes = [" ".join(rng.choice(WORDS, rng.integers(6, 10))) for _ in range(n)]
    frame = pd.DataFrame(
        {
            "city": city,
            "notes": notes,
            "zip": rng.integers(10_000, 10_060, n),
            "amount": [f"{v:.2f}" for v in rng.normal(100, 10, n)],
            "day": [f"2020-01-{1 + i % 28:02d}" for i in range(n)],
            "size": rng.choice(["S", "M", "L"], n),
            "x": rng.normal(size=n),
        }
    )
    y = rng.normal(size=n) + (city == "city 3") * 2.0
    return frame, y


def test_target_encoding_is_scikit_learns_cross_fitted_encoder():
    frame, y = _table()
    vectorizer = TableVectorizer(high_cardinality="target", text=None)
    out = vectorizer.fit_transform(frame[["city", "notes"]], y)
    assert vectorizer.column_kinds_ == {
        "city": "high_cardinality",
        "notes": "high_cardinality",
    }
    assert isinstance(vectorizer.transformers_["city"], TargetEncoder)
    reference = TargetEncoder(
        target_type="continuous", cv=KFold(5, shuffle=True, random_state=0)
    )
    expected = reference.fit_transform(frame[["city"]].astype(object), y)
    np.testing.assert_allclose(out[:, [0]], expected, rtol=1e-6)
    # transform uses the encoder fitted on every row, not the folds
    np.testing.assert_allclose(
        vectorizer.transform(frame[["city", "notes"]])[:, [0]],
        reference.transform(frame[["city"]].astype(object)),
        rtol=1e-6,
    )
    again = TableVectorizer(high_cardinality="target", text=None)
    assert again.fit_transform(frame[["city", "notes"]], y).tobytes() == out.tobytes()


@pytest.mark.parametrize(
    ("target", "option", "n_outputs"),
    [
        (lambda r, n: r.integers(18, 80, n), "auto", 1),  # integer ages: continuous
        (lambda r, n: r.integers(0, 2, n), "auto", 1),
        (lambda r, n: r.choice(["a", "b", "c"], n), "auto", 3),
        (lambda r, n: r.integers(0, 3, n).astype(float), "continuous", 1),
    ],
)
def test_target_type_sets_the_outputs(target, option, n_outputs):
    frame, _ = _table()
    y = target(np.random.default_rng(1), len(frame))
    vectorizer = TableVectorizer(high_cardinality="target", target_type=option)
    vectorizer.fit(frame[["city"]], y)
    assert len(vectorizer.input_to_outputs_["city"]) == n_outputs


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "int32", "uint64"])
def test_class_codes_of_any_integer_width_are_target_encoded(dtype):
    # pandas' category codes are int8, which scikit-learn's encoder refuses
    frame, _ = _table()
    codes = pd.Series(np.arange(len(frame)) % 3).astype("category").cat.codes
    y = codes.to_numpy().astype(dtype)
    out = TableVectorizer(high_cardinality="target").fit_transform(frame, y)
    reference = TableVectorizer(high_cardinality="target").fit_transform(
        frame, y.astype(np.int64)
    )
    assert out.tobytes() == reference.tobytes()


def test_target_encoding_needs_y_before_any_work():
    frame, y = _table()
    with pytest.raises(ValueError, match=r"call fit\(X, y\)"):
        TableVectorizer(high_cardinality="target").fit(frame)
    with pytest.raises(ValueError, match="one value per row"):
        TableVectorizer(specific_transformers={"zip": "target"}).fit(frame, y[:10])
    y_missing = y.copy()
    y_missing[3] = np.nan
    with pytest.raises(ValueError, match="1 missing value"):
        TableVectorizer(high_cardinality="target").fit(frame, y_missing)
    with pytest.raises(ValueError, match="target encoding"):
        TableVectorizer(high_cardinality=TargetEncoder()).fit(frame)
    TableVectorizer().fit(frame, y[:10])  # y unused: not checked


def test_free_text_kind():
    frame, _ = _table()
    vectorizer = TableVectorizer(text="text").fit(frame)
    assert vectorizer.column_kinds_["notes"] == "text"
    assert vectorizer.column_kinds_["city"] == "high_cardinality"
    assert isinstance(vectorizer.transformers_["notes"], TextEncoder)
    plan = vectorizer.describe().set_index("column")
    assert plan.loc["notes", "reason"].startswith("free text; ")
    assert plan.loc["notes", "n_outputs"] == 30
    off = TableVectorizer(text=None).fit(frame)
    assert off.column_kinds_["notes"] == "high_cardinality"
    minhash = TableVectorizer(n_components=4).fit(frame)  # the default
    assert minhash.column_kinds_["notes"] == "text"
    assert isinstance(minhash.transformers_["notes"], MinHashEncoder)
    assert minhash.describe().set_index("column").loc["notes", "n_outputs"] == 4


def test_text_encoder_through_the_vectorizer_equals_the_encoder():
    frame, _ = _table()
    vectorizer = TableVectorizer(high_cardinality="text", n_components=5)
    out = vectorizer.fit_transform(frame[["city"]])
    alone = TextEncoder(n_components=5, random_state=0).fit_transform(frame[["city"]])
    np.testing.assert_allclose(out, alone, atol=1e-6)
    np.testing.assert_array_equal(vectorizer.transform(frame[["city"]]), out)


# Each override: the kind it gives and the encoder it builds.
OVERRIDES = {
    "city": ("onehot", "low_cardinality", OneHotEncoder),
    "notes": ("minhash", "high_cardinality", MinHashEncoder),
    "zip": ("target", "high_cardinality", TargetEncoder),
    "amount": ("passthrough", "numeric", str),
    "day": ("text", "text", TextEncoder),
    "size": ("gamma_poisson", "high_cardinality", GammaPoissonEncoder),
    "x": ("drop", "dropped", str),
}


def test_specific_transformers_by_name():
    frame, y = _table()
    specific = {column: choice for column, (choice, _, _) in OVERRIDES.items()}
    vectorizer = TableVectorizer(specific_transformers=specific)
    out = vectorizer.fit_transform(frame, y)
    plan = vectorizer.describe().set_index("column")
    for column, (_, kind, encoder) in OVERRIDES.items():
        assert vectorizer.column_kinds_[column] == kind, column
        assert isinstance(vectorizer.transformers_[column], encoder), column
        assert plan.loc[column, "reason"] == "set by the user"
    assert vectorizer.input_to_outputs_["amount"] == ["amount"]
    np.testing.assert_allclose(
        out[:, vectorizer.get_feature_names_out().tolist().index("amount")],
        frame["amount"].astype(float),
        rtol=1e-6,
    )
    # zip codes target-encoded as strings: one value per zip code
    assert len(vectorizer.input_to_outputs_["zip"]) == 1
    back = pickle.loads(pickle.dumps(vectorizer))
    np.testing.assert_array_equal(back.transform(frame), vectorizer.transform(frame))
    automatic = TableVectorizer().fit(frame)
    assert automatic.column_kinds_["zip"] == "numeric"
    assert automatic.column_kinds_["day"] == "datetime"


def test_specific_readings_and_transformers():
    frame, _ = _table()
    frame["day_text"] = frame["day"].astype(str) + " or so"
    frame["code"] = ["A7"] * len(frame)  # constant: kept when the user sets it
    specific = {
        "amount": "numeric",
        "day": "datetime",
        "x": StandardScaler(),
        "code": "onehot",
    }
    vectorizer = TableVectorizer(specific_transformers=specific).fit(frame)
    assert vectorizer.column_kinds_["amount"] == "numeric"
    assert isinstance(vectorizer.transformers_["day"], DatetimeEncoder)
    assert isinstance(vectorizer.transformers_["x"], StandardScaler)
    assert vectorizer.column_kinds_["code"] == "low_cardinality"
    out = vectorizer.transform(frame)
    column = vectorizer.get_feature_names_out().tolist().index("x")
    assert abs(out[:, column].std() - 1.0) < 1e-3
    with pytest.raises(ValueError, match="do not all read as dates"):
        TableVectorizer(specific_transformers={"day_text": "datetime"}).fit(frame)
    stamps = pd.DataFrame({"t": pd.date_range("2020-01-01", periods=5)})
    with pytest.raises(ValueError, match="holds datetimes"):
        TableVectorizer(specific_transformers={"t": "numeric"}).fit(stamps)


def test_specific_transformers_errors():
    frame, _ = _table()
    with pytest.raises(ValueError, match=r"column\(s\) \['ciyt'\] that X lacks"):
        TableVectorizer(specific_transformers={"ciyt": "onehot"}).fit(frame)
    with pytest.raises(ValueError, match=r"must be one of .* got 'hash'"):
        TableVectorizer(specific_transformers={"city": "hash"}).fit(frame)
    with pytest.raises(TypeError, match="transformer instance"):
        TableVectorizer(specific_transformers={"city": StandardScaler}).fit(frame)
