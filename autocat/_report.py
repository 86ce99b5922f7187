"""The HTML report of an :class:`~autocat.AutoResult`: one self-contained file.

:func:`write_report` gathers plain data from a fitted result
(:func:`collect_report_data`) and renders it (:func:`render_report`) as one HTML
page with inline CSS and inline SVG charts (:mod:`autocat._svg`): no script, no
external stylesheet, font or image, so the file can be mailed or archived and
opens offline. The page shows, in order:

1. the headline numbers: cross-validated score of the best pipeline against the
   paper-default baseline (min-hash, d=30), trials, time, seed;
2. the vectorizer's plan, one row per input column;
3. the optimisation history and the leaderboard of trials;
4. permutation importances, one per original column;
5. for Gamma-Poisson columns, the inferred topic labels and the activations of
   the most frequent categories (when min-hash won, topics fitted on the sample
   for the report, to show what the dirty columns are made of);
6. the best parameters and the versions that produced the result.
"""

from __future__ import annotations

import dataclasses
import math
import platform
from html import escape
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from autocat import _svg
from autocat._threads import in_own_thread

if TYPE_CHECKING:
    from autocat._result import AutoResult

__all__ = ["ReportData", "collect_report_data", "render_report", "write_report"]

_LEADERBOARD_ROWS = 20
_TOPIC_CATEGORIES = 15
_TOP_WORDS = 5
_IMPORTANCE_REPEATS = 5
_REPORT_TOPICS = 8
_MAX_REPORT_TOPIC_COLUMNS = 4
_NO_SAMPLE = (
    "Not measured: permutation importances need training rows, and this result "
    "was loaded from a model file saved without them (the default, so that a "
    "shared model file discloses no data). Write the report before saving, or "
    "save with result.save(path, include_sample=True)."
)


@dataclasses.dataclass
class ReportData:
    """Everything the report shows, as plain Python values.

    Parameters
    ----------
    target : str
        The predicted column.
    task : str
        ``'regression'``, ``'binary'`` or ``'multiclass'``.
    metric : str
        Scorer name; greater is better.
    cv_score : float
        Cross-validated score of the chosen pipeline.
    baseline_score : float
        Score of the paper-default pipeline under the same folds.
    n_trials : int
        Trials run.
    elapsed_s : float
        Wall time of the search and refit.
    seed : int or None
        ``random_state`` of the run.
    plan : list of dict
        One record per input column (the vectorizer's ``describe()``).
    leaderboard : list of dict
        One record per trial, best first.
    history : list of tuple of (int, float, str)
        ``(trial number, score, state)`` in trial order; the score is NaN for
        trials without one.
    importances : list of tuple of (str, float, float)
        ``(column, mean, std)`` permutation importances, largest first.
    topics : list of dict
        Per Gamma-Poisson column: ``column``, ``labels`` (one per topic),
        ``top_words`` (list of lists), ``categories`` and ``activations`` (one
        row per category, one value per topic).
    best_params : dict
        Parameters of the chosen trial.
    summary : str
        The text summary of the result.
    versions : dict
        Package name to version.
    importance_note : str, default=''
        How the importances were measured, or why they are missing.
    """

    target: str
    task: str
    metric: str
    cv_score: float
    baseline_score: float
    n_trials: int
    elapsed_s: float
    seed: int | None
    plan: list[dict[str, Any]]
    leaderboard: list[dict[str, Any]]
    history: list[tuple[int, float, str]]
    importances: list[tuple[str, float, float]]
    topics: list[dict[str, Any]]
    best_params: dict[str, Any]
    summary: str
    versions: dict[str, str]
    importance_note: str = ""


def write_report(result: AutoResult, path: str | Path) -> Path:
    """Write the HTML report of a fitted :class:`~autocat.AutoResult`.

    Parameters
    ----------
    result : AutoResult
        The output of :func:`autocat.auto_fit` (or :func:`autocat.load`).
    path : str or path-like
        The HTML file to write; its folder must exist.

    Returns
    -------
    pathlib.Path
        ``path``.

    Notes
    -----
    Permutation importances are computed here on the result's sample of at most
    2,000 training rows, ``5`` repeats per column: one prediction of the whole
    pipeline per column and repeat, typically a few seconds. When no column is
    encoded by Gamma-Poisson, an 8-topic :class:`GammaPoissonEncoder` is fitted
    on the sample of up to 4 high-cardinality columns, for interpretation only.
    A result loaded from a model file saved without its sample (the default of
    :meth:`AutoResult.save`) has none: the report then says so instead of
    showing importances, and shows the Gamma-Poisson topics without activations.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(
            f"The report path {str(path)!r} is a folder; give a file name."
        )
    if not path.parent.exists():
        raise ValueError(
            f"Cannot write the report to {str(path)!r}: the folder "
            f"{str(path.parent)!r} does not exist. Create it first."
        )
    html = render_report(collect_report_data(result))
    path.write_text(html, encoding="utf-8")
    return path


# ------------------------------------------------------------------- collect


def collect_report_data(result: AutoResult) -> ReportData:
    """Gather what the report shows from a fitted result.

    Parameters
    ----------
    result : AutoResult
        A fitted result.

    Returns
    -------
    ReportData
        Plain values, ready for :func:`render_report`.
    """
    vectorizer = result.pipeline_.named_steps["vectorizer"]
    importances, note = _importances(result)
    sample = None if result.sample_ is None else result.sample_[0]
    return ReportData(
        target=str(result.target_),
        task=str(result.task_),
        metric=str(result.metric_),
        cv_score=float(result.cv_score_),
        baseline_score=_float(result.baseline_score_),
        n_trials=int(result.n_trials_),
        elapsed_s=float(result.elapsed_s_),
        seed=result.random_state,
        plan=_records(vectorizer.describe()),
        leaderboard=_records(result.leaderboard_, index=False),
        history=_history(result),
        importances=importances,
        topics=_topics(vectorizer, sample, result.random_state),
        best_params=dict(result.best_params_),
        summary=str(result.summary()),
        versions=_versions(),
        importance_note=note,
    )


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _records(frame: pd.DataFrame, *, index: bool = True) -> list[dict[str, Any]]:
    if index and not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    return [
        {str(k): _plain(v) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timedelta):
        return value.total_seconds()
    return value


def _history(result: AutoResult) -> list[tuple[int, float, str]]:
    rows = []
    trials = [] if result.study_ is None else result.study_.trials  # no trial ended
    for trial in trials:
        value = trial.value if trial.state.name == "COMPLETE" else None
        score = float(value) if value is not None else math.nan
        rows.append((int(trial.number), score, trial.state.name.lower()))
    return rows


def _importances(result: AutoResult) -> tuple[list[tuple[str, float, float]], str]:
    from sklearn.inspection import permutation_importance

    if result.sample_ is None:
        return [], _NO_SAMPLE
    X, y = result.sample_
    if result.classes_ is not None:  # the pipeline predicts class codes
        y = pd.Index(result.classes_).get_indexer(np.asarray(y))  # may be unsorted
    if len(X) < 2:
        return [], "Too few sampled rows to measure importances."
    measured = in_own_thread(  # no OpenMP team is left in the caller's thread
        None,
        lambda: permutation_importance(
            result.pipeline_,
            X,
            y,
            scoring=result.metric_,
            n_repeats=_IMPORTANCE_REPEATS,
            random_state=result.random_state,
        ),
        name="report",
    )
    rows = [
        (str(name), float(mean), float(std))
        for name, mean, std in zip(
            X.columns, measured.importances_mean, measured.importances_std, strict=True
        )
    ]
    rows.sort(key=lambda row: (-row[1], row[0]))
    note = (
        f"Drop in {result.metric_} when one original column is shuffled, on "
        f"{len(X):,} training rows, mean and standard deviation of "
        f"{_IMPORTANCE_REPEATS} shuffles. Every feature a column produced moves "
        "with it, so encoded columns are scored as a whole."
    )
    return rows, note


def _topics(
    vectorizer: Any, X: pd.DataFrame | None, random_state: int | None = 0
) -> list[dict[str, Any]]:
    """Topics of the Gamma-Poisson columns, or of topics fitted for the report.

    When the pipeline encodes no column with Gamma-Poisson (min-hash won), a
    :class:`GammaPoissonEncoder` is fitted on the sample of each
    high-cardinality column (at most :data:`_MAX_REPORT_TOPIC_COLUMNS`) so that
    the report still tells what the dirty columns are made of; those entries
    have ``fitted_for_report=True``. Without a sample (``X`` is None), only the
    fitted encoders' topic labels and top words are shown.
    """
    from autocat._gamma_poisson import GammaPoissonEncoder

    encoders = [
        (column, encoder, False)
        for column, encoder in vectorizer.transformers_.items()
        if isinstance(encoder, GammaPoissonEncoder)
        and (X is None or column in X.columns)
    ]
    if not encoders and X is not None:
        high = [
            column
            for column, kind in vectorizer.column_kinds_.items()
            if kind == "high_cardinality" and column in X.columns
        ][:_MAX_REPORT_TOPIC_COLUMNS]
        for column in high:
            values = _as_text(X[column])
            if values.nunique() < 2:
                continue
            encoder = GammaPoissonEncoder(
                n_components=_REPORT_TOPICS, random_state=random_state
            ).fit(pd.DataFrame({column: values}))
            encoders.append((column, encoder, True))
    topics = []
    for column, encoder, fitted_for_report in encoders:
        categories: list[Any] = []
        activations = np.empty((0, len(encoder.topic_labels_)))
        if X is not None:
            counts = X[column].dropna().astype(str).value_counts(sort=True)
            categories = sorted(
                counts.index[:_TOPIC_CATEGORIES], key=lambda c: -counts[c]
            )
            activations = np.asarray(
                encoder.transform(pd.DataFrame({column: categories})), dtype=float
            )
        labels = [str(label) for label in encoder.topic_labels_]
        words = [list(map(str, row)) for row in encoder.top_words(_TOP_WORDS)]
        topics.append(
            {
                "column": str(column),
                "labels": labels,
                "top_words": words,
                "categories": [str(c) for c in categories],
                "activations": activations.tolist(),
                "fitted_for_report": fitted_for_report,
            }
        )
    return topics


def _as_text(values: pd.Series) -> pd.Series:
    """Return the column as encoders get it: ``str``, ``None`` where missing."""
    return pd.Series(
        [None if pd.isna(v) else str(v) for v in values],
        index=values.index,
        dtype=object,
    )


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("autocat", "scikit-learn", "xgboost", "optuna", "pandas", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            if name == "autocat":
                from autocat import __version__

                found[name] = __version__
    return found


# -------------------------------------------------------------------- render

_CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1a202c;
  background: #f7fafc; margin: 0; line-height: 1.45; }
main { max-width: 1000px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 32px 0 8px; border-bottom: 1px solid #e2e8f0;
  padding-bottom: 4px; }
h3 { font-size: 1rem; margin: 20px 0 6px; }
p.lead { color: #4a5568; margin: 0 0 16px; }
.note { color: #4a5568; font-size: 0.9rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr));
  gap: 12px; margin: 16px 0; }
.card { background: white; border: 1px solid #e2e8f0; border-radius: 8px;
  padding: 12px 14px; }
.card .label { color: #4a5568; font-size: 0.8rem; text-transform: uppercase;
  letter-spacing: 0.04em; }
.card .value { font-size: 1.5rem; font-weight: 600; }
.card .sub { font-size: 0.85rem; color: #4a5568; }
.good { color: #276749; } .bad { color: #c53030; }
.scroll { overflow-x: auto; background: white; border: 1px solid #e2e8f0;
  border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 0.85rem; }
th, td { padding: 5px 9px; text-align: left; border-bottom: 1px solid #edf2f7;
  white-space: nowrap; }
th { background: #edf2f7; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { background: #ebf8ff; font-weight: 600; }
.chart { background: white; border: 1px solid #e2e8f0; border-radius: 8px;
  padding: 10px; }
.kind { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 0.8rem;
  background: #edf2f7; }
pre { background: white; border: 1px solid #e2e8f0; border-radius: 8px; padding: 12px;
  overflow-x: auto; font-size: 0.85rem; }
footer { margin-top: 40px; color: #718096; font-size: 0.8rem; }
"""


def render_report(data: ReportData) -> str:
    """Render the report's HTML from plain data.

    Parameters
    ----------
    data : ReportData
        What to show.

    Returns
    -------
    str
        A complete HTML document with inline CSS and SVG, no script and no
        external resource.

    Examples
    --------
    >>> data = ReportData(target="salary", task="regression", metric="r2",
    ...     cv_score=0.91, baseline_score=0.89, n_trials=3, elapsed_s=12.0, seed=0,
    ...     plan=[{"column": "title", "kind": "high_cardinality"}],
    ...     leaderboard=[{"trial": 1, "score": 0.91}, {"trial": 0, "score": 0.89}],
    ...     history=[(0, 0.89, "complete"), (1, 0.91, "complete")],
    ...     importances=[("title", 0.5, 0.02)], topics=[], best_params={},
    ...     summary="", versions={})
    >>> html = render_report(data)
    >>> html.startswith("<!DOCTYPE html>"), "<script" in html, html.count("<svg")
    (True, False, 3)
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>autocat report: {escape(data.target)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        _header(data),
        _plan_section(data),
        _search_section(data),
        _importance_section(data),
        _topics_section(data),
        _params_section(data),
        _footer(data),
        "</main></body></html>",
    ]
    return "\n".join(part for part in parts if part) + "\n"


def _fmt(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, int | np.integer):
        return f"{int(value):,}" if abs(int(value)) >= 10_000 else str(int(value))
    if isinstance(value, float | np.floating):
        value = float(value)
        if not math.isfinite(value):
            return "" if math.isnan(value) else str(value)
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}g}" if abs(value) >= 1 else f"{value:.{digits}f}"
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )


def _table(
    records: list[dict[str, Any]],
    *,
    highlight_first: bool = False,
    kind_column: str = "",
) -> str:
    if not records:
        return '<p class="note">Nothing to show.</p>'
    columns: list[str] = []
    for record in records:
        columns.extend(c for c in record if c not in columns)
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    rows = []
    for i, record in enumerate(records):
        cells = []
        for c in columns:
            value = record.get(c)
            if c == kind_column and value is not None:
                cells.append(f'<td><span class="kind">{escape(str(value))}</span></td>')
            elif _is_number(value):
                cells.append(f'<td class="num">{escape(_fmt(value))}</td>')
            else:
                cells.append(f"<td>{escape(_fmt(value))}</td>")
        css = ' class="best"' if highlight_first and i == 0 else ""
        rows.append(f"<tr{css}>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _header(data: ReportData) -> str:
    gain = data.cv_score - data.baseline_score
    if math.isfinite(gain):
        css = "good" if gain >= 0 else "bad"
        delta = f'<span class="{css}">{gain:+.4f}</span> vs. paper default'
    else:
        delta = "no baseline score"
    minutes, seconds = divmod(data.elapsed_s, 60)
    elapsed = f"{int(minutes)} min {seconds:.0f} s" if minutes else f"{seconds:.1f} s"
    cards = [
        ("CV score", _fmt(data.cv_score), f"{escape(data.metric)}, {delta}"),
        (
            "Paper default",
            _fmt(data.baseline_score),
            "min-hash d=30 + XGBoost, same folds",
        ),
        ("Trials", str(data.n_trials), f"in {elapsed}"),
        ("Task", escape(data.task), f"seed {escape(str(data.seed))}"),
    ]
    html_cards = "".join(
        f'<div class="card"><div class="label">{label}</div>'
        f'<div class="value">{value}</div><div class="sub">{sub}</div></div>'
        for label, value, sub in cards
    )
    chart = _svg.bar_chart(
        ["best pipeline (cross-validated)", "paper default (min-hash d=30)"],
        [data.cv_score, data.baseline_score],
        colors=[_svg.BLUE, _svg.ORANGE],
        title=f"cross-validated {data.metric}",
        xlabel=f"cross-validated {data.metric} (greater is better)",
        value_format="{:.4f}",
        dots=True,
    )
    return (
        f"<h1>autocat report: predicting <code>{escape(data.target)}</code></h1>"
        f'<p class="lead">{escape(data.task)} task scored by {escape(data.metric)}; '
        "an Optuna search over encoders and XGBoost settings, the best pipeline "
        "refitted on all rows.</p>"
        f'<div class="cards">{html_cards}</div><div class="chart">{chart}'
        '<p class="note">The axis is zoomed to the scores; it does not start at '
        "zero.</p></div>"
    )


def _plan_section(data: ReportData) -> str:
    return (
        "<h2>How each column is encoded</h2>"
        '<p class="note">The fitted TableVectorizer\'s decision for every input '
        "column: its kind, what it is made of and the transformer applied.</p>"
        + _table(data.plan, kind_column="kind")
    )


def _search_section(data: ReportData) -> str:
    history = _svg.history_chart(
        [t for t, _, _ in data.history],
        [s for _, s, _ in data.history],
        reference=data.baseline_score,
        reference_label="paper default",
        title="optimisation history",
        ylabel=f"CV {data.metric}",
    )
    n_other = sum(1 for _, s, _ in data.history if not math.isfinite(s))
    other = (
        f" {n_other} trial(s) without a score (pruned or failed) are grey crosses."
        if n_other
        else ""
    )
    shown = data.leaderboard[:_LEADERBOARD_ROWS]
    more = (
        f" The {len(shown)} best of {len(data.leaderboard)} trials are listed."
        if len(data.leaderboard) > len(shown)
        else ""
    )
    return (
        "<h2>Search</h2><h3>Optimisation history</h3>"
        '<p class="note">Cross-validated score of each trial (dots) and the best '
        f"so far (line); the dashed line is the paper-default pipeline.{other}</p>"
        f'<div class="chart">{history}</div>'
        f'<h3>Leaderboard</h3><p class="note">Best first.{more}</p>'
        + _table(shown, highlight_first=True)
    )


def _importance_section(data: ReportData) -> str:
    if not data.importances:
        note = data.importance_note or "No importances were measured."
        return f'<h2>Importance of each column</h2><p class="note">{escape(note)}</p>'
    chart = _svg.bar_chart(
        [name for name, _, _ in data.importances],
        [mean for _, mean, _ in data.importances],
        errors=[std for _, _, std in data.importances],
        title="permutation importance by original column",
        xlabel=f"drop in {data.metric} when the column is shuffled",
        value_format="{:.4f}",
    )
    return (
        "<h2>Importance of each column</h2>"
        f'<p class="note">{escape(data.importance_note)}</p>'
        f'<div class="chart">{chart}</div>'
    )


def _topics_section(data: ReportData) -> str:
    if not data.topics:
        return ""
    parts = [
        "<h2>Gamma-Poisson topics</h2>",
        '<p class="note">Each Gamma-Poisson column is encoded as activations of '
        "latent topics, named after the substrings that activate them most. The "
        "map shows the topics of the most frequent categories (each row scaled "
        "to its largest activation).</p>",
    ]
    for topic in data.topics:
        words = [
            {"topic": label, "top words": ", ".join(top)}
            for label, top in zip(topic["labels"], topic["top_words"], strict=False)
        ]
        chart = ""
        if topic["categories"]:
            chart = _svg.heatmap(
                topic["categories"],
                topic["labels"],
                topic["activations"],
                title=f"topic activations of {topic['column']}",
            )
        parts.append(f"<h3>{escape(topic['column'])}</h3>")
        if topic.get("fitted_for_report"):
            parts.append(
                '<p class="note">The model encodes this column with min-hash; these '
                f"{len(topic['labels'])} topics were fitted on the sampled rows for "
                "this report only, to show what the column is made of.</p>"
            )
        parts.append(_table(words))
        if chart:
            parts.append(f'<div class="chart" style="margin-top:10px">{chart}</div>')
        else:
            parts.append(
                '<p class="note">No training rows in this result (loaded from a '
                "model file saved without them): the activations of frequent "
                "categories are not shown.</p>"
            )
    return "".join(parts)


def _params_section(data: ReportData) -> str:
    params = [
        {"parameter": k, "value": _fmt(v)} for k, v in sorted(data.best_params.items())
    ]
    summary = (
        f"<h3>Summary</h3><pre>{escape(data.summary)}</pre>" if data.summary else ""
    )
    return (
        '<h2>Best parameters</h2><div style="max-width:560px">'
        + _table(params)
        + "</div>"
        + summary
    )


def _footer(data: ReportData) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in data.versions.items())
    return f"<footer>Made with {escape(versions)}.</footer>"
