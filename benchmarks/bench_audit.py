"""Sampling speed of every privacy audit (privopt.audit), in samples per second.

For each audit and variant (correct, planted) the sampler draws n outputs on input D after
a warm-up call (numba compile / cache load), and the rate n / seconds is printed, together
with the wall time of the audit's quick and paper settings (2 inputs × samples, plus the
event selection and the Clopper–Pearson bounds, estimated from the rate) and of one full
quick ``run_audit`` pair measured directly.

Run by hand, never as a test:  ``python benchmarks/bench_audit.py [--n N] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privopt import audit
from privopt.audit import catalogue


def _rate(a, planted: bool, n: int) -> float:
    rng = np.random.default_rng(0)
    a.sampler(planted, 0, min(n, 16), rng)  # warm-up
    t0 = time.perf_counter()
    a.sampler(planted, 0, n, rng)
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="samples per timing (default: the audit's quick setting / 2)")
    ap.add_argument("--only", nargs="*", default=None, help="audit names")
    args = ap.parse_args()
    print(f"{'audit':22s} {'correct/s':>11s} {'planted/s':>11s} {'quick n':>9s} {'quick s':>8s} "
          f"{'paper n':>9s} {'paper s (est.)':>14s}")
    total_quick = total_paper = 0.0
    for a in catalogue.all_audits():
        if args.only and a.name not in args.only:
            continue
        n = args.n or max(16, a.samples["quick"] // 2)
        rc, rp = _rate(a, False, n), _rate(a, True, n)
        t0 = time.perf_counter()
        for planted in (False, True):
            audit.run_audit(a, planted, a.samples["quick"], seed=0)
        quick = time.perf_counter() - t0
        paper = 2 * a.samples["paper"] * (1 / rc + 1 / rp) + quick - 2 * a.samples["quick"] * (1 / rc + 1 / rp)
        total_quick += quick
        total_paper += paper
        print(f"{a.name:22s} {rc:11.0f} {rp:11.0f} {a.samples['quick']:9d} {quick:8.1f} "
              f"{a.samples['paper']:9d} {paper:14.1f}")
    print(f"{'total':22s} {'':11s} {'':11s} {'':9s} {total_quick:8.1f} {'':9s} {total_paper:14.1f}")


if __name__ == "__main__":
    main()
