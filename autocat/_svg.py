"""Small inline SVG charts for the HTML report, with no plotting dependency.

Each function takes plain Python numbers and strings and returns one ``<svg>``
element as a string. Every piece of text is escaped, sizes are in pixels and the
charts scale with the page (``viewBox`` plus ``width="100%"``). Colours come from
a fixed palette so the same data always gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["bar_chart", "heatmap", "history_chart", "nice_ticks"]

BLUE = "#2b6cb0"
ORANGE = "#dd6b20"
GREY = "#a0aec0"
DARK = "#2d3748"
GRID = "#e2e8f0"
_FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\""
_CHAR_WIDTH = 7.2  # generous average width of a 12 px character, for label space


def nice_ticks(low: float, high: float, n: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]``, about ``n`` of them.

    Parameters
    ----------
    low, high : float
        The data range; ``low == high`` is widened around the value.
    n : int, default=5
        Wanted number of intervals.

    Returns
    -------
    list of float
        Increasing ticks, the first ``<= low`` and the last ``>= high``.

    Examples
    --------
    >>> nice_ticks(0.0, 0.93)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(-3.0, 12.0)
    [-5.0, 0.0, 5.0, 10.0, 15.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high < low:
        low, high = high, low
    if high == low:
        pad = abs(low) * 0.1 or 1.0
        low, high = low - pad, high + pad
    raw = (high - low) / max(n, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step + 1e-9) * step
    ticks = [start]
    while ticks[-1] < high - 1e-9 * step and len(ticks) < 50:
        ticks.append(start + len(ticks) * step)
    ticks = [round(tick, 12) + 0.0 for tick in ticks]
    return ticks


def _fmt(value: float) -> str:
    """Short tick label: no trailing zeros, scientific only when huge or tiny."""
    if value == 0:
        return "0"
    if abs(value) >= 1e5 or abs(value) < 1e-3:
        return f"{value:.2g}"
    return f"{value:.6g}"


def _clip_label(text: str, limit: int = 38) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _open(width: float, height: float, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} '
        f'{height:.0f}" width="100%" style="max-width:{width:.0f}px" role="img" '
        f'aria-label="{escape(title)}" {_FONT} font-size="12">',
        f"<title>{escape(title)}</title>",
    ]


def bar_chart(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    errors: Sequence[float] | None = None,
    title: str = "",
    xlabel: str = "",
    colors: Sequence[str] | None = None,
    value_format: str = "{:.3f}",
    dots: bool = False,
    width: int = 860,
) -> str:
    """Horizontal bars, one per label, top to bottom in the given order.

    Parameters
    ----------
    labels : sequence of str
        One label per bar, drawn on the left (long ones are clipped, the full
        text stays in a tooltip).
    values : sequence of float
        Bar lengths; negative values extend left of zero, non-finite ones draw
        no bar and read "n/a".
    errors : sequence of float, default=None
        Half-widths of error whiskers (e.g. a standard deviation).
    title : str, default=''
        Accessible title of the chart.
    xlabel : str, default=''
        Caption under the value axis.
    colors : sequence of str, default=None
        One fill colour per bar; blue by default.
    value_format : str, default='{:.3f}'
        Format of the number printed at the end of each bar.
    dots : bool, default=False
        Draw a dot per value on an axis zoomed to the data (zero not
        included) instead of bars from zero: for close values such as scores.
    width : int, default=640
        Width in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> svg = bar_chart(["title", "department"], [0.41, 0.12], title="importance")
    >>> svg.startswith("<svg") and svg.count("<rect") == 2
    True
    """
    n = len(labels)
    if len(values) != n:
        raise ValueError(
            f"bar_chart needs one value per label; got {n} labels and "
            f"{len(values)} values."
        )
    errs = [0.0] * n if errors is None else [float(e) for e in errors]
    finite = [float(v) for v in values if math.isfinite(v)]
    reach = [
        float(v) + s * e
        for v, e in zip(values, errs, strict=True)
        if math.isfinite(v)
        for s in (-1, 1)
        if math.isfinite(e)
    ]
    anchor = [] if dots and finite else [0.0]
    low = min([*anchor, *finite, *reach])
    high = max([*anchor, *finite, *reach])
    if dots and finite:
        pad = (high - low) * 0.15 or abs(high) * 0.01 or 1.0
        low, high = low - pad, high + pad
    elif low < 0 < high and -low < 0.01 * high:
        low = 0.0  # a hair below zero (a noisy importance) is not worth an axis
    ticks = nice_ticks(low, high if high > low else low + 1.0)
    lo, hi = ticks[0], ticks[-1]
    label_w = (
        min(38, max((len(str(label)) for label in labels), default=4)) * _CHAR_WIDTH
    )
    left = 12 + label_w
    right = 70
    row = 24
    top = 10
    plot_w = width - left - right
    height = top + row * max(n, 1) + 44

    def x(value: float) -> float:
        return left + (value - lo) / (hi - lo) * plot_w

    out = _open(width, height, title)
    for tick in ticks:
        out.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top}" '
            f'y2="{top + row * n}" stroke="{GRID}"/>'
        )
        out.append(
            f'<text x="{x(tick):.1f}" y="{top + row * n + 16}" text-anchor="middle" '
            f'fill="{DARK}">{_fmt(tick)}</text>'
        )
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = top + i * row
        text = str(label)
        out.append(
            f'<text x="{left - 8:.1f}" y="{y + row / 2 + 4:.1f}" text-anchor="end" '
            f'fill="{DARK}"><title>{escape(text)}</title>'
            f"{escape(_clip_label(text))}</text>"
        )
        if not math.isfinite(value):
            out.append(
                f'<text x="{x(0.0) + 4:.1f}" y="{y + row / 2 + 4:.1f}" '
                f'fill="{GREY}">n/a</text>'
            )
            continue
        value = float(value)
        color = colors[i] if colors is not None else BLUE
        if dots:
            x1 = x(value)
            out.append(
                f'<line x1="{left}" x2="{x1:.1f}" y1="{y + row / 2:.1f}" '
                f'y2="{y + row / 2:.1f}" stroke="{GRID}" stroke-width="2"/>'
                f'<circle cx="{x1:.1f}" cy="{y + row / 2:.1f}" r="6" fill="{color}">'
                f"<title>{escape(text)}: {escape(value_format.format(value))}</title>"
                "</circle>"
            )
            out.append(
                f'<text x="{x1 + 10:.1f}" y="{y + row / 2 + 4:.1f}" fill="{DARK}">'
                f"{escape(value_format.format(value))}</text>"
            )
            continue
        x0, x1 = sorted((x(0.0), x(value)))
        out.append(
            f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1.0):.1f}" '
            f'height="{row - 8}" fill="{color}" rx="2">'
            f"<title>{escape(text)}: {escape(value_format.format(value))}</title>"
            "</rect>"
        )
        err = errs[i]
        if err > 0 and math.isfinite(err):
            ex0, ex1 = x(value - err), x(value + err)
            cy = y + row / 2
            out.append(
                f'<path d="M{ex0:.1f},{cy:.1f}H{ex1:.1f}M{ex0:.1f},{cy - 4:.1f}'
                f'V{cy + 4:.1f}M{ex1:.1f},{cy - 4:.1f}V{cy + 4:.1f}" '
                f'stroke="{DARK}" fill="none"/>'
            )
        end = max(x1, x(value + err) if err > 0 and math.isfinite(err) else x1)
        out.append(
            f'<text x="{end + 4:.1f}" y="{y + row / 2 + 4:.1f}" fill="{DARK}">'
            f"{escape(value_format.format(value))}</text>"
        )
    axis = left if dots and finite else x(0.0)
    out.append(
        f'<line x1="{axis:.1f}" x2="{axis:.1f}" y1="{top}" y2="{top + row * n}" '
        f'stroke="{DARK}"/>'
    )
    if xlabel:
        out.append(
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" '
            f'fill="{DARK}">{escape(xlabel)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def history_chart(
    trials: Sequence[int],
    scores: Sequence[float],
    *,
    reference: float | None = None,
    reference_label: str = "baseline",
    title: str = "",
    ylabel: str = "",
    width: int = 860,
    height: int = 300,
) -> str:
    """Score of each trial (dots) and the best score so far (a step line).

    Parameters
    ----------
    trials : sequence of int
        Trial numbers, the x axis.
    scores : sequence of float
        Score of each trial, greater is better; non-finite scores (failed or
        pruned trials) are drawn as grey crosses on the bottom axis.
    reference : float, default=None
        A horizontal dashed line, e.g. the paper-default baseline.
    reference_label : str, default='baseline'
        Its label.
    title : str, default=''
        Accessible title of the chart.
    ylabel : str, default=''
        Caption of the score axis.
    width, height : int, default=640, 300
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> svg = history_chart([0, 1, 2], [0.8, 0.85, 0.83], reference=0.8)
    >>> svg.count("<circle")
    3
    """
    if len(trials) != len(scores):
        raise ValueError(
            f"history_chart needs one score per trial; got {len(trials)} trials and "
            f"{len(scores)} scores."
        )
    points = [(int(t), float(s)) for t, s in zip(trials, scores, strict=True)]
    finite = [s for _, s in points if math.isfinite(s)]
    extra = [reference] if reference is not None and math.isfinite(reference) else []
    values = finite + extra
    ticks = nice_ticks(min(values), max(values)) if values else [0.0, 1.0]
    lo, hi = ticks[0], ticks[-1]
    t_max = max((t for t, _ in points), default=1)
    t_ticks = [t for t in nice_ticks(0, max(t_max, 1)) if t == int(t) and t <= t_max]
    left, right, top, bottom = 64, 20, 12, 46
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(t: float) -> float:
        return left + t / max(t_max, 1) * plot_w

    def y(s: float) -> float:
        return top + (hi - s) / (hi - lo) * plot_h

    out = _open(width, height, title)
    for tick in ticks:
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}" stroke="{GRID}"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'fill="{DARK}">{_fmt(tick)}</text>'
        )
    for tick in t_ticks:
        out.append(
            f'<text x="{x(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'fill="{DARK}">{int(tick)}</text>'
        )
    out.append(
        f'<path d="M{left},{top}V{top + plot_h}H{left + plot_w}" stroke="{DARK}" '
        'fill="none"/>'
    )
    if extra:
        ry = y(extra[0])
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{ry:.1f}" y2="{ry:.1f}" '
            f'stroke="{ORANGE}" stroke-dasharray="6 4" stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{left + plot_w - 4}" y="{ry - 5:.1f}" text-anchor="end" '
            f'fill="{ORANGE}">{escape(reference_label)} {extra[0]:.4g}</text>'
        )
    best = -math.inf
    steps: list[str] = []
    for t, s in sorted(points):
        if math.isfinite(s) and s > best:
            best = s
            move = f"M{x(t):.1f}," if not steps else f"H{x(t):.1f}V"
            steps.append(f"{move}{y(s):.1f}")
    if steps:
        steps.append(f"H{x(t_max):.1f}")
        out.append(
            f'<path d="{"".join(steps)}" stroke="{BLUE}" stroke-width="2" fill="none"/>'
        )
    for t, s in points:
        if math.isfinite(s):
            out.append(
                f'<circle cx="{x(t):.1f}" cy="{y(s):.1f}" r="3.5" fill="{BLUE}" '
                f'fill-opacity="0.55"><title>trial {t}: {s:.4g}</title></circle>'
            )
        else:
            cx, cy = x(t), top + plot_h
            out.append(
                f'<path d="M{cx - 3:.1f},{cy - 3:.1f}l6,6m0,-6l-6,6" stroke="{GREY}">'
                f"<title>trial {t}: no score</title></path>"
            )
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle" '
        f'fill="{DARK}">trial</text>'
    )
    if ylabel:
        out.append(
            f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
            f'fill="{DARK}" transform="rotate(-90 14 {top + plot_h / 2:.1f})">'
            f"{escape(ylabel)}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)


def heatmap(
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    values: Sequence[Sequence[float]],
    *,
    title: str = "",
    width: int = 860,
) -> str:
    """Draw a matrix of shaded cells, darker for larger values in each row.

    Each row is scaled by its own maximum, so a row reads as the share of each
    column in that row (e.g. the topics a category activates).

    Parameters
    ----------
    row_labels : sequence of str
        Labels on the left.
    column_labels : sequence of str
        Labels on top, drawn slanted.
    values : sequence of sequence of float
        ``len(row_labels)`` rows of ``len(column_labels)`` non-negative values.
    title : str, default=''
        Accessible title of the chart.
    width : int, default=640
        Width in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> svg = heatmap(["police", "fire"], ["topic a", "topic b"], [[1, 0], [0.2, 0.9]])
    >>> svg.count("<rect")
    4
    """
    n_rows, n_cols = len(row_labels), len(column_labels)
    if len(values) != n_rows or any(len(row) != n_cols for row in values):
        raise ValueError(
            f"heatmap needs {n_rows} rows of {n_cols} values, one per label; got "
            f"rows of lengths {[len(row) for row in values]}."
        )
    label_w = min(30, max((len(str(r)) for r in row_labels), default=4)) * _CHAR_WIDTH
    left = 10 + label_w
    col_label_h = min(30, max((len(str(c)) for c in column_labels), default=4))
    top = 16 + col_label_h * _CHAR_WIDTH * 0.72
    cell_w = max(
        14.0, min(60.0, (width - left - 10 - col_label_h * 4.6) / max(n_cols, 1))
    )
    cell_h = 20
    real_width = left + cell_w * n_cols + col_label_h * 4.6 + 10
    height = top + cell_h * n_rows + 10
    out = _open(real_width, height, title)
    for j, label in enumerate(column_labels):
        cx = left + (j + 0.5) * cell_w
        out.append(
            f'<text x="{cx:.1f}" y="{top - 6:.1f}" fill="{DARK}" '
            f'transform="rotate(-45 {cx:.1f} {top - 6:.1f})">'
            f"<title>{escape(str(label))}</title>"
            f"{escape(_clip_label(str(label), 30))}</text>"
        )
    for i, (label, row) in enumerate(zip(row_labels, values, strict=True)):
        y = top + i * cell_h
        out.append(
            f'<text x="{left - 6:.1f}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end" '
            f'fill="{DARK}"><title>{escape(str(label))}</title>'
            f"{escape(_clip_label(str(label), 30))}</text>"
        )
        finite_row = [float(v) for v in row if math.isfinite(v)]
        peak = max(finite_row, default=0.0)
        for j, value in enumerate(row):
            share = float(value) / peak if peak > 0 and math.isfinite(value) else 0.0
            share = min(max(share, 0.0), 1.0)
            out.append(
                f'<rect x="{left + j * cell_w:.1f}" y="{y:.1f}" '
                f'width="{cell_w - 1:.1f}" height="{cell_h - 1}" fill="{BLUE}" '
                f'fill-opacity="{0.04 + 0.96 * share:.3f}">'
                f"<title>{escape(str(label))} / {escape(str(column_labels[j]))}: "
                f"{float(value):.3g}</title></rect>"
            )
    out.append("</svg>")
    return "\n".join(out)
