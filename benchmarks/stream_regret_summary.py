"""Final pseudo-regret (mean, SEM over seeds) of a few small Shariff & Sheffet settings, with whatever privopt is on
the path: run once with the previous random stream's checkout (``PYTHONPATH=<old>/src``) to write the table that
``tests/test_stream_change.py`` compares the current stream against (issue 24: the decision sets' normals and T
sampler changed; the laws did not, so the regret distributions must agree).

Run: ``PYTHONPATH=<old checkout>/src python benchmarks/stream_regret_summary.py > tests/data/previous_stream_regret.csv``
"""

from __future__ import annotations

import sys

import numpy as np

from privopt.bandits import BanditInstance, run_episodes, variant_params

#: (variant, d, reward, rounds, seeds): Exp. 1 (uniform T proposal below d = 7, Gaussian envelope from d = 7, both
#: rewards) and Exp. 2's private variants at d = 5 (constants of n = 50,000).  Few dimensions, so few kernel
#: specialisations to compile (one per d, about 20 CPU-s each cold on a fast 2-core AMD host, a minute on a slow
#: one): d = 16 with ±1 rewards replaced d = 8 on 2026-12-02, and d = 5 (the smoke run's) replaced d = 4 for the
#: uniform proposal on 2026-12-04, each row written as the others, with the checkout f64647e (which gives the d = 4
#: row of before to the last digit).
SETTINGS = [("nonprivate", 5, "gaussian", 3000, 300), ("nonprivate", 16, "pm1", 2000, 200),
            ("nonprivate", 16, "gaussian", 2000, 200), ("gaussian", 5, "pm1", 20000, 300),
            ("wishart", 5, "pm1", 20000, 300)]


def summary(variant: str, d: int, reward: str, rounds: int, seeds: int) -> tuple[float, float]:
    n = max(rounds, 50_000) if variant != "nonprivate" else rounds
    batch = run_episodes([variant_params(variant, n, d)], BanditInstance(d=d, gap=0.1, reward=reward), rounds,
                         seeds=range(1000, 1000 + seeds))
    final = batch.runs["final_regret"].to_numpy(dtype=float)
    return float(final.mean()), float(final.std(ddof=1) / np.sqrt(final.size))


def main() -> None:
    print("variant,d,reward,rounds,seeds,mean,sem")
    for s in SETTINGS:
        mean, sem = summary(*s)
        print(",".join(map(str, s)) + f",{mean!r},{sem!r}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
