"""Speed of TextEncoder vs skrub's StringEncoder (tf-idf + truncated SVD), same run.

Question (2026-11): how long does the free-text encoder take on a column of
tweet-length text, the first cost of every search trial that tries it, and how
does it compare with skrub's ``StringEncoder``, which does the same thing
(tf-idf of character 3- and 4-grams inside word boundaries, then a truncated
SVD)? Does it keep as much of the tf-idf matrix's energy?

Data: ``--n-unique`` distinct texts (default 20,000) of 8 to 30 words drawn with
Zipf-like frequencies from ``dirty_strings``' 2,000 pseudo-words (5% of the
texts with a typo), drawn into ``--rows`` rows (default 50,000), as
``make_dirty_strings`` draws short values.

Cases: ``fit_transform`` with ``analyzer='char'`` (skrub's analyzer) and
``'both'`` (autocat's default, words and n-grams), at ``n_components`` 30 and 100
(``auto_fit``'s search uses both). skrub's ``StringEncoder`` with the same
``n_components`` is the peer of the ``'char'`` rows. Printed: wall-clock
medians of ``--repeats`` runs (skrub: at most 3), rows/s, tracemalloc's peak
(numpy and Python allocations) of one more autocat call next to its output's
size, and the fraction of the tf-idf matrix's squared norm that the output
keeps (rows of the tf-idf are unit vectors, so it is the output's squared norm
over the rows; skrub's output is scaled back by its ``scaling_factor_``). The
same fraction for both encoders means the SVDs found the same subspace.

Threads: NUMBA/OMP/BLAS set to 1, so the ratio is per core.

Decision (2026-11): the randomised SVD runs in single precision (half the time
of double precision, the same subspace); the tf-idf and the stored components
stay in double precision. Run::

    python tests/benchmarks/bench_text_encoder.py [--no-skrub] [--small]
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS"):  # fmt: skip
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from autocat import TextEncoder  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dirty_strings import _typo, make_vocabulary  # noqa: E402
from one_core import skrub_is_usable, versions_line  # noqa: E402


def make_texts(n_unique: int, n_rows: int, seed: int = 0) -> np.ndarray:
    """Rows of ``n_unique`` distinct texts of 8 to 30 Zipf-drawn pseudo-words."""
    rng = np.random.default_rng(seed)
    vocabulary = make_vocabulary(2_000, seed)
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    distinct: dict[str, None] = {}
    while len(distinct) < n_unique:
        size = int(rng.integers(8, 31))
        words = [vocabulary[i] for i in rng.choice(len(vocabulary), size, p=weights)]
        if rng.random() < 0.05:
            k = int(rng.integers(len(words)))
            words[k] = _typo(words[k], rng)
        distinct[" ".join(words)] = None
    pool = np.asarray(list(distinct), dtype=object)
    indices = np.concatenate(
        [np.arange(n_unique), rng.integers(0, n_unique, max(n_rows - n_unique, 0))]
    )
    rng.shuffle(indices)
    return pool[indices[:n_rows]]


def median_seconds(function, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def kept_energy(output: np.ndarray) -> float:
    """Share of the unit-norm tf-idf rows' squared norm that ``output`` keeps."""
    return float(np.square(output.astype(np.float64)).sum() / len(output))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--n-unique", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-skrub", action="store_true")
    parser.add_argument("--small", action="store_true", help="2,000 rows, 1 repeat")
    args = parser.parse_args()
    if args.small:
        args.rows, args.n_unique, args.repeats = 2_000, 1_000, 1
    use_skrub = skrub_is_usable(args.no_skrub)
    print(versions_line(use_skrub))
    warnings.simplefilter("ignore")
    rows = make_texts(args.n_unique, args.rows)
    frame = pd.DataFrame({"text": rows})
    mean_words = float(np.mean([len(t.split()) for t in rows[:1000]]))
    print(
        f"{len(rows):,} rows, {args.n_unique:,} distinct texts, "
        f"{mean_words:.0f} words per text on average\n"
    )
    for n_components in (30, 100):
        for analyzer in ("char", "both"):
            params = {"n_components": n_components, "analyzer": analyzer}
            ours, out = median_seconds(
                lambda p=params: TextEncoder(**p, random_state=0).fit_transform(frame),
                args.repeats,
            )
            tracemalloc.start()
            TextEncoder(**params, random_state=0).fit_transform(frame)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            line = (
                f"d={n_components:<3} analyzer={analyzer:<4}  autocat "
                f"{ours:6.2f} s ({len(rows) / ours:8,.0f} rows/s), peak "
                f"{peak / 2**20:4.0f} MiB (output {out.nbytes / 2**20:.0f} MiB), "
                f"energy kept {kept_energy(out):.3f}"
            )
            if use_skrub and analyzer == "char":
                from skrub import StringEncoder

                def skrub_fit(n=n_components):
                    encoder = StringEncoder(n_components=n, random_state=0)
                    return encoder, encoder.fit_transform(frame["text"])

                theirs, (encoder, result) = median_seconds(
                    skrub_fit, min(args.repeats, 3)
                )
                scaled = np.asarray(result, dtype=np.float64) * encoder.scaling_factor_
                line += (
                    f"\n{'':23}skrub   {theirs:6.2f} s ({len(rows) / theirs:8,.0f} "
                    f"rows/s), energy kept {kept_energy(scaled):.3f}; "
                    f"skrub / autocat: {theirs / ours:.1f}x"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
