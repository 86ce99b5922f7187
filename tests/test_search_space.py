from __future__ import annotations

import numpy as np
import optuna
import pandas as pd
import pytest
from optuna.distributions import CategoricalDistribution
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    ParameterGrid,
    RandomizedSearchCV,
    cross_val_score,
)

import autocat
from autocat import (
    Recipe,
    param_distributions,
    param_grid,
    suggest_pipeline,
    suggest_vectorizer,
)
from autocat._search_space import SEARCH_SPACE, default_params, suggest_params


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 60
    jobs = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    y = df["years"].to_numpy() * 2.0 + (df["job"] == "nurse").to_numpy() * 10.0
    return df, y


def test_defaults_lie_inside_their_distributions():
    for spec in SEARCH_SPACE:
        dist = spec.distribution
        assert dist._contains(dist.to_internal_repr(spec.default)), spec.name
        for value in spec.grid:
            assert dist._contains(dist.to_internal_repr(value)), (spec.name, value)


def test_default_params_per_encoder():
    minhash = default_params("minhash")
    assert minhash["encoder"] == "minhash"
    assert minhash["n_components"] == 30
    assert "gp_alpha" not in minhash
    gamma = default_params("gamma_poisson")
    assert gamma["gp_alpha"] == 1.1 and gamma["gp_beta"] == 1.0
    with pytest.raises(ValueError, match="encoder must be one of"):
        default_params("onehot")


def test_suggest_params_is_conditional():
    minhash = suggest_params(optuna.trial.FixedTrial(default_params("minhash")))
    assert minhash["text_encoder"] == "minhash"
    text_params = {"text_n_components", "text_analyzer"}
    assert set(minhash) == {s.name for s in SEARCH_SPACE} - {"gp_alpha", "gp_beta"} - (
        text_params
    )
    fixed = {**default_params("minhash"), "text_encoder": "text"}
    fixed.update(text_n_components=30, text_analyzer="both")
    text = suggest_params(optuna.trial.FixedTrial(fixed))
    assert text["text_n_components"] == 30 and text["text_analyzer"] == "both"
    fixed = {**default_params("gamma_poisson"), "gp_alpha": 2.0}
    gamma = suggest_params(optuna.trial.FixedTrial(fixed))
    assert gamma["gp_alpha"] == 2.0
    assert set(gamma) == {s.name for s in SEARCH_SPACE} - text_params


def test_suggest_params_prefix_and_steps():
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    trial = study.ask()
    params = suggest_params(trial, steps=("model",), prefix="ac_")
    assert set(trial.params) == {"ac_" + name for name in params}
    assert "encoder" not in params and "learning_rate" in params
    with pytest.raises(TypeError, match="prefix must be a string"):
        suggest_params(study.ask(), prefix=3)


def test_suggest_vectorizer_builds_the_recipe_vectorizer():
    trial = optuna.trial.FixedTrial(
        {"v_" + k: v for k, v in default_params("minhash").items()}
    )
    vectorizer = suggest_vectorizer(trial, prefix="v_")
    expected = Recipe(encoder="minhash").build_vectorizer()
    assert type(vectorizer) is type(expected)
    # equal parameters, nested ones included; the TextEncoder instances differ
    params = {k: v for k, v in vectorizer.get_params().items() if k != "text"}
    assert params == {k: v for k, v in expected.get_params().items() if k != "text"}


def test_suggest_pipeline_in_a_users_objective(table):
    df, y = table

    def objective(trial):
        pipeline = suggest_pipeline(trial, "regression", prefix="autocat_")
        pipeline.set_params(model__n_estimators=20)
        alpha = trial.suggest_float("my_own_param", 0.0, 1.0)  # the user's own
        return cross_val_score(pipeline, df, y, cv=2).mean() - 0 * alpha

    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.TPESampler(seed=0)
    )
    study.enqueue_trial(
        {"autocat_" + k: v for k, v in default_params("minhash").items()}
    )
    study.optimize(objective, n_trials=2)
    assert len(study.trials) == 2
    assert "autocat_encoder" in study.best_params
    assert study.best_value > 0.5


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_flat_views_name_real_pipeline_parameters(task):
    pipeline_params = Recipe(task).build().get_params()
    space = param_distributions(task)
    assert set(space) <= set(pipeline_params)
    for encoder, grid in zip(
        ["minhash", "gamma_poisson", "target", "text"], param_grid(task), strict=True
    ):
        encoder_params = Recipe(task, encoder=encoder).build().get_params()
        assert set(grid) <= set(encoder_params)
    prefixed = param_distributions(task, prefix="autocat__")
    assert set(prefixed) == {"autocat__" + key for key in space}


def test_views_share_one_source_of_truth():
    space = param_distributions("regression")
    by_name = {spec.name: spec for spec in SEARCH_SPACE}
    assert space["model__max_depth"] is by_name["max_depth"].distribution
    assert isinstance(space["vectorizer__high_cardinality"], CategoricalDistribution)
    grids = param_grid("binary")
    assert grids[0]["vectorizer__high_cardinality"] == ["minhash"]
    (gamma,) = grids[1]["vectorizer__high_cardinality"]
    assert type(gamma).__name__ == "GammaPoissonEncoder"
    assert grids[1]["vectorizer__high_cardinality__n_components"] == [30, 100]
    assert grids[1]["vectorizer__high_cardinality__alpha"] == [1.1]
    assert grids[2]["vectorizer__high_cardinality"] == ["target"]
    assert grids[2]["vectorizer__n_components"] == [30]  # target encoding ignores it
    assert grids[3]["vectorizer__high_cardinality"] == ["text"]
    assert grids[0]["vectorizer__text"] == ["minhash"]  # the paper's recipe
    assert "vectorizer__text__analyzer" not in grids[3]
    assert len(ParameterGrid(grids)) == 18 + 18 + 9 + 18
    assert space["vectorizer__high_cardinality"].choices == (
        "minhash",
        "gamma_poisson",
        "target",
        "text",
    )
    assert space["vectorizer__text"] is by_name["text_encoder"].distribution
    assert "vectorizer__text__n_components" not in space  # conditional
    assert grids[0]["model__learning_rate"] == list(by_name["learning_rate"].grid)


def test_views_check_task_and_prefix():
    with pytest.raises(ValueError, match="task must be one of"):
        param_distributions("clustering")
    with pytest.raises(ValueError, match="task must be one of"):
        param_grid("auto")
    with pytest.raises(TypeError, match="prefix must be a string"):
        param_grid("binary", prefix=None)


def _small_grid(task):
    """The paper's grid restricted to 2 points, to keep the test fast."""
    grid = param_grid(task)[0]
    grid = {key: values[:1] for key, values in grid.items()}
    grid["model__max_depth"] = [3, 6]
    grid["vectorizer__n_components"] = [8]
    return grid


def test_param_grid_in_grid_search_cv(table):
    df, y = table
    pipeline = Recipe("regression", n_estimators=20).build()
    search = GridSearchCV(pipeline, _small_grid("regression"), cv=2)
    search.fit(df, y)
    assert set(search.best_params_) == set(_small_grid("regression"))
    assert search.predict(df.head(3)).shape == (3,)


def test_param_grid_in_randomized_search_cv(table):
    df, y = table
    y_class = (y > np.median(y)).astype(int)
    pipeline = Recipe("binary", n_estimators=20).build()
    search = RandomizedSearchCV(
        pipeline, param_grid("binary")[0], n_iter=2, cv=2, random_state=0
    )
    search.fit(df, y_class)
    assert search.predict_proba(df.head(3)).shape == (3, 2)


# OptunaSearchCV is marked experimental by optuna-integration, and its 5.0 release
# still reports scores through the deprecated optuna.terminator: remove these
# filters once optuna-integration drops both.
@pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")
@pytest.mark.filterwarnings("ignore:`optuna.terminator` module:FutureWarning")
def test_param_distributions_in_optuna_search_cv(table):
    integration = pytest.importorskip(
        "optuna_integration", reason="OptunaSearchCV lives in optuna-integration"
    )
    df, y = table
    pipeline = Recipe("regression", n_estimators=20).build()
    search = integration.OptunaSearchCV(
        pipeline,
        param_distributions("regression"),
        cv=KFold(2),
        n_trials=2,
        random_state=0,
    )
    search.fit(df, y)
    assert len(search.study_.trials) == 2
    assert "vectorizer__n_components" in search.best_params_


def test_public_names_are_reexported():
    for name in ["suggest_pipeline", "suggest_vectorizer", "param_grid", "Recipe"]:
        assert getattr(autocat, name).__module__ == "autocat"


@pytest.mark.parametrize("encoder", ["target", "text"])
def test_new_encoders_in_a_users_objective(table, encoder):
    df, y = table
    fixed = {**default_params(encoder), "text_encoder": "text", "text_n_components": 10}
    fixed["text_analyzer"] = "word"
    trial = optuna.trial.FixedTrial(fixed)
    pipeline = suggest_pipeline(trial, "regression").set_params(model__n_estimators=5)
    pipeline.set_params(vectorizer__cardinality_threshold=2)
    pipeline.fit(df, y)
    vectorizer = pipeline.named_steps["vectorizer"]
    expected = {"target": "TargetEncoder", "text": "TextEncoder"}[encoder]
    assert type(vectorizer.transformers_["job"]).__name__ == expected
    assert vectorizer.text.n_components == 10
