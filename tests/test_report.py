"""The HTML report and its inline SVG charts."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET

import pytest

from autocat import _svg
from autocat._report import ReportData, render_report


def parse_svg(svg: str) -> ET.Element:
    """Parse an SVG string, failing on malformed XML."""
    return ET.fromstring(svg)


def make_data(**changes) -> ReportData:
    values = {
        "target": "current_annual_salary",
        "task": "regression",
        "metric": "r2",
        "cv_score": 0.912,
        "baseline_score": 0.894,
        "n_trials": 4,
        "elapsed_s": 75.0,
        "seed": 0,
        "plan": [
            {
                "column": "employee_position_title",
                "kind": "high_cardinality",
                "n_outputs": 30,
                "transformer": "MinHashEncoder(n_components=30)",
            },
            {
                "column": "gender",
                "kind": "low_cardinality",
                "n_outputs": 2,
                "transformer": "OneHotEncoder",
            },
        ],
        "leaderboard": [
            {"trial": 2, "state": "complete", "score": 0.912, "encoder": "minhash"},
            {"trial": 0, "state": "complete", "score": 0.894, "encoder": "minhash"},
            {"trial": 3, "state": "complete", "score": 0.850, "encoder": "gamma"},
            {"trial": 1, "state": "pruned", "score": math.nan, "encoder": "gamma"},
        ],
        "history": [
            (0, 0.894, "complete"),
            (1, math.nan, "pruned"),
            (2, 0.912, "complete"),
            (3, 0.85, "complete"),
        ],
        "importances": [
            ("employee_position_title", 0.6, 0.02),
            ("gender", -0.001, 0.0),
        ],
        "topics": [
            {
                "column": "employee_position_title",
                "labels": ["police, officer", "fire, rescue"],
                "top_words": [["police", "officer"], ["fire", "rescue"]],
                "categories": ["Police Officer II", "Firefighter/Rescuer III"],
                "activations": [[4.2, 0.1], [0.3, 3.9]],
            }
        ],
        "best_params": {"encoder": "minhash", "learning_rate": 0.1},
        "summary": "r2 0.912 vs 0.894",
        "versions": {"autocat": "0.1.0"},
        "importance_note": "Drop in r2 when a column is shuffled.",
    }
    values.update(changes)
    return ReportData(**values)


# --- svg ----------------------------------------------------------------------


def test_bar_chart_is_valid_svg_with_negative_and_missing_values():
    svg = _svg.bar_chart(["a", "b", "c"], [0.5, -0.2, math.nan], errors=[0.1, 0.05, 0])
    root = parse_svg(svg)
    assert root.tag.endswith("svg")
    assert svg.count("<rect") == 2  # no bar for NaN
    assert "n/a" in svg


def test_bar_chart_bars_are_proportional():
    svg = _svg.bar_chart(["small", "large"], [1.0, 4.0])
    widths = [float(w) for w in re.findall(r'<rect [^>]*width="([\d.]+)"', svg)]
    assert widths[1] == pytest.approx(4 * widths[0], rel=0.01)


def test_bar_chart_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="one value per label; got 2 labels and 1"):
        _svg.bar_chart(["a", "b"], [1.0])


def test_history_chart_draws_best_so_far_and_reference():
    svg = _svg.history_chart([0, 1, 2, 3], [0.5, math.nan, 0.7, 0.6], reference=0.55)
    parse_svg(svg)
    assert svg.count("<circle") == 3
    assert "no score" in svg  # the trial without a score is a cross
    assert 'stroke-dasharray="6 4"' in svg  # the reference line
    # the best-so-far path rises once: one horizontal then vertical step
    path = re.search(r'<path d="(M[^"]+)" stroke="#2b6cb0"', svg).group(1)
    assert path.count("V") == 1


def test_history_chart_with_a_single_or_no_finite_score():
    parse_svg(_svg.history_chart([0], [0.8]))
    parse_svg(_svg.history_chart([0, 1], [math.nan, math.nan]))
    parse_svg(_svg.history_chart([], []))


def test_heatmap_shades_each_row_by_its_maximum():
    svg = _svg.heatmap(["x", "y"], ["t0", "t1"], [[2.0, 1.0], [0.0, 0.0]])
    parse_svg(svg)
    opacities = [float(o) for o in re.findall(r'fill-opacity="([\d.]+)"', svg)]
    assert opacities == [1.0, pytest.approx(0.52), 0.04, 0.04]


def test_svg_escapes_labels():
    svg = _svg.bar_chart(["<script>alert(1)</script> & co"], [1.0], title='"x"')
    parse_svg(svg)
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg


def test_nice_ticks_cover_the_range():
    for low, high in [(0, 0.93), (-3, 12), (0.9012, 0.9134), (5, 5), (-1e6, 2e6)]:
        ticks = _svg.nice_ticks(low, high)
        assert ticks[0] <= low and ticks[-1] >= high
        assert 3 <= len(ticks) <= 12
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1


# --- html ----------------------------------------------------------------------


def test_report_is_self_contained():
    html = render_report(make_data())
    assert html.startswith("<!DOCTYPE html>")
    lowered = html.lower()
    for forbidden in ("<script", "<link", "http://", "https://", "@import", "url("):
        assert forbidden not in lowered.replace("http://www.w3.org/2000/svg", ""), (
            forbidden
        )
    for svg in re.findall(r"<svg.*?</svg>", html, flags=re.S):
        parse_svg(svg)


def test_report_shows_every_section():
    html = render_report(make_data())
    for text in (
        "How each column is encoded",
        "Optimisation history",
        "Leaderboard",
        "Importance of each column",
        "Gamma-Poisson topics",
        "police, officer",
        "Police Officer II",
        "Best parameters",
        "0.9120",  # CV score
        "+0.0180",  # gain over the paper default
    ):
        assert text in html, text
    assert html.count("<svg") == 4  # scores, history, importances, topics
    assert '<tr class="best">' in html


def test_report_without_topics_or_importances():
    html = render_report(make_data(topics=[], importances=[], importance_note="none"))
    assert "Gamma-Poisson topics" not in html
    assert "none" in html
    assert html.count("<svg") == 2


def test_report_shows_a_loss_against_the_baseline():
    html = render_report(make_data(cv_score=0.85))
    assert 'class="bad">-0.0440' in html


def test_report_escapes_user_strings():
    evil = "<img src=x onerror=alert(1)>"
    html = render_report(
        make_data(
            target=evil,
            plan=[{"column": evil, "kind": "high_cardinality"}],
            importances=[(evil, 0.3, 0.01)],
        )
    )
    assert evil not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_report_is_deterministic():
    assert render_report(make_data()) == render_report(make_data())


# --- from a real AutoResult ----------------------------------------------------------


@pytest.fixture(scope="module")
def regression_result():
    import numpy as np
    import pandas as pd

    import autocat

    rng = np.random.default_rng(0)
    n = 120
    jobs = rng.choice(["Police Officer II", "police officer III", "Bus Operator",
                       "Nurse", "Nurse Aide", "Fire Fighter"], n)  # fmt: skip
    frame = pd.DataFrame(
        {
            "job": jobs,
            "years": rng.integers(0, 30, n),
            "noise": rng.normal(size=n),
        }
    )
    frame["salary"] = 1_000.0 * frame["years"] + 500.0 * frame["job"].str.len()
    return autocat.auto_fit(
        frame, "salary", n_trials=2, cv=2, random_state=0, show_progress=False
    )


def test_collect_from_a_real_result(regression_result):
    from autocat._report import collect_report_data

    data = collect_report_data(regression_result)
    assert data.target == "salary" and data.task == "regression"
    assert data.cv_score == regression_result.cv_score_
    assert [row["column"] for row in data.plan] == ["job", "years", "noise"]
    # importances are per original column, the dominant one first
    assert sorted(name for name, _, _ in data.importances) == ["job", "noise", "years"]
    assert data.importances[0][0] == "years"
    assert data.importances[0][1] > 0.1
    assert len(data.history) == len(regression_result.study_.trials)
    assert len(data.leaderboard) == len(regression_result.study_.trials)
    assert data.seed == 0


def test_write_report_from_a_real_result(regression_result, tmp_path):
    path = regression_result.report(tmp_path / "report.html")
    assert path == tmp_path / "report.html"
    html = path.read_text(encoding="utf-8")
    for svg in re.findall(r"<svg.*?</svg>", html, flags=re.S):
        parse_svg(svg)
    assert "<script" not in html
    assert "years" in html and "Optimisation history" in html
    # same result, same bytes
    again = regression_result.report(tmp_path / "again.html")
    assert again.read_bytes() == path.read_bytes()


def test_write_report_checks_the_path(regression_result, tmp_path):
    from autocat._report import write_report

    with pytest.raises(ValueError, match=r"does not exist\. Create it first"):
        write_report(regression_result, tmp_path / "missing" / "r.html")
    with pytest.raises(ValueError, match="is a folder"):
        write_report(regression_result, tmp_path)


def test_importances_of_a_classifier_use_class_codes():
    import numpy as np
    import pandas as pd

    import autocat
    from autocat._report import collect_report_data

    rng = np.random.default_rng(1)
    n = 90
    frame = pd.DataFrame({"x": rng.normal(size=n), "other": rng.normal(size=n)})
    frame["label"] = np.select([frame["x"] < -0.5, frame["x"] > 0.5],
                               ["low", "high"], "mid")  # fmt: skip
    result = autocat.auto_fit(
        frame, "label", n_trials=1, cv=2, random_state=0, show_progress=False
    )
    data = collect_report_data(result)
    assert data.task == "multiclass" and data.metric == "accuracy"
    assert data.importances[0][0] == "x"
    assert data.importances[0][1] > 0.2


def test_topics_of_gamma_poisson_columns():
    import numpy as np
    import pandas as pd

    import autocat
    from autocat._report import _topics

    rng = np.random.default_rng(0)
    titles = [f"{a} {b}" for a in ("police", "fire", "nurse", "bus", "library")
              for b in ("officer", "aide", "manager", "driver", "clerk",
                        "supervisor", "assistant")]  # fmt: skip
    X = pd.DataFrame({"title": rng.choice(titles, 200), "n": rng.normal(size=200)})
    vectorizer = autocat.TableVectorizer(
        high_cardinality="gamma_poisson", n_components=4, cardinality_threshold=10
    ).fit(X)
    (topic,) = _topics(vectorizer, X)
    encoder = vectorizer.transformers_["title"]
    assert topic["column"] == "title"
    assert topic["labels"] == list(encoder.topic_labels_)
    assert len(topic["top_words"]) == 4
    assert len(topic["categories"]) == 15
    counts = X["title"].value_counts()
    assert topic["categories"][0] == counts.index[0]  # most frequent first
    activations = np.asarray(topic["activations"])
    assert activations.shape == (15, 4)
    assert (activations >= 0).all()
    np.testing.assert_allclose(
        activations,
        encoder.transform(pd.DataFrame({"title": topic["categories"]})),
        rtol=1e-6,
    )
    html = render_report(make_data(topics=[topic]))
    assert topic["labels"][0].split(",")[0] in html


def test_topics_are_fitted_for_the_report_when_min_hash_won():
    import numpy as np
    import pandas as pd

    import autocat
    from autocat._report import _topics

    rng = np.random.default_rng(0)
    titles = [f"{a} {b}" for a in ("police", "fire", "nurse", "bus", "library")
              for b in ("officer", "aide", "manager", "driver", "clerk",
                        "supervisor", "assistant")]  # fmt: skip
    X = pd.DataFrame({"title": rng.choice(titles, 200), "n": rng.normal(size=200)})
    X.loc[:4, "title"] = None
    vectorizer = autocat.TableVectorizer(cardinality_threshold=10).fit(X)
    assert vectorizer.column_kinds_["title"] == "high_cardinality"
    (topic,) = _topics(vectorizer, X, random_state=0)
    assert topic["fitted_for_report"] is True
    assert len(topic["labels"]) == 8
    assert np.asarray(topic["activations"]).shape == (15, 8)
    assert _topics(vectorizer, X, random_state=0) == [topic]  # deterministic
    html = render_report(make_data(topics=[topic]))
    assert "fitted on the sampled rows for this report only" in html
