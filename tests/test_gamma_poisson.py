from __future__ import annotations

import multiprocessing
import pickle
import re
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.compose import make_column_transformer

from autocat import GammaPoissonEncoder, MinHashEncoder
from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._ngrams import char_ngrams, count_ngrams, pack_normalized, pack_strings
from autocat.datasets import make_dirty_categories
from autocat.datasets._simulations import ANIMALS, recovery_nmi

TITLES = [
    "Police Officer III", "police officer II", "Police Sergeant", "Bus Operator",
    "bus operator trainee", "Bus Driver", "Office Services Coordinator",
    "Office Clerk", "Fire Fighter", "Fire Fighter III", "Firefighter Rescuer",
    "Manager II", "Property Manager", "Management Analyst",
]  # fmt: skip


def titles_frame(n_repeats: int = 3) -> pd.DataFrame:
    return pd.DataFrame({"title": TITLES * n_repeats})


# ------------------------------------------------------------------ n-gram counts


@pytest.mark.parametrize("ngram_range", [(2, 4), (1, 1), (3, 5)])
def test_count_ngrams_matches_reference_definition(ngram_range):
    strings = ["Police  Officer", "", "é ü", "aaaa", "x", "Bus\tOperator II"]
    indptr, _, counts = count_ngrams(strings, ngram_range)
    for i, string in enumerate(strings):
        expected = char_ngrams(string, ngram_range)
        assert indptr[i + 1] - indptr[i] == len(expected)
        low, high = ngram_range
        padded = " " + " ".join(string.lower().split()) + " "
        occurrences = sum(max(0, len(padded) - n + 1) for n in range(low, high + 1))
        assert counts[indptr[i] : indptr[i + 1]].sum() == occurrences
    # the same n-gram gets the same key in every string
    _, keys_a, _ = count_ngrams(["ab"], (2, 2))
    _, keys_b, _ = count_ngrams(["xab"], (2, 2))
    assert len(np.intersect1d(keys_a, keys_b)) == 2  # "ab", "b "


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=8))
def test_pack_normalized_equals_pack_strings(strings):
    fast = pack_normalized(strings)
    reference = pack_strings(strings)
    np.testing.assert_array_equal(fast[0], reference[0])
    np.testing.assert_array_equal(fast[1], reference[1])


def test_pack_normalized_edge_cases():
    for strings in [[], [""], ["a\x00b", "c"], ["ΑΣ", "Σα", "İx", "\u2003a\x1fb\x85"]]:
        np.testing.assert_array_equal(
            pack_normalized(strings)[0], pack_strings(strings)[0]
        )
        np.testing.assert_array_equal(
            pack_normalized(strings)[1], pack_strings(strings)[1]
        )


# ------------------------------------------------------------------ encoding


def test_output_is_non_negative_float32_and_named():
    df = titles_frame()
    encoder = GammaPoissonEncoder(n_components=4, random_state=0)
    out = encoder.fit_transform(df)
    assert out.shape == (len(df), 4)
    assert out.dtype == np.float32
    assert np.isfinite(out).all() and (out >= 0).all()
    names = encoder.get_feature_names_out()
    assert len(names) == 4 and len(set(names)) == 4
    assert all(name.startswith("title: ") for name in names)
    assert [name[len("title: ") :] for name in names] == encoder.topic_labels_[:4] or (
        len(set(encoder.topic_labels_)) < 4
    )


def test_activations_are_sparse():
    # each value loads mostly on one or two topics
    X, _ = make_dirty_categories("typos", n_samples=400, random_state=0)
    out = GammaPoissonEncoder(n_components=8, random_state=0).fit_transform(X)
    shares = out / out.sum(axis=1, keepdims=True)
    assert np.median(np.sort(shares, axis=1)[:, -2:].sum(axis=1)) > 0.9


def test_same_topic_for_similar_strings():
    df = titles_frame()
    encoder = GammaPoissonEncoder(n_components=4, random_state=0).fit(df)
    out = encoder.transform(
        pd.DataFrame({"title": ["police officer", "Police Officer I", "bus operator"]})
    )
    best = out.argmax(axis=1)
    assert best[0] == best[1] != best[2]


@pytest.mark.parametrize("kind", ["multilabel", "typos"])
def test_recovers_latent_categories(kind, global_random_seed):
    # The paper's protocol (Table 4): its values at d = 8 are 0.82 and 0.83;
    # bench_recovery.py reports the full table; the bound here is a safe margin.
    X, _ = make_dirty_categories(kind, n_samples=600, random_state=global_random_seed)
    encoder = GammaPoissonEncoder(n_components=8, random_state=global_random_seed)
    encoding = encoder.fit(X).transform(pd.DataFrame({"category": list(ANIMALS)}))
    assert recovery_nmi(encoding) > 0.7


def test_min_hash_does_not_recover_latent_categories():
    # the measure separates the encoders as in the paper's Table 4
    X, _ = make_dirty_categories("multilabel", n_samples=300, random_state=0)
    names = pd.DataFrame({"category": list(ANIMALS)})
    encoding = MinHashEncoder(n_components=8).fit(X).transform(names)
    assert recovery_nmi(encoding) < 0.3


def test_same_seed_same_bytes():
    df = titles_frame()
    first = GammaPoissonEncoder(n_components=3, random_state=7).fit(df)
    second = GammaPoissonEncoder(n_components=3, random_state=7).fit(df)
    assert first.transform(df).tobytes() == second.transform(df).tobytes()
    assert first.topic_labels_ == second.topic_labels_


def _encode_in_child(queue):
    df = titles_frame()
    out = GammaPoissonEncoder(n_components=3, random_state=3).fit_transform(df)
    queue.put(out.tobytes())


@pytest.mark.slow  # starting a Python process and importing numba: ~4 s
def test_same_bytes_in_another_process():
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_encode_in_child, args=(queue,))
    child.start()
    child_bytes = queue.get(timeout=600)  # a loaded machine imports slowly
    child.join()
    assert child.exitcode == 0
    df = titles_frame()
    here = GammaPoissonEncoder(n_components=3, random_state=3).fit_transform(df)
    assert here.std() > 0  # not a constant output, which any process would match
    assert child_bytes == here.tobytes()


def test_transform_does_not_mutate_and_is_deterministic():
    df = titles_frame()
    encoder = GammaPoissonEncoder(n_components=3, random_state=0).fit(df)
    before = pickle.dumps(encoder)
    new = pd.DataFrame({"title": ["Police Chief", "unseen value", "Bus Operator"]})
    first = encoder.transform(new)
    assert pickle.dumps(encoder) == before
    assert encoder.transform(new).tobytes() == first.tobytes()
    # one row alone gets the same encoding as in a batch
    alone = encoder.transform(new.iloc[[1]])
    np.testing.assert_array_equal(alone[0], first[1])


@pytest.mark.parametrize(
    ("handle_missing", "expected"), [("zero", 0.0), ("nan", np.nan)]
)
def test_missing_values(handle_missing, expected):
    df = pd.DataFrame({"title": ["Police Officer", None, "Bus Operator", np.nan]})
    encoder = GammaPoissonEncoder(
        n_components=2, handle_missing=handle_missing, random_state=0
    )
    out = encoder.fit_transform(df)
    np.testing.assert_array_equal(out[[1, 3]], np.full((2, 2), expected))
    assert (out[[0, 2]] > 0).all()


def test_missing_values_error_names_the_column():
    df = pd.DataFrame({"title": ["a", "b", None]})
    encoder = GammaPoissonEncoder(n_components=2, handle_missing="error")
    with pytest.raises(ValueError, match=r"Column 'title' has 1 missing value.*row 2"):
        encoder.fit(df)
    encoder.set_params(handle_missing="zero").fit(df)
    encoder.set_params(handle_missing="error")
    with pytest.raises(ValueError, match="Column 'title'"):
        encoder.transform(df)


def test_empty_and_unseen_values():
    df = titles_frame()
    encoder = GammaPoissonEncoder(n_components=3, random_state=0).fit(
        pd.concat([df, pd.DataFrame({"title": [""]})])
    )
    out = encoder.transform(pd.DataFrame({"title": ["", "qqq", "Police Chief"]}))
    np.testing.assert_array_equal(out[:2], 0.0)  # empty; no known n-gram
    assert out[2].max() > 1.0  # unseen, but shares n-grams with training values
    last = encoder.transform(pd.DataFrame({"title": ["Police", "", "qqq"]}))
    np.testing.assert_array_equal(last[1:], 0.0)
    np.testing.assert_allclose(
        last[0], encoder.transform(pd.DataFrame({"title": ["Police"]}))[0]
    )


def test_all_values_missing_or_empty():
    df = pd.DataFrame({"title": [None, "", None]})
    encoder = GammaPoissonEncoder(n_components=2, random_state=0).fit(df)
    np.testing.assert_array_equal(encoder.transform(df), 0.0)
    assert len(encoder.get_feature_names_out()) == 2


def test_non_strings_are_encoded_as_their_str_and_bytes_rejected():
    encoder = GammaPoissonEncoder(n_components=2, random_state=0)
    mixed = pd.DataFrame({"x": pd.Series([1, "1", 2.5, True, "abc"], dtype=object)})
    out = encoder.fit_transform(mixed)
    np.testing.assert_array_equal(out[0], out[1])
    with pytest.raises(TypeError, match="bytes"):
        encoder.fit(pd.DataFrame({"x": [b"abc", b"def"]}))


def test_several_columns_are_factorised_separately():
    df = titles_frame()
    df["other"] = list(reversed(df["title"]))
    encoder = GammaPoissonEncoder(n_components=3, random_state=0).fit(df)
    out = encoder.transform(df)
    assert out.shape == (len(df), 6)
    names = encoder.get_feature_names_out()
    assert [n.split(":")[0] for n in names] == ["title"] * 3 + ["other"] * 3
    assert len(encoder.topic_labels_) == 6
    # the second column's rows are the first column's rows reversed
    np.testing.assert_allclose(out[::-1, 3:].sum(), out[:, :3].sum(), rtol=0.05)


def test_set_output(df_module):
    df = df_module.DataFrame({"title": TITLES * 2})
    encoder = GammaPoissonEncoder(n_components=2, random_state=0).set_output(
        transform=df_module.__name__
    )
    out = encoder.fit_transform(df)
    assert isinstance(out, df_module.DataFrame)
    assert list(out.columns) == encoder.get_feature_names_out().tolist()


def test_in_a_column_transformer():
    df = titles_frame()
    df["n"] = np.arange(len(df))
    transformer = make_column_transformer(
        (GammaPoissonEncoder(n_components=2, random_state=0), ["title"]),
        remainder="passthrough",
    )
    assert transformer.fit_transform(df).shape == (len(df), 3)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"ngram_range": (3, 2)}, "ngram_range"),
        ({"alpha": 0.5}, "alpha"),
        ({"init": "kmeans"}, "init"),
        ({"rho": 1.5}, "rho"),
    ],
)
def test_invalid_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        GammaPoissonEncoder(**params).fit(titles_frame())


def test_init_random():
    df = titles_frame()
    out = GammaPoissonEncoder(
        n_components=3, init="random", random_state=0
    ).fit_transform(df)
    assert (out >= 0).all() and np.isfinite(out).all()


def test_lazy_topic_rescaling_keeps_the_model():
    # many mini-batches push the lazily scaled statistics past the rescaling bound
    df = pd.DataFrame(
        {"title": [f"title {i % 97} {TITLES[i % 14]}" for i in range(3000)]}
    )
    encoder = GammaPoissonEncoder(
        n_components=3, batch_size=1, max_iter=3, tol=0, random_state=0
    ).fit(df)
    model = encoder._models[0]
    assert model.R.max() < 1e101
    np.testing.assert_allclose(model.topics().sum(axis=1), 1.0, rtol=1e-6)
    assert np.isfinite(encoder.transform(df)).all()


# ------------------------------------------------------------------ partial_fit


def test_partial_fit_close_to_fit(global_random_seed):
    # Stated tolerance: streaming the rows in 4 chunks, one pass each, ends with
    # a KL loss (on all rows) at most 10% above that of one fit pass over all
    # rows. Measured on the simulations: -8.8% to +2.1% (multi-label), -1.0% to
    # -0.6% (typos); the two reach different local optima, either may be better.
    X, _ = make_dirty_categories(
        "multilabel", n_samples=2000, random_state=global_random_seed
    )
    whole = GammaPoissonEncoder(
        n_components=8, max_iter=1, random_state=global_random_seed
    ).fit(X)
    streamed = GammaPoissonEncoder(n_components=8, random_state=global_random_seed)
    for chunk in np.array_split(np.arange(len(X)), 4):
        streamed.partial_fit(X.iloc[chunk])
    assert streamed._kl_divergence(X) <= 1.10 * whole._kl_divergence(X)
    assert streamed.n_iter_ == 4


def test_partial_fit_learns_ngrams_first_seen_later():
    police = pd.DataFrame({"title": ["police officer", "police sergeant"] * 20})
    bus = pd.DataFrame({"title": ["bus operator", "bus driver"] * 20})
    encoder = GammaPoissonEncoder(n_components=2, random_state=0).partial_fit(police)
    vocabulary_before = encoder._models[0].n_columns
    encoder.partial_fit(bus)
    assert encoder._models[0].n_columns > vocabulary_before
    # the n-grams of "bus" were unknown to the first chunk; they now make a topic
    out = encoder.transform(pd.DataFrame({"title": ["bus", "police"]}))
    assert out[0].argmax() != out[1].argmax()
    assert out[0].max() > 0.8 * out[0].sum()
    assert "bus" in " ".join(encoder.topic_labels_)


def test_partial_fit_keeps_the_number_of_topics():
    encoder = GammaPoissonEncoder(n_components=2).partial_fit(titles_frame())
    encoder.set_params(n_components=3)
    with pytest.raises(ValueError, match="cannot change n_components"):
        encoder.partial_fit(titles_frame())


# ------------------------------------------------------------------ interpretation


def test_topic_labels_top_words_and_categories():
    df = pd.DataFrame(
        {
            "title": ["police officer", "police sergeant", "bus operator", "bus driver"]
            * 10
        }
    )
    encoder = GammaPoissonEncoder(n_components=2, random_state=0).fit(df)
    assert sorted(label.split(", ")[0] for label in encoder.topic_labels_) == [
        "bus", "police",
    ]  # fmt: skip
    words = encoder.top_words(2)
    assert [len(w) for w in words] == [2, 2]
    assert {w[0] for w in words} == {"bus", "police"}
    categories = encoder.top_categories(2)
    for topic_words, topic_values in zip(words, categories, strict=True):
        assert all(topic_words[0] in value for value in topic_values)


def test_labels_ignore_rare_typos_and_stop_words():
    rng = np.random.default_rng(0)
    # "of" and "the" are spread over all topics; the typos are rare
    clean = ["assistant property manager", "manager of the property",
             "bus operator trainee", "operator of the bus",
             "police officer recruit", "officer of the police"]  # fmt: skip
    values = [*rng.choice(clean, 300), "assistantbproperty manager", "polise"]
    encoder = GammaPoissonEncoder(n_components=3, random_state=0).fit(
        pd.DataFrame({"title": values})
    )
    words = {w for label in encoder.topic_labels_ for w in label.split(", ")}
    assert not words & {"assistantbproperty", "polise", "of", "the"}


def test_employee_salaries_labels_are_real_words(shared_task):
    frame, task = shared_task("employee_salaries")
    column = frame[task["paper_column"]]
    encoder = GammaPoissonEncoder(n_components=10, random_state=0)
    encoder.fit(column.to_frame())
    tokens = column.dropna().str.lower().str.split(r"[\s\W_]+", regex=True)
    row_count = tokens.explode().value_counts()
    stop_words = {"and", "of", "the", "it", "but", "to", "in", "for", "a"}
    for label in encoder.topic_labels_:
        words = label.split(", ")
        assert len(words) == 3, label
        for word in words:
            # a real word of the column, used in many rows: no typo, no stop word
            assert row_count.get(word, 0) >= 20, (label, word)
            assert word not in stop_words, label


# ------------------------------------------------------------------ properties


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.one_of(st.text(max_size=12), st.none()), min_size=1, max_size=30),
    st.integers(1, 4),
)
def test_output_finite_non_negative_and_reproducible(values, n_components):
    df = pd.DataFrame({"x": pd.Series(values, dtype=object)})
    encoder = GammaPoissonEncoder(n_components=n_components, random_state=0)
    out = encoder.fit_transform(df)
    assert out.shape == (len(values), n_components)
    assert np.isfinite(out).all() and (out >= 0).all()
    again = clone(encoder).fit_transform(df)
    assert out.tobytes() == again.tobytes()
    assert all(isinstance(name, str) for name in encoder.get_feature_names_out())


def test_docstring_example_labels_read_as_words():
    encoder = GammaPoissonEncoder(n_components=2, random_state=0).fit(titles_frame())
    assert all(re.fullmatch(r"[\w ,]+", label) for label in encoder.topic_labels_)


def test_transform_n_jobs_gives_the_same_bytes(monkeypatch):
    import autocat._factorize
    import autocat._gamma_poisson

    # split factorisation, E-step and gather even on this small table
    monkeypatch.setattr(autocat._factorize, "_MIN_ROWS_PER_THREAD", 16)
    monkeypatch.setattr(autocat._gamma_poisson, "_MIN_VALUES_PER_THREAD", 4)
    X, _ = make_dirty_categories(kind="typos", n_samples=600, random_state=0)
    encoder = GammaPoissonEncoder(n_components=3, max_iter=2, random_state=0).fit(X)
    serial = encoder.transform(X)
    threaded = clone(encoder).set_params(n_jobs=3).fit(X)
    assert threaded.transform(X).tobytes() == serial.tobytes()
    assert encoder.set_params(n_jobs=-1).transform(X).tobytes() == serial.tobytes()


class _SpentAfter(Budget):
    """A budget spent after its first ``checks`` checks (no clock involved)."""

    def __init__(self, checks: int, *, settle: bool) -> None:
        super().__init__(None, settle=settle)
        self.checks_left = checks

    def exhausted(self) -> bool:
        self.checks_left -= 1
        return self.checks_left < 0


def _checks_in_one_pass(X) -> int:
    never = _SpentAfter(10**9, settle=True)
    with budget_scope(never):
        GammaPoissonEncoder(
            n_components=5, max_iter=1, batch_size=16, random_state=0
        ).fit(X)
    return 10**9 - never.checks_left


def test_a_settling_budget_keeps_the_state_of_the_passes_run():
    # Spent right after the first pass: the settled fit stops there and keeps
    # exactly what a one-pass fit (the reference) reaches, bit for bit.
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"name": [" ".join(rng.choice(words, 3)) + f" {i % 97}"
                               for i in range(600)]})  # fmt: skip
    one_pass = GammaPoissonEncoder(
        n_components=5, max_iter=1, batch_size=16, random_state=0
    ).fit(X)
    settled = GammaPoissonEncoder(
        n_components=5, max_iter=20, batch_size=16, random_state=0
    )
    with budget_scope(_SpentAfter(_checks_in_one_pass(X), settle=True)):
        settled.fit(X)
    assert settled.n_iter_ == 1
    np.testing.assert_array_equal(settled._models[0].A_hat, one_pass._models[0].A_hat)
    np.testing.assert_array_equal(settled.transform(X), one_pass.transform(X))
    # without the budget the fit runs more passes, so the settling did stop it
    full = GammaPoissonEncoder(n_components=5, batch_size=16, random_state=0).fit(X)
    assert full.n_iter_ > 1


def test_a_spent_settling_budget_still_returns_a_usable_encoder():
    X = pd.DataFrame({"name": [f"item {i % 40} of lot {i % 7}" for i in range(300)]})
    encoder = GammaPoissonEncoder(n_components=4, random_state=0)
    with budget_scope(Budget(time.monotonic() - 1.0, settle=True)):
        encoded = encoder.fit_transform(X)  # never raises
    assert encoder.n_iter_ == 0  # the initial topics only
    assert encoded.shape == (300, 4) and np.isfinite(encoded).all()
    assert (encoded.sum(axis=1) > 0).all()
    # the same spent budget, not settling, cuts the fit
    with budget_scope(Budget(time.monotonic() - 1.0)), pytest.raises(BudgetExhausted):
        GammaPoissonEncoder(n_components=4, random_state=0).fit(X)
