"""Sampling speed and quick-scale cost of every privacy audit (privopt.audit), with the audit table.

Every audit of the project (:func:`privopt.pipeline.audits.every_audit`: the library catalogue and every
registered paper's declaration, ``Paper.audits``), once each.  For each audit and configuration (correct, planted, and
subtle where the audit has one) the sampler draws n outputs on input D after a warm-up call (numba
compile / cache load) and the rate n / seconds is printed; then the quick ``run_audit`` of every
configuration is run and its CPU seconds (``time.process_time``, all configurations together) are
printed beside the audit table: claimed ε, exact ε of the instance (correct), ε_lb of the correct
mechanism, of the subtle bug and of the blatant bug, the samples per input and the tightness.

Run by hand, never as a test:  ``python benchmarks/bench_audit.py [--n N] [--only NAME ...] [--csv PATH]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from privopt import audit
from privopt.pipeline.audits import every_audit


def _rate(a, variant: str, n: int) -> float:
    rng = np.random.default_rng(0)
    a.sampler(variant, 0, min(n, 16), rng)  # warm-up
    t0 = time.perf_counter()
    a.sampler(variant, 0, n, rng)
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None,
                    help="samples per rate timing (default: the audit's quick setting / 2)")
    ap.add_argument("--only", nargs="*", default=None, help="audit names")
    ap.add_argument("--rates", action="store_true", help="also time the samplers alone")
    ap.add_argument("--csv", default=None, help="write the table here")
    args = ap.parse_args()
    rows = []
    for a in (entry.audit for entry in every_audit()):
        if args.only and a.name not in args.only:
            continue
        n = a.samples["quick"]
        for v in a.variants():  # warm-up (numba compile / cache load), not timed
            a.sampler(v, 0, 16, np.random.default_rng(0))
        rates = {v: _rate(a, v, args.n or max(16, n // 2)) for v in a.variants()} if args.rates else {}
        t0 = time.process_time()
        got = {v: audit.run_audit(a, v, n, seed=0) for v in a.variants()}
        cpu = time.process_time() - t0
        rows.append({"audit": a.name, "paper": a.paper, "claimed_eps": a.eps, "exact_eps": got["correct"]["exact_eps"],
                     "eps_lb_correct": got["correct"]["eps_lb"],
                     "eps_lb_subtle": got["subtle"]["eps_lb"] if "subtle" in got else float("nan"),
                     "eps_lb_planted": got["planted"]["eps_lb"], "samples": n, "cpu_s": cpu,
                     "tightness": a.tightness,
                     "results": "/".join(got[v]["result"] for v in a.variants()),
                     **{f"rate_{v}": r for v, r in rates.items()}})
    df = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    print(f"total quick CPU seconds: {df['cpu_s'].sum():.1f}")
    if args.csv:
        df.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
