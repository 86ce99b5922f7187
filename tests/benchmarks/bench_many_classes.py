"""Many classes on many rows in a short budget: ``auto_fit`` against skrub's pipeline.

Question (2026-12): XGBoost grows a tree per class each round, so on a table of
tens of thousands of rows and dozens of classes no trial finishes in 15 s, and
the model is either the rescue recipe on a sample or the trial the budget cut.
Which is chosen, and how does it score against skrub's ``tabular_pipeline``?

Table (generated, no download): beer reviews as in the paper's ``beer_reviews``
task. ``beer_style`` (45 classes of 20 to 5,192 rows) is the target; the
features are the brewery's name (1,881 breweries of Zipf-like sizes, each brewing
six styles), the beer's name (an adjective, then the style's words, one of them
in lower case, or a word such as "Reserve"), the alcohol content (a mean per
style and noise) and two review scores that carry nothing. 59,897 rows, one
third held out (stratified by style).

Printed per split: ``auto_fit``'s accuracy on the held-out rows, its seconds
and its model (``summary()``), and skrub's accuracy and seconds; then the
medians and the spread (max - min) over splits.

Run::

    python tests/benchmarks/bench_many_classes.py --budget 15 --splits 3
    python tests/benchmarks/bench_many_classes.py --budget 60 --splits 3 --no-skrub
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

_SYLLABLES = [
    "ka", "ro", "mi", "ten", "bel", "dor", "vas", "lu", "pin",
    "gra", "sto", "hel", "mar", "quo", "zen", "ri", "fa", "nok",
]  # fmt: skip
_BREWERY_KINDS = ["Brewing", "Brewery", "Beer Co.", "Ales", "Bräu"]


def _word(rng: np.random.Generator, low: int = 2, high: int = 3) -> str:
    return "".join(rng.choice(_SYLLABLES, rng.integers(low, high + 1))).capitalize()


def make_beer_styles(
    n_rows: int = 60_000, n_styles: int = 60, seed: int = 0
) -> pd.DataFrame:
    """A beer reviews table whose ``beer_style`` is read from its strings.

    Styles drawn by fewer than 20 rows are dropped (so that every class can
    be stratified): 45 styles and 59,897 rows with the defaults.
    """
    rng = np.random.default_rng(seed)
    style_words = [
        [_word(rng) for _ in range(rng.integers(1, 3))] for _ in range(n_styles)
    ]
    mean_abv = rng.uniform(3.5, 11, n_styles)
    n_breweries = 3_000
    breweries = [
        f"{_word(rng)} {rng.choice(_BREWERY_KINDS)}" for _ in range(n_breweries)
    ]
    popularity = np.minimum(rng.zipf(1.3, n_styles), 200).astype(float)
    popularity /= popularity.sum()
    brewed = [rng.choice(n_styles, 6, p=popularity) for _ in range(n_breweries)]
    size = np.minimum(rng.zipf(1.5, n_breweries), 500).astype(float)
    brewery = rng.choice(n_breweries, n_rows, p=size / size.sum())
    style = np.array([brewed[b][rng.integers(6)] for b in brewery])
    adjectives = [_word(rng, 1, 2) for _ in range(400)]
    names = []
    for s in style:
        words = [str(rng.choice(adjectives))]
        if rng.random() < 0.6:
            own = style_words[s]
            words += own if rng.random() < 0.7 else [own[0].lower()]
        else:
            number = f"No. {rng.integers(1, 12)}"
            words.append(str(rng.choice(["Special", "Reserve", number, "Batch"])))
        names.append(" ".join(words))
    frame = pd.DataFrame({
        "brewery_name": [breweries[b] for b in brewery],
        "beer_name": names,
        "abv": np.round(mean_abv[style] + rng.normal(0, 0.8, n_rows), 1),
        "review_overall": np.round(rng.uniform(1, 5, n_rows) * 2) / 2,
        "review_aroma": np.round(rng.uniform(1, 5, n_rows) * 2) / 2,
        "beer_style": [" ".join(style_words[s]) for s in style],
    })  # fmt: skip
    counts = frame["beer_style"].value_counts()
    kept = frame["beer_style"].isin(counts.index[counts >= 20])
    return frame[kept].reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=15.0)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--no-skrub", action="store_true", help="leave skrub out")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import autocat

    frame = make_beer_styles()
    y = frame.pop("beer_style")
    print(
        f"autocat {autocat.__version__}, {os.cpu_count()} CPU(s), "
        f"time_budget={args.budget}; {len(frame):,} rows, {y.nunique()} classes"
    )
    scores: dict[str, list[float]] = {"autocat": [], "skrub": []}
    for split in range(args.splits):
        X_train, X_test, y_train, y_test = train_test_split(
            frame, y, test_size=1 / 3, random_state=split, stratify=y
        )
        start = time.perf_counter()
        result = autocat.auto_fit(
            X_train.assign(beer_style=y_train), "beer_style",
            time_budget=args.budget, n_jobs=args.n_jobs, random_state=split,
            show_progress=False,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        accuracy = float(np.mean(result.predict(X_test) == y_test.to_numpy()))
        scores["autocat"].append(accuracy)
        model = next(
            line for line in result.summary().splitlines() if line.startswith("model:")
        )
        print(f"split {split}: auto_fit {accuracy:.4f} in {seconds:.1f}s ({model})")
        if args.no_skrub:
            continue
        from skrub import tabular_pipeline

        start = time.perf_counter()
        peer = tabular_pipeline("classifier").fit(X_train, y_train)
        seconds = time.perf_counter() - start
        scores["skrub"].append(float(peer.score(X_test, y_test)))
        print(f"split {split}: skrub   {scores['skrub'][-1]:.4f} in {seconds:.1f}s")
    for name, values in scores.items():
        if values:
            print(
                f"{name}: median {np.median(values):.4f}, "
                f"spread {max(values) - min(values):.4f} over {len(values)} splits"
            )


if __name__ == "__main__":
    main()
