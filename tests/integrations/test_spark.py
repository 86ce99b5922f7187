"""autocat on a real Spark session, local[2] (one session for the module)."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17+ on the PATH", allow_module_level=True)

from autocat import GammaPoissonEncoder, MinHashEncoder, TableVectorizer
from autocat.datasets import make_dirty_categories
from autocat.integrations import spark as autocat_spark

# pyspark 4.x warns on every pandas conversion under pandas 3, and its toPandas
# passes pandas' deprecated copy= keyword; removal: when pyspark supports pandas 3
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    ),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("autocat-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "300")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _table(n, seed):
    rng = np.random.default_rng(seed)
    jobs = np.array([f"officer grade {i % 50} unit {i % 7}" for i in range(300)])
    frame = pd.DataFrame(
        {
            "job": jobs[rng.integers(0, 300, n)],
            "dept": rng.choice(["police", "fire dept.", "health"], n),
            "x": rng.normal(size=n),
        }
    )
    frame.loc[::17, "job"] = None
    frame["y"] = frame["x"] * 3 + (frame["dept"] == "police") * 5
    return frame


def test_transform_is_bit_identical_to_in_memory(spark):
    df = _table(1_000, 0)
    features = df[["job", "dept", "x"]]
    vectorizer = TableVectorizer(n_components=6).fit(features)
    # repartition shuffles: collect ids with the encoding to compare row by row
    sdf = spark.createDataFrame(df.reset_index(names="id")).repartition(3)
    encoded = autocat_spark.transform(vectorizer, sdf, keep=["id"])
    names = list(vectorizer.get_feature_names_out())
    assert encoded.columns == [*names, "id"]
    assert {t for _, t in encoded.dtypes[:-1]} == {"float"}
    out = encoded.toPandas().sort_values("id")
    assert out["id"].tolist() == list(range(1_000))
    expected = vectorizer.transform(features)
    assert out[names].to_numpy(np.float32).tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("batch_rows", "cache_mib"), [(None, 0), (None, 256), (500, 0.01), (10**5, 256)]
)
def test_groups_of_batches_and_the_cache_keep_the_bytes(spark, batch_rows, cache_mib):
    # Arrow batches of 300 rows; 2,000 rows of 120 values, with ids to match rows
    df = pd.DataFrame(
        {"job": [f"clerk {i % 120} of unit {i % 7}" for i in range(2_000)]}
    )
    encoder = MinHashEncoder(n_components=8).fit(df)
    sdf = spark.createDataFrame(df.reset_index(names="id")).repartition(2)
    encoded = autocat_spark.transform(
        encoder, sdf, keep=["id"], batch_rows=batch_rows, cache_mib=cache_mib
    )
    out = encoded.toPandas().sort_values("id")
    assert out["id"].tolist() == list(range(2_000))
    names = list(encoder.get_feature_names_out())
    assert out[names].to_numpy(np.float32).tobytes() == encoder.transform(df).tobytes()


def test_minhash_encoder_on_spark_keeps_row_order(spark):
    df = pd.DataFrame({"job": [f"value {i % 97}" for i in range(700)]})
    encoder = MinHashEncoder(n_components=5).fit(df)
    out = autocat_spark.transform(encoder, spark.createDataFrame(df)).toPandas()
    assert out.to_numpy(np.float32).tobytes() == encoder.transform(df).tobytes()


def test_transform_rejects_bad_arguments(spark):
    df = _table(20, 1)
    vectorizer = TableVectorizer().fit(df[["job", "x"]])
    with pytest.raises(TypeError, match=r"takes a Spark DataFrame; got DataFrame"):
        autocat_spark.transform(vectorizer, df)
    sdf = spark.createDataFrame(df)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['job'\]"):
        autocat_spark.transform(vectorizer, sdf.drop("job"))
    with pytest.raises(ValueError, match=r"keep=\['id'\] are not columns"):
        autocat_spark.transform(vectorizer, sdf, keep=["id"])
    with pytest.raises(ValueError, match=r"'cache_mib' .* must be a number >= 0"):
        autocat_spark.transform(vectorizer, sdf, cache_mib="64")
    with pytest.raises(ValueError, match=r"'batch_rows' .* must be an int >= 1"):
        autocat_spark.transform(vectorizer, sdf, batch_rows=0)


def test_gamma_poisson_map_reduce_fit(spark):
    X, _ = make_dirty_categories(kind="typos", n_samples=1_500, random_state=0)
    sdf = spark.createDataFrame(X)
    encoder = GammaPoissonEncoder(n_components=4, random_state=0)
    fitted = autocat_spark.fit(encoder, sdf, sample_rows=400, n_epochs=3)
    in_memory = GammaPoissonEncoder(n_components=4, random_state=0).fit(X)
    assert fitted._kl_divergence(X) <= 1.10 * in_memory._kl_divergence(X)
    assert fitted._models[0].n_columns == in_memory._models[0].n_columns
    with pytest.raises(TypeError, match="fits a GammaPoissonEncoder; got"):
        autocat_spark.fit(TableVectorizer(), sdf)


@pytest.mark.slow
def test_fit_xgboost_trains_on_all_rows(spark):
    df = _table(800, 2)
    features = df[["job", "dept", "x"]]
    vectorizer = TableVectorizer(n_components=4).fit(features.iloc[:100])
    pipeline = autocat_spark.fit_xgboost(
        vectorizer, spark.createDataFrame(df), "y", n_estimators=50, max_depth=3
    )
    assert pipeline[-1].get_booster().num_boosted_rounds() == 50
    residual = pipeline.predict(features) - df["y"].to_numpy()
    assert np.sqrt(np.mean(residual**2)) < 0.2 * df["y"].std()
