from __future__ import annotations

import pickle
import time

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from autocat import TextEncoder
from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._text import (
    _CHECK_EVERY,
    _BudgetChecked,
    _fit_counts,
    _transform_counts,
)

SPEAKS = [
    "english",
    "english, spanish",
    "english (fluently), french (poorly)",
    "spanish, english",
    "french",
    "english (fluently), c++ (okay)",
    "english",
    "english, spanish",
    "german (poorly), english",
]


def _reference_tfidf(values, analyzer):
    """Tf-idf of the rows with scikit-learn, blocks as TextEncoder documents them."""
    blocks = []
    if analyzer in ("both", "word"):
        blocks.append(TfidfVectorizer(token_pattern=r"(?u)\b\w+\b"))
    if analyzer in ("both", "char"):
        blocks.append(TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 4)))
    matrix = sparse.hstack([v.fit_transform(values) for v in blocks]).toarray()
    return matrix / np.sqrt(len(blocks))


@pytest.mark.parametrize("analyzer", ["both", "word", "char"])
def test_exact_when_the_rows_span_few_dimensions(analyzer):
    # 6 distinct values < n_components: the projection keeps every inner product
    frame = pd.DataFrame({"speaks": SPEAKS})
    out = TextEncoder(n_components=10, analyzer=analyzer).fit_transform(frame)
    assert out.dtype == np.float32 and out.shape == (len(SPEAKS), 10)
    reference = _reference_tfidf(SPEAKS, analyzer)
    np.testing.assert_allclose(out @ out.T, reference @ reference.T, atol=1e-5)
    rank = np.linalg.matrix_rank(reference)
    assert np.abs(out[:, rank:]).max() == 0.0  # unused outputs are zeros


def test_truncated_svd_keeps_the_top_singular_values(global_random_seed):
    rng = np.random.default_rng(global_random_seed)
    words = np.array(["red", "green", "blue", "cat", "dog", "tree", "sky", "sea"])
    values = [" ".join(rng.choice(words, rng.integers(2, 6))) for _ in range(300)]
    frame = pd.DataFrame({"text": values})
    out = TextEncoder(n_components=5, random_state=0).fit_transform(frame)
    reference = _reference_tfidf(values, "both")
    expected = np.linalg.svd(reference, compute_uv=False)[:5]
    found = np.linalg.svd(out.astype(float), compute_uv=False)
    np.testing.assert_allclose(found, expected, rtol=1e-3)


def test_rows_depend_on_their_value_only():
    encoder = TextEncoder(n_components=4, random_state=0).fit(
        pd.DataFrame({"t": SPEAKS})
    )
    alone = encoder.transform(pd.DataFrame({"t": ["english, spanish"]}))
    among = encoder.transform(pd.DataFrame({"t": SPEAKS}))
    np.testing.assert_array_equal(alone[0], among[1])


def test_missing_values_and_unseen_terms():
    frame = pd.DataFrame({"t": [*SPEAKS, None]})
    encoder = TextEncoder(n_components=3, random_state=0).fit(frame)
    out = encoder.transform(pd.DataFrame({"t": [None, "zzzz qqqq", ""]}))
    np.testing.assert_array_equal(out, np.zeros((3, 3), dtype=np.float32))
    nan = TextEncoder(n_components=3, handle_missing="nan", random_state=0)
    assert np.isnan(nan.fit(frame).transform(frame)[-1]).all()
    with pytest.raises(ValueError, match="Column 't' has 1 missing value"):
        TextEncoder(handle_missing="error").fit(frame)


def test_seed_makes_it_deterministic_and_columns_are_separate():
    frame = pd.DataFrame({"a": SPEAKS * 10, "b": SPEAKS[::-1] * 10})
    first = TextEncoder(n_components=3, random_state=1).fit_transform(frame)
    second = TextEncoder(n_components=3, random_state=1).fit_transform(frame)
    assert first.tobytes() == second.tobytes()
    assert first.shape == (len(frame), 6)
    alone = TextEncoder(n_components=3, random_state=1).fit_transform(frame[["a"]])
    assert np.abs(np.abs(first[:, :3]) - np.abs(alone)).max() < 1e-5
    encoder = TextEncoder(n_components=3, random_state=1).fit(frame)
    assert encoder.get_feature_names_out().tolist()[3:] == ["b_0", "b_1", "b_2"]
    assert len(encoder.vocabulary_sizes_) == 2


def test_invalid_parameters():
    frame = pd.DataFrame({"t": SPEAKS})
    with pytest.raises(ValueError, match="analyzer"):
        TextEncoder(analyzer="sentence").fit(frame)
    with pytest.raises(ValueError, match="ngram_range"):
        TextEncoder(ngram_range=(4, 3)).fit(frame)


@pytest.mark.parametrize("stage", ["fit_transform", "transform"])
def test_a_time_budget_that_runs_out_cuts_it_between_stages(stage, monkeypatch):
    # Inside a search, a budget that runs out while the encoder tokenizes stops
    # it at the next stage (the other vocabulary, the SVD) instead of its end.
    X = pd.DataFrame(
        {"title": [f"senior engineer {i % 40} team {i}" for i in range(300)]}
    )
    fitted = TextEncoder(n_components=5, analyzer="both", random_state=0).fit(X)
    budget = Budget(None)
    calls = []
    original = getattr(CountVectorizer, stage)

    def tokenize_while_the_budget_runs_out(self, *args, **kwargs):
        calls.append(stage)
        budget.deadline = time.monotonic() - 1.0
        return original(self, *args, **kwargs)

    monkeypatch.setattr(CountVectorizer, stage, tokenize_while_the_budget_runs_out)
    monkeypatch.setattr(TextEncoder, "_components", lambda *a: calls.append("svd"))
    encoder = TextEncoder(n_components=5, analyzer="both", random_state=0)
    with budget_scope(budget), pytest.raises(BudgetExhausted):
        encoder.fit(X) if stage == "fit_transform" else fitted.transform(X)
    assert calls == [stage]  # the word vocabulary only: no char n-grams, no SVD


@pytest.mark.parametrize("stage", ["fit", "transform"])
def test_a_time_budget_cuts_the_counting_of_many_long_strings(stage, monkeypatch):
    # Counting the character n-grams of 42,000 long strings took 4.5 s that no
    # budget could stop: it is now checked every few hundred strings.
    class RunsOutAfter(Budget):
        def __init__(self, checks):
            super().__init__(None)
            self.checks, self.asked = checks, 0

        def exhausted(self):
            self.asked += 1
            return self.asked > self.checks

    analyzed = []
    X = pd.DataFrame({"review": [f"a long review, number {i}" for i in range(5_000)]})
    encoder = TextEncoder(n_components=5, analyzer="char", random_state=0)
    fitted = clone(encoder).fit(X)
    budget = RunsOutAfter(checks=2)  # before the counting, and once within it
    real = _BudgetChecked.__call__

    def spy(self, document):
        analyzed.append(document)
        return real(self, document)

    monkeypatch.setattr(_BudgetChecked, "__call__", spy)
    with budget_scope(budget), pytest.raises(BudgetExhausted):
        encoder.fit(X) if stage == "fit" else fitted.transform(X)
    assert budget.asked == 3
    assert len(analyzed) == 2 * _CHECK_EVERY  # of 5,000: cut where it ran out


def test_budgeted_counting_fits_the_vectorizer_as_its_own_fit_would():
    rng = np.random.default_rng(0)
    strings = [
        "".join(rng.choice(list("abcdeFGH é,+-"), rng.integers(0, 30)))
        for _ in range(3_000)
    ]
    for options in ({"token_pattern": r"(?u)\b\w+\b"},
                    {"analyzer": "char_wb", "ngram_range": (3, 4)}):  # fmt: skip
        own, budgeted = (CountVectorizer(dtype=np.float64, **options) for _ in "ab")
        expected = own.fit_transform(strings)
        counts = _fit_counts(budgeted, strings)
        assert budgeted.vocabulary_ == own.vocabulary_
        assert (counts != expected).nnz == 0 and counts.dtype == expected.dtype
        head = strings[:50]
        assert (budgeted.transform(head) != own.transform(head)).nnz == 0
        assert (_transform_counts(own, head) != own.transform(head)).nnz == 0
        assert pickle.dumps(budgeted) == pickle.dumps(own)  # model files unchanged


def test_fit_transform_equals_fit_then_transform_and_counts_terms_once(monkeypatch):
    rng = np.random.default_rng(0)
    words = np.array(["red", "green", "blue", "cat", "dog", "tree", "sky", "sea"])
    values = [" ".join(rng.choice(words, rng.integers(2, 6))) for _ in range(200)]
    frame = pd.DataFrame(
        {
            "text": values[:150] + [None] * 50,
            "other": values[50:] + values[:50],
            "empty": [None] * 200,
        }
    )
    expected = TextEncoder(n_components=4, random_state=3).fit(frame).transform(frame)
    counted = []
    original = CountVectorizer.transform

    def spy(self, documents):
        counted.append(len(documents))
        return original(self, documents)

    monkeypatch.setattr(CountVectorizer, "transform", spy)
    encoder = TextEncoder(n_components=4, random_state=3)
    out = encoder.fit_transform(frame)
    assert counted == []  # the training values' terms are counted by fit only
    assert out.dtype == np.float32 and out.shape == (200, 12)
    np.testing.assert_array_equal(out, expected)
    assert (
        encoder.vocabulary_sizes_
        == TextEncoder(n_components=4, random_state=3).fit(frame).vocabulary_sizes_
    )
    np.testing.assert_array_equal(encoder.transform(frame), expected)
