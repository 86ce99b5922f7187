from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from xgboost import XGBClassifier, XGBRegressor

from autocat import Recipe
from autocat._recipe import VECTORIZER_PARAMS, pipeline_param_name


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 50
    jobs = rng.choice(["police officer", "bus operator", "nurse"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    y = df["years"].to_numpy() + (df["job"] == "nurse").to_numpy() * 5.0
    return df, y


@pytest.mark.parametrize(
    ("task", "model_type"),
    [
        ("regression", XGBRegressor),
        ("binary", XGBClassifier),
        ("multiclass", XGBClassifier),
    ],
)
def test_build_gives_a_plain_pipeline(task, model_type):
    pipeline = Recipe(task, max_depth=4).build()
    assert isinstance(pipeline, Pipeline)
    assert [name for name, _ in pipeline.steps] == ["vectorizer", "model"]
    model = pipeline.named_steps["model"]
    assert type(model) is model_type
    assert model.get_params()["max_depth"] == 4
    assert model.get_params()["tree_method"] == "hist"
    assert model.get_params()["n_jobs"] == 1
    clone(pipeline)  # a valid scikit-learn estimator


def test_vectorizer_gets_the_recipe_parameters():
    vectorizer = Recipe(n_components=12, cardinality_threshold=40).build_vectorizer()
    params = vectorizer.get_params()
    for name, value in {"n_components": 12, "cardinality_threshold": 40}.items():
        assert params[pipeline_param_name(name).split("__", 1)[1]] == value


def test_gamma_poisson_priors_reach_the_vectorizer():
    recipe = Recipe(encoder="gamma_poisson", gp_alpha=1.5, gp_beta=2.0)
    params = recipe.build().get_params()
    encoder = params[pipeline_param_name("encoder", "gamma_poisson")]
    assert type(encoder).__name__ == "GammaPoissonEncoder"
    assert params[pipeline_param_name("gp_alpha", "gamma_poisson")] == 1.5
    assert params[pipeline_param_name("gp_beta", "gamma_poisson")] == 2.0
    assert params[pipeline_param_name("n_components", "gamma_poisson")] == 30
    with pytest.raises(ValueError, match="'gamma_poisson' encoder only"):
        pipeline_param_name("gp_alpha", "minhash")
    assert recipe.params()["gp_alpha"] == 1.5
    assert "gp_alpha" not in Recipe(gp_alpha=1.5).params()


def test_fit_predict_is_deterministic(table):
    df, y = table
    recipe = Recipe("regression", n_components=8, n_estimators=30, subsample=0.8)
    first = recipe.build().fit(df, y).predict(df)
    second = recipe.build().fit(df, y).predict(df)
    assert first.shape == (len(df),)
    np.testing.assert_array_equal(first, second)


def test_params_round_trip():
    recipe = Recipe("binary", encoder="minhash", n_components=16, learning_rate=0.1)
    assert recipe.params() == {
        "encoder": "minhash",
        "n_components": 16,
        "cardinality_threshold": 30,
        "text_encoder": "minhash",
        "learning_rate": 0.1,
    }
    again = Recipe.from_params("binary", recipe.params())
    assert again == recipe
    assert Recipe.from_params("binary", recipe.params(), n_jobs=2) != recipe
    assert repr(recipe).startswith("Recipe('binary', encoder='minhash'")


def test_build_model_overrides():
    recipe = Recipe("regression", n_estimators=10, random_state=3)
    model = recipe.build_model(n_estimators=50, early_stopping_rounds=5)
    assert model.get_params()["n_estimators"] == 50
    assert model.get_params()["early_stopping_rounds"] == 5
    assert model.get_params()["random_state"] == 3


def test_errors_are_specific():
    with pytest.raises(ValueError, match="task must be one of"):
        Recipe("classification")
    with pytest.raises(ValueError, match="encoder must be one of"):
        Recipe(encoder="onehot")
    with pytest.raises(ValueError, match="text_analyzer must be one of"):
        Recipe(text_analyzer="sentences")
    with pytest.raises(TypeError, match="Did you mean 'max_depth'"):
        Recipe(max_dept=3)


@pytest.mark.parametrize(
    ("task", "n_target_outputs"),
    [("regression", 1), ("binary", 1), ("multiclass", 3)],
)
def test_target_encoding_follows_the_task(table, task, n_target_outputs):
    df, y = table
    # integer labels: only the task tells regression from classes
    labels = (y // 12).astype(int) if task == "multiclass" else (y > 15).astype(int)
    target = np.round(y) if task == "regression" else labels
    recipe = Recipe(task, encoder="target", cardinality_threshold=2, n_estimators=5)
    pipeline = recipe.build().fit(df, target)
    vectorizer = pipeline.named_steps["vectorizer"]
    assert type(vectorizer.transformers_["job"]).__name__ == "TargetEncoder"
    assert len(vectorizer.input_to_outputs_["job"]) == n_target_outputs
    assert pipeline.predict(df.head(4)).shape == (4,)


def test_text_encoder_parameters_reach_the_vectorizer():
    recipe = Recipe(
        text_encoder="text", text_n_components=10, text_analyzer="word", encoder="text"
    )
    params = recipe.build().get_params()
    assert params[pipeline_param_name("text_n_components")] == 10
    assert params[pipeline_param_name("text_analyzer")] == "word"
    assert params[pipeline_param_name("encoder", "text")] == "text"
    minhash = Recipe(text_n_components=10)
    assert minhash.build_vectorizer().text == "minhash"
    assert "text_n_components" not in minhash.params()
    assert minhash.params()["text_encoder"] == "minhash"
    with pytest.raises(ValueError, match="text_encoder must be one of"):
        Recipe(text_encoder="target")


def test_vectorizer_params_key_the_encoding(table):
    df, y = table
    options = {"text_encoder": "text", "specific_transformers": {"job": "text"}}
    base = Recipe("regression", n_components=8, **options)
    same = Recipe("regression", n_components=8, **options)
    same.xgb_params = {"max_depth": 2}  # the model does not change the encoding
    key = tuple(sorted(base.vectorizer_params.items()))
    hash(key)
    assert base.vectorizer_params == same.vectorizer_params
    # the priors belong to Gamma-Poisson; drop_unique_text, drop_identifiers
    # and low_cardinality are listed when set
    listed_when_set = {
        "gp_alpha", "gp_beta", "drop_unique_text", "drop_identifiers",
        "low_cardinality",
    }  # fmt: skip
    assert set(VECTORIZER_PARAMS) - listed_when_set <= set(base.vectorizer_params)
    assert base.vectorizer_params["specific_transformers"] == (("job", "text"),)
    first = base.build_vectorizer().fit_transform(df, y)
    second = same.build_vectorizer().fit_transform(df, y)
    assert first.tobytes() == second.tobytes()
    for other in [
        Recipe("regression", n_components=8),
        Recipe("regression", n_components=8, **options, text_n_components=10),
        Recipe("binary", n_components=8, **options),
        Recipe("regression", n_components=8, **options, drop_unique_text=True),
        Recipe("regression", n_components=8, **options, low_cardinality="categorical"),
    ]:  # fmt: skip
        assert other.vectorizer_params != base.vectorizer_params


def test_specific_transformers_reach_the_vectorizer(table):
    df, y = table
    recipe = Recipe(specific_transformers={"job": "drop"}, n_estimators=5)
    pipeline = recipe.build().fit(df, y)
    assert pipeline.named_steps["vectorizer"].column_kinds_["job"] == "dropped"
    assert recipe == Recipe(specific_transformers={"job": "drop"}, n_estimators=5)
    assert recipe != Recipe(n_estimators=5)


def _largest_leaf(model: XGBClassifier) -> float:
    leaves = model.get_booster().trees_to_dataframe().query("Feature == 'Leaf'")
    return float(leaves["Gain"].abs().max())


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_a_class_model_bounds_its_leaf_steps(task):
    # The state a softmax diverges from: every row confidently of class 0 (its
    # margins), one row of another class. That row's gradient is about -1 and
    # every hessian about 0, so the unbounded step is 1 / reg_lambda = 100;
    # the recipe's classifier bounds it by CLASS_MAX_DELTA_STEP.
    from autocat._recipe import CLASS_MAX_DELTA_STEP

    n_classes = 2 if task == "binary" else 3
    y = np.zeros(50, dtype=int)
    y[0], y[1] = 1, n_classes - 1
    X = np.zeros((50, 1))
    confident = np.full((50, n_classes), -10.0)
    confident[:, 0] = 10.0
    margin = confident[:, 1] - confident[:, 0] if task == "binary" else confident
    settings = {"learning_rate": 1.0, "reg_lambda": 0.01, "min_child_weight": 0.0,
                "n_estimators": 1}  # fmt: skip
    bounded = Recipe(task, **settings).build_model().fit(X, y, base_margin=margin)
    assert bounded.get_params()["max_delta_step"] == CLASS_MAX_DELTA_STEP
    assert _largest_leaf(bounded) == pytest.approx(CLASS_MAX_DELTA_STEP)
    unbounded = Recipe(task, max_delta_step=0, **settings).build_model()
    assert _largest_leaf(unbounded.fit(X, y, base_margin=margin)) > 50.0


def test_a_regression_keeps_xgboost_s_unbounded_steps():
    # squared error's hessian is 1 on every row: nothing to bound
    assert Recipe("regression").build_model().get_params()["max_delta_step"] is None
