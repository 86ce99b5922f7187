"""auto_fit: infer the task, tune the recipe, refit the best; and its AutoResult."""

from __future__ import annotations

import logging
import math
import time
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.metrics import get_scorer_names

from autocat._budget import BudgetExhausted, FirstResultDeadline, budget_slack
from autocat._encoder_choice import check_specific
from autocat._ensemble import fold_scorer
from autocat._final import FinalReserve, final_model, warm_kernels
from autocat._learner_trials import LEARNER_ATTR
from autocat._log_target import TARGET_TRANSFORM_MODES, check_log_target
from autocat._members import TrainingRows, refit_trees, single_pipeline, split_rows
from autocat._recipe import TASKS, Recipe
from autocat._rescue import (
    FALLBACK_ROWS,
    RESCUE_XGB_PARAMS,
    Insurance,
    cut_trial_or_rescue,
    rescue_holdout_score,
    rescue_model,
    rescue_seconds,
    search_again,
)
from autocat._result import AutoResult
from autocat._search_space import default_params, portfolio
from autocat._splits import make_splits
from autocat._target import (
    check_not_dates,
    encode_target,
    infer_task,
    split_target,
    tokens_as_missing,
    whole_numbers,
)
from autocat._threads import in_own_thread, release_callers_openmp_team
from autocat._trials import EncodingCache, TrialCut, TrialRecord, better_cut
from autocat._tuning import TuneOutcome, first_trial_threads, resolve_threads, tune
from autocat._validation import check_column_names, check_inputs, unknown_metric_message
from autocat._vectorizer_columns import table_checked, warn_once_per_column

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import optuna
    from optuna.trial import FrozenTrial

__all__ = ["auto_fit"]

logger = logging.getLogger("autocat")

DEFAULT_METRICS: dict[str, str] = {
    "regression": "r2",
    "binary": "average_precision",
    "multiclass": "accuracy",
}
# Above this many rows, trials use one holdout fold instead of ``cv`` folds.
HOLDOUT_ROWS = 50_000
# Rows kept in ``AutoResult.sample_`` for permutation importance.
SAMPLE_ROWS = 2_000
# Without n_trials nor time_budget, this many trials run.
DEFAULT_N_TRIALS = 20


def _check_args(
    task: str,
    time_budget: Any,
    n_trials: Any,
    cv: Any,
    metric: Any,
    random_state: Any,
) -> None:
    if task != "auto" and task not in TASKS:
        raise ValueError(f"task must be 'auto' or one of {list(TASKS)}, got {task!r}.")
    if time_budget is not None and (
        not isinstance(time_budget, Real)
        or isinstance(time_budget, bool)
        or time_budget <= 0
    ):
        raise ValueError(
            f"time_budget must be a positive number of seconds, got {time_budget!r}."
        )
    if n_trials is not None and (
        not isinstance(n_trials, Integral)
        or isinstance(n_trials, bool)
        or int(n_trials) < 1
    ):
        raise ValueError(f"n_trials must be a positive int or None, got {n_trials!r}.")
    if isinstance(cv, bool) or not (
        (isinstance(cv, Integral) and int(cv) >= 2) or hasattr(cv, "split")
    ):
        raise ValueError(
            "cv must be an int >= 2 or a scikit-learn splitter such as KFold(3), "
            f"got {cv!r}."
        )
    if metric is not None:
        if not isinstance(metric, str):
            raise TypeError(
                f"metric must be a scikit-learn scorer name such as 'r2', got "
                f"{type(metric).__name__}."
            )
        if metric not in get_scorer_names():
            raise ValueError(unknown_metric_message(metric, task))
    if not isinstance(random_state, Integral) or isinstance(random_state, bool):
        raise TypeError(f"random_state must be an int, got {random_state!r}.")


def _check_target_transform(
    target_transform: Any, task: str, y: np.ndarray, name: str
) -> None:
    if (
        not isinstance(target_transform, str)
        or target_transform not in TARGET_TRANSFORM_MODES
    ):
        raise ValueError(
            "target_transform must be 'none', 'auto' or 'log', got "
            f"{target_transform!r}."
        )
    if target_transform != "none" and task != "regression":
        raise ValueError(
            f"target_transform={target_transform!r} is for regression; the task is "
            f"{task!r}."
        )
    if target_transform == "log":
        check_log_target(y, f"the target {name!r}")


def _make_splits(
    X: pd.DataFrame, y: np.ndarray, task: str, cv: Any, random_state: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    splits = make_splits(X, y, task, cv, random_state)
    if len(y) > HOLDOUT_ROWS:
        logger.info("%d rows > %d: trials use one holdout fold", len(y), HOLDOUT_ROWS)
        return splits[:1]
    return splits


def _fingerprint(
    X: pd.DataFrame, y: np.ndarray, task: str, metric: str, splits: list[Any], seed: int
) -> dict[str, Any]:
    try:
        data_hash = int(pd.util.hash_pandas_object(X, index=False).sum()) % 2**61
    except TypeError:  # unhashable cells (lists, dicts)
        data_hash = -1
    y_hash = int(pd.util.hash_array(np.asarray(y, dtype=object)).sum()) % 2**61
    return {
        "n_rows": len(X),
        "columns": [str(c) for c in X.columns],
        "data_hash": str(data_hash),
        "target_hash": str(y_hash),
        "task": task,
        "metric": metric,
        "n_splits": len(splits),
        "random_state": seed,
    }


@warn_once_per_column()
def auto_fit(
    df: Any,
    target: Any,
    *,
    task: str = "auto",
    time_budget: float | None = None,
    n_trials: int | None = None,
    cv: Any = 5,
    metric: str | None = None,
    pos_label: Any = None,
    random_state: int = 0,
    storage: Any = None,
    study_name: str | None = None,
    n_jobs: int = -1,
    show_progress: bool = True,
    callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]] = (),
    ensemble: bool = True,
    specific_transformers: dict[str, Any] | None = None,
    target_transform: str = "none",
) -> AutoResult:
    """Search min-hash / Gamma-Poisson + XGBoost recipes on a table; ensemble the best.

    The task is inferred from the target. An Optuna study tries a portfolio of
    configurations known to do well on other dirty tables first (those of
    higher learning rates first once a trial runs out of boosting rounds while
    still learning; on a table smaller than those, with their leaf-sum
    parameters scaled down to its rows, see
    :func:`autocat._search_space.portfolio`), then a seeded TPE sampler;
    trials are pruned on the loss of their first fold, except the portfolio's
    first of each encoder. On a table
    with near-unique text (names, titles), one trial measures whether dropping
    it helps (``drop_unique_text`` in ``leaderboard_``); on one with
    identifier codes (tail numbers, product codes), whether keeping them
    helps (``drop_identifiers='indexes'``); with
    ``target_transform='auto'``, on a skewed regression target of values >= 0
    (prices, counts), one trial measures whether XGBoost learns it better on
    the log scale (``target_transform`` in ``leaderboard_``). The second trial
    is a ridge regression on the first one's encoding (of the class
    indicators, with softmax probabilities, for classes; ``learner='linear'``
    in ``leaderboard_``), a candidate of the ensemble that extrapolates trends
    and adds up many small effects, where trees need many splits; the third
    a forest of extremely randomised trees on the same encoding
    (``learner='forest'``), whose errors differ from the boosted trees' (with a
    time budget, within a quarter of the time left, or it stops after its
    first trees); on a table with low-cardinality string columns, once the
    configurations tried first are told, the best trial so far is repeated
    with those columns as category codes, which XGBoost splits on as
    categories (``learner='categorical'``; see
    :class:`~autocat.TableVectorizer`'s ``low_cardinality``). These are
    candidates of the ensemble only: ``pipeline_`` and ``best_params_`` stay
    the best of the other XGBoost trials'. Each
    trial is scored honestly: on every fold, XGBoost's number of trees is
    chosen by early stopping on part of the fold's training rows, and the
    validation rows are only scored. The finished trials' out-of-fold
    predictions are combined by greedy ensemble selection (Caruana et al.,
    2004; for accuracy, on the log loss of the blend), and each member is
    refit on all rows when the budget allows it, otherwise its fold models are
    averaged (for the first member, only its first fold's model when the
    budget allows no more).

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        The table.
    target : str, other column label, or array-like of shape (n_samples,)
        The name of the target column of ``df`` (any scalar label, e.g. ``0``
        for a table read with ``header=None``, or a tuple when the columns are
        a MultiIndex), or the target itself, read by
        position (a Series whose index holds ``df``'s labels in another order
        is refused: align it first). Numbers written as text ("$1,234.50") are
        read as numbers; when they make a regression, a few stray tokens among
        them ("unknown", as for features) are read as missing, so their rows
        are dropped, with a warning. Dates and durations are refused (convert
        them to numbers first).
    task : {'auto', 'regression', 'binary', 'multiclass'}, default='auto'
        ``'auto'`` infers it: numeric targets with many values are regression,
        two values binary, strings and small integer sets multiclass.
    time_budget : float, optional
        Seconds for the whole call, final model included: it ends within 10% (or
        2 s) of it on any number of cores. Trials still running at the end are
        cut and discarded; the returned model is always fully trained. k-fold CV
        is used when at least 10 such trials fit, else the first fold is a
        holdout. If no trial has finished when a third of the budget is left
        (more, up to two thirds, when the rescue recipe on all rows needs it,
        as estimated from its fit on 1,000 rows, made beside the first trial
        when that trial leaves a core free), the search stops and the rest
        trains the rescue recipe (the paper's min-hash encoding, d = 30, and
        XGBoost at learning rate 0.1 with subsampling, trees by early stopping)
        on as many rows as it allows (a growing sample; ``summary()`` says how
        many). If that leaves more time than the search had run, the search
        resumes (its encodings cached), and a trial that finishes replaces the
        rescue recipe; if not, a trial cut after a fold replaces it when better
        on that fold's rows outside its sample (``summary()`` says which).
    n_trials : int, optional
        Trials to run. Without it nor ``time_budget``, 20 trials run.
    cv : int or scikit-learn splitter, default=5
        Folds (shuffled with ``random_state``, stratified for classification).
        Above 50,000 rows only the first fold is used, as a holdout.
    metric : str, optional
        A scikit-learn scorer name; default ``'r2'`` for regression,
        ``'average_precision'`` for binary and ``'accuracy'`` for multiclass
        targets, as in the paper.
    pos_label : object, optional
        The positive class of a binary target, for binary metrics such as
        ``'average_precision'``; default: the label that sorts last. It is the
        last of ``classes_`` and of the ``predict_proba`` columns.
    random_state : int, default=0
        Seeds folds, sampler, encoders and XGBoost.
    storage : str or path, optional
        An Optuna storage URL (``'sqlite:///study.db'``) or a journal file path,
        so that several processes share one study: run the same call in each.
        SQLite cannot lock the queued trial a process takes, so two processes
        may both run one; each keeps its result, the study the first told.
    study_name : str, optional
        The study's name in ``storage``; defaults to ``'autocat-<target>'``.
    n_jobs : int, default=-1
        CPU threads for the whole call (``-1``: all cores). Up to 8 trials run at
        once and share them with their XGBoost models; the refit, and the first
        trial of a time-budgeted search (it runs alone) on a table of 20,000 rows
        or more, use them all. An XGBoost model of your own, fitted or used with
        several threads in the thread that calls ``auto_fit``, slows those
        multithreaded fits (its idle OpenMP threads stay, and make the others
        sleep between parallel regions): give it ``n_jobs=1``, or a thread of
        its own. autocat's own fits and predictions leave no such threads.
    show_progress : bool, default=True
        Show a progress bar (trials, best score, time left) on stderr.
    callbacks : sequence of callables, default=()
        ``callback(study, trial)`` after each trial, as in Optuna.
    ensemble : bool, default=True
        Combine the best trials by greedy ensemble selection; ``False`` returns
        the single best pipeline as ``model_``.
    specific_transformers : dict of str to str or transformer, optional
        Per-column overrides of every recipe's :class:`~autocat.TableVectorizer`,
        e.g. ``{"zip": "onehot", "notes": "text", "id": "drop"}`` (see its
        ``specific_transformers``).
    target_transform : {'none', 'auto', 'log'}, default='none'
        What XGBoost learns on a regression: the target (``'none'``), its
        ``log(1 + y)`` with predictions brought back to ``y``'s scale
        (``'log'``, for targets of values >= 0), or, with ``'auto'``, the log
        when a trial repeating the best of the portfolio's configurations
        measures it better on a skewed target (see :mod:`autocat._log_target`).
        It is not the default: on R² a log model is a bet on the few largest
        values. Measured on six tables, ``'auto'`` was level or a little ahead
        on five and swung between +0.07 and -0.16 on a market value whose few
        giants decide R² (see the README).

    Returns
    -------
    AutoResult
        The final model, the best single pipeline, the study and the scores.

    Raises
    ------
    RuntimeError
        When every trial failed.

    See Also
    --------
    Recipe : Build one configuration by hand.
    suggest_pipeline : The same search space inside your own Optuna objective.

    Notes
    -----
    Reproducibility: with ``n_trials`` and no ``time_budget``, the same data and
    ``random_state`` give the same model, bit for bit, in any process and with
    any ``n_jobs`` (trials are asked and told in batches of 8). A time budget
    makes the number of trials, the CV/holdout choice and whether members are
    refit depend on the machine's speed: it is not reproducible.

    ``cv_score_`` estimates the score of the whole selection: the ensemble (or
    the best trial) is chosen on the out-of-fold predictions of all folds but one
    and scored on the remaining one, in turn (a holdout is cut into five groups
    of rows, fewer for a holdout of under ten rows). That runs after the final
    model's first member is built, and the other members leave its time (each
    averaged from its fold models, or left out, where its refit would take
    that time); when a time budget leaves no room for it, or when the
    holdout is too small to cut, ``cv_score_`` is the best trial's, and
    ``summary()`` says so. With one finished trial nothing was selected, and
    ``cv_score_`` is that trial's own. With none (the rescue recipe), it is the
    rescue's score on rows outside its training sample, a holdout (NaN when it
    trained on all rows). Ctrl-C stops the search and keeps the
    trials that finished. The first call in a new environment compiles the
    encoders' kernels (seconds, once); that time is not used to plan the budget.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import autocat
    >>> rng = np.random.default_rng(0)
    >>> jobs = rng.choice(["police officer", "bus operator", "nurse"], 120)
    >>> df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, 120)})
    >>> df["salary"] = df["years"] * 2.0 + (df["job"] == "nurse") * 10.0
    >>> result = autocat.auto_fit(df, "salary", n_trials=2, cv=3, show_progress=False)
    >>> result.task_, result.metric_, result.n_trials_
    ('regression', 'r2', 2)
    >>> result.predict(df.head(2)).shape
    (2,)
    """
    start = time.monotonic()
    _check_args(task, time_budget, n_trials, cv, metric, random_state)
    deadline = None if time_budget is None else start + float(time_budget)
    if n_trials is None and time_budget is None:
        n_trials = DEFAULT_N_TRIALS
    check_column_names(getattr(df, "columns", ()))
    X, y_raw, target_name = split_target(df, target)
    y_raw = tokens_as_missing(y_raw, target_name, task)
    check_specific(specific_transformers, [str(c) for c in X.columns])
    missing = pd.isna(y_raw)
    if missing.any():
        logger.warning("dropping %d rows whose target is missing", int(missing.sum()))
        X = X.loc[~missing].reset_index(drop=True)
        y_raw = whole_numbers(y_raw[~missing])
    if len(y_raw) < 4:
        raise ValueError(
            f"auto_fit needs at least 4 rows with a target, got {len(y_raw)}."
        )
    check_not_dates(y_raw, target_name, task)
    if task == "auto":
        task, reason = infer_task(y_raw)
        logger.info("task: %s (%s)", task, reason)
    check_inputs(X, y_raw, task=task, metric=metric, target=target_name)
    table_checked()  # the trials' vectorizers need not check for leaks again
    y, classes = encode_target(y_raw, task, pos_label=pos_label, name=target_name)
    _check_target_transform(target_transform, task, y, target_name)
    metric = metric or DEFAULT_METRICS[task]
    n_classes = 0 if classes is None else len(classes)
    scorer = fold_scorer(metric, task=task, n_classes=n_classes or None)
    splits = _make_splits(X, y, task, cv, random_state)
    if storage is not None and study_name is None:
        study_name = f"autocat-{target_name}"
    total_threads, _, _ = resolve_threads(n_jobs, n_trials)
    seed = int(random_state)

    # an idle OpenMP team of the caller's own earlier work would slow every trial
    release_callers_openmp_team()
    warm_kernels()
    insurance = None
    first_result_by = FirstResultDeadline()
    if deadline is not None:
        # beside the first trial when it leaves a core free (on one thread),
        # else before it, on all
        spare = total_threads > first_trial_threads(len(y), n_jobs, n_trials)
        fallback_threads = 1 if spare else total_threads

        def keep_for_rescue(fallback_s: float) -> None:
            if len(y) > FALLBACK_ROWS:
                first_result_by.set(deadline - rescue_seconds(
                    float(time_budget or 0.0), fallback_s, len(y), total_threads,
                    fallback_threads,
                ))  # fmt: skip

        insurance = Insurance(
            X, y, task, seed, specific_transformers,
            background=spare, on_fitted=keep_for_rescue, threads=fallback_threads,
            deadline=deadline,
        )  # fmt: skip
    # The refit of the best trial (or its fold models) and the ensemble's
    # selection (a small share of the budget).
    reserve = FinalReserve(
        len(y),
        splits[0],
        total_threads,
        deadline,
        selection_s=min(2.0, 0.05 * float(time_budget or 0.0)),
    )

    notes: list[str] = []
    final_seconds = 0.0
    cache = EncodingCache()
    fingerprint = _fingerprint(X, y, task, metric, splits, seed)
    if target_transform != "none":  # studies of earlier versions stay resumable
        fingerprint["target_transform"] = target_transform

    first_cut: list[TrialCut] = []  # of a search that ended with none finished

    def all_rows_trees(record: TrialRecord) -> int:
        """Return the trees of ``record`` on all rows, as its refit grows them."""
        return refit_trees(record, len(y), split_rows(splits[0])[0])

    def search(
        until: FirstResultDeadline | None, **overrides: Any
    ) -> TuneOutcome | None:
        options: dict[str, Any] = {
            "task": task,
            "scorer": scorer,
            "splits": splits,
            "n_trials": n_trials,
            "time_budget": time_budget,
            "deadline": deadline,
            "random_state": seed,
            "storage": storage,
            "study_name": study_name,
            "fingerprint": fingerprint,
            "n_jobs": n_jobs,
            "show_progress": show_progress,
            "callbacks": callbacks,
            # scaled to the rows a trial's XGBoost is fitted on
            "portfolio": portfolio(split_rows(splits[0])[0]),
            "n_classes": n_classes,
            "reserve": reserve,
            "specific_transformers": specific_transformers,
            "first_result_by": until,
            "cache": cache,
            "target_transform": target_transform,
        }
        try:
            return tune(X, y, **{**options, **overrides})
        except BudgetExhausted as cut:
            if insurance is None:
                raise
            if isinstance(cut, TrialCut):  # no trial finished, one left folds
                first_cut.append(cut)
            return None

    search_start = time.monotonic()
    try:
        outcome = search(first_result_by)
    except BaseException:
        if insurance is not None:
            insurance.stop()
        raise
    rescue, fallback_s = None, 0.0
    if insurance is not None:
        if outcome is not None and outcome.records:
            insurance.stop()  # not needed: its fit is cut, its thread ends
        else:
            rescue, fallback_s = insurance.get()
    n_fallback = min(len(y), FALLBACK_ROWS)
    rescue_s = fallback_s  # the rescue's last fit, on n_fallback rows
    if outcome is not None and not outcome.records and insurance is None:
        raise RuntimeError(
            "No trial of this call finished (the study's best trial ran in "
            "another process): run more trials."
        )
    if outcome is None or not outcome.records:
        interrupted = outcome is not None and outcome.interrupted
        if not interrupted and deadline is not None:
            searched_s = time.monotonic() - search_start
            rescue, n_fallback, rescue_s = in_own_thread(
                total_threads, rescue_model,
                X, y, task, seed, total_threads, deadline, (rescue, fallback_s),
                specific_transformers,
            )  # fmt: skip
            left = deadline - time.monotonic()
            # A trial costs at least what the rescue recipe's fit on the most
            # rows cost per row (the fewer the rows, the more fixed costs weigh).
            trial_s = rescue_s * len(splits[0][0]) / n_fallback
            if search_again(left, searched_s, trial_s):
                # The rescue's reserve was an overestimate: the trial it cut had
                # cost less than the time now left (its encodings are cached).
                logger.info(
                    "the rescue recipe is trained; %.1fs left: the search resumes",
                    left,
                )
                resumed = search(
                    None,
                    progress_label="autocat (resumed)",
                    time_budget=left,
                    reserve=FinalReserve(
                        len(y), splits[0], total_threads, deadline,
                        selection_s=min(2.0, 0.05 * left),
                    ),
                )  # fmt: skip
                if resumed is not None and resumed.records:
                    outcome = resumed
                    # the first search's trial cut after some folds (same folds)
                    # competes with the resumed search's own
                    for earlier in first_cut:
                        outcome.partial = better_cut(outcome.partial, earlier.record)
                    notes.append(
                        f"no trial finished before the time kept for the rescue "
                        f"recipe; it trained in less, and the search resumed for "
                        f"the {left:.1f}s left"
                    )
    cut_model, versus = None, ""
    best_cut = None  # the better of the searches' cut trials
    for earlier in first_cut:
        best_cut = better_cut(best_cut, earlier.record)
    cut = next((kept for kept in first_cut if kept.record is best_cut), None)
    no_trial = outcome is None or not outcome.records
    if no_trial and cut is not None and rescue is not None and deadline is not None:
        training = TrainingRows(X, y, task, seed, total_threads, specific_transformers)
        cut_model, versus = in_own_thread(
            total_threads, cut_trial_or_rescue,
            cut.record, (rescue, n_fallback), training, splits, metric, deadline,
        )  # fmt: skip
    if cut_model is not None and cut is not None:
        model, pipeline, record = cut_model, single_pipeline(cut_model), cut.record
        notes.append(
            f"time_budget={time_budget:g}s allowed no full trial: {versus}; "
            "raise time_budget for a searched model"
        )
        study, cv_score = cut.study, record.score
        members: list[dict[str, Any]] = [
            {"trial": record.number, "weight": 1.0, "fit": "fold models",
             "score": record.score}
        ]  # fmt: skip
        best_params = {**record.recipe_params, "n_estimators": all_rows_trees(record)}
        n_folds = len(record.fold_scores)
    elif outcome is None or not outcome.records:
        model = pipeline = rescue
        notes.append(
            f"time_budget={time_budget:g}s allowed no full trial: the model is the "
            f"rescue recipe (the paper's min-hash encoding, d = 30, and a regularised "
            f"XGBoost) trained on a sample of {n_fallback:,} of {len(y):,} "
            "rows; raise time_budget for a searched model"
        )
        cut_fallback = insurance is not None and insurance.cut
        if cut_fallback and rescue is not None and n_fallback <= FALLBACK_ROWS:
            trees = rescue.named_steps["model"].get_booster().num_boosted_rounds()
            notes.append(
                f"even the rescue recipe outlasted the budget: its boosting stopped "
                f"at the deadline after {trees} rounds, and keeps the best of them"
            )
        if versus:
            notes.append(versus)
        study = None if outcome is None else outcome.study
        if study is None and cut is not None:  # the trial weighed against it
            study = cut.study
        members = []
        cv_score, n_scored = math.nan, 0
        if rescue is not None and deadline is not None:
            cv_score, n_scored = in_own_thread(
                total_threads, rescue_holdout_score,
                (rescue, n_fallback),
                TrainingRows(X, y, task, seed, total_threads, specific_transformers),
                metric, deadline, rescue_s,
            )  # fmt: skip
        if n_scored:
            notes.append(
                f"the cross-validated score is the rescue recipe's on {n_scored:,} "
                "rows outside its sample (a holdout: none of them was trained on)"
            )
        best_params = {**default_params("minhash"), **RESCUE_XGB_PARAMS}
        if rescue is not None:  # its trees, as early stopping chose them
            best_round = getattr(rescue.named_steps["model"], "best_iteration", None)
            if best_round is not None:
                best_params["n_estimators"] = int(best_round) + 1
        n_folds = 0
    else:
        final = in_own_thread(
            total_threads, final_model,
            outcome, X, y, task, metric, splits, seed, total_threads, deadline,
            ensemble, specific_transformers,
        )  # fmt: skip
        final_seconds = final.seconds
        model, pipeline, members, cv_score = (
            final.model, final.pipeline, final.members, final.cv_score
        )  # fmt: skip
        notes.extend(final.notes)
        study = outcome.study
        best = final.best or outcome.records[0]
        best_params = {**best.recipe_params, "n_estimators": all_rows_trees(best)}
        n_folds = outcome.n_folds
    elapsed = time.monotonic() - start
    if time_budget is not None and elapsed > time_budget + budget_slack(time_budget):
        logger.warning(
            "time_budget=%gs was exceeded (%.1fs): raise time_budget or sample rows",
            time_budget,
            elapsed,
        )
    rng = np.random.default_rng(random_state)
    keep = np.sort(rng.permutation(len(y))[:SAMPLE_ROWS])
    y_user = y_raw if classes is None else classes[y]
    return AutoResult(
        model=model,
        pipeline=pipeline,
        study=study,
        best_params=best_params,
        cv_score=cv_score,
        baseline_score=math.nan if study is None else _baseline_score(study),
        task=task,
        metric=metric,
        target=target_name,
        classes=classes,
        feature_names_in=np.asarray([str(c) for c in X.columns], dtype=object),
        n_rows=len(y),
        n_folds=n_folds,
        sample=(X.iloc[keep].reset_index(drop=True), np.asarray(y_user)[keep]),
        elapsed_s=time.monotonic() - start,
        refit_s=final_seconds,
        cache_info={}
        if outcome is None
        else {
            "hits": outcome.cache.hits,
            "misses": outcome.cache.misses,
            "hit_rate": outcome.cache.hit_rate,
            "encode_seconds": outcome.cache.encode_seconds,
        },
        interrupted=outcome is not None and outcome.interrupted,
        time_budget=time_budget,
        random_state=seed,
        ensemble=members,
        notes=notes,
    )


def _baseline_score(study: optuna.Study) -> float:
    from optuna.trial import TrialState

    # The same recipe: a trial holds drop_unique_text=False only on a table
    # with near-unique text (see autocat._unique_text), and a trial on a log
    # target says so in its user attributes (see autocat._log_target).
    baseline = Recipe(**default_params("minhash")).params()
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if trial.user_attrs.get("target_transform", "none") != "none":
            continue
        if LEARNER_ATTR in trial.user_attrs:
            continue  # another learner on the same parameters
        if trial.value is not None and Recipe(**trial.params).params() == baseline:
            return float(trial.value)
    return math.nan
