"""Recovery of latent categories on the paper's simulations (Table 4), vs skrub.

Question: does ``GammaPoissonEncoder`` recover the latent categories of dirty
columns at least as well as the paper reports (Cerda & Varoquaux 2020, Table 4)
and as skrub's ``GapEncoder``, measured the same way in the same run?

Protocol (paper section 4.1.1): simulate ``n_samples`` entries with
``autocat.datasets.make_dirty_categories`` ('multilabel' or 'typos', 8 animal
names), fit the encoder on them, encode the 8 true category names, and compute
the NMI of that encoding (absolute values, rows l1-normalised, viewed as a joint
distribution) with ``recovery_nmi``. Mean and standard deviation over seeds, for
d = 6, 8, 10. Each encoder runs with its default parameters, ``n_components=d``
and ``random_state=seed``.

Run from the repository root (about 2 minutes on a laptop core; skrub optional)::

    PYTHONPATH=. python tests/benchmarks/bench_recovery.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import time
import warnings

import numpy as np
import pandas as pd
import sklearn

import autocat
from autocat import GammaPoissonEncoder, MinHashEncoder
from autocat.datasets import make_dirty_categories
from autocat.datasets._simulations import ANIMALS, recovery_nmi

PAPER = {  # Table 4, Gamma-Poisson
    ("multilabel", 6): 0.76, ("multilabel", 8): 0.82, ("multilabel", 10): 0.79,
    ("typos", 6): 0.77, ("typos", 8): 0.83, ("typos", 10): 0.80,
}  # fmt: skip
NAMES = pd.DataFrame({"category": list(ANIMALS)})


def autocat_gp(X, d, seed):
    encoder = GammaPoissonEncoder(n_components=d, random_state=seed).fit(X)
    return encoder.transform(NAMES)


def autocat_minhash(X, d, seed):
    return MinHashEncoder(n_components=d).fit(X).transform(NAMES)


def skrub_gap(X, d, seed):
    from skrub import GapEncoder

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = GapEncoder(n_components=d, random_state=seed).fit(X["category"])
        return encoder.transform(NAMES["category"]).to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-samples", type=int, default=1000)
    args = parser.parse_args()
    encoders = {"autocat GammaPoisson": autocat_gp, "autocat MinHash": autocat_minhash}
    if importlib.util.find_spec("skrub") is not None:
        import skrub

        encoders["skrub GapEncoder"] = skrub_gap
        skrub_version = skrub.__version__
    else:
        skrub_version = "not installed"
    print(
        f"autocat {autocat.__version__}, skrub {skrub_version}, scikit-learn "
        f"{sklearn.__version__}, Python {platform.python_version()}, "
        f"{platform.processor() or platform.machine()}"
    )
    print(f"n_samples={args.n_samples}, seeds 0..{args.seeds - 1}; NMI mean ± std\n")
    rows = []
    for kind in ("multilabel", "typos"):
        for d in (6, 8, 10):
            row = {"kind": kind, "d": d, "paper GP": PAPER[kind, d]}
            for name, encode in encoders.items():
                scores, seconds = [], 0.0
                for seed in range(args.seeds):
                    X, _ = make_dirty_categories(
                        kind, n_samples=args.n_samples, random_state=seed
                    )
                    start = time.perf_counter()
                    scores.append(recovery_nmi(encode(X, d, seed)))
                    seconds += time.perf_counter() - start
                row[name] = f"{np.mean(scores):.3f} ± {np.std(scores):.3f}"
                row[f"{name} min"] = round(min(scores), 3)
                row[f"{name} s/fit"] = round(seconds / args.seeds, 3)
            rows.append(row)
            print(", ".join(f"{k}: {v}" for k, v in row.items()), flush=True)
    table = pd.DataFrame(rows)
    print()
    columns = ["kind", "d", "paper GP", *encoders]
    print(table[columns].to_string(index=False))


if __name__ == "__main__":
    main()
