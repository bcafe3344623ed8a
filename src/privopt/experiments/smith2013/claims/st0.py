"""Claims ST0.a (TBAP's exact error moment) and ST0c.a–b (beyond the paper: the continual counters' variances)."""

from __future__ import annotations

import math

import numpy as np

from privopt.pipeline.claims import MIN_SEEDS, Outcome, finite, fmt_fixed
from privopt.pipeline.parts import judge, outcome
from privopt.experiments.smith2013.claims.deciding import BEYOND, CLAIMS


# ----------------------------------------------------------------------------- ST-0


@CLAIMS.claim("ST0.a", "st0", "TBAP's error has the exact second moment E‖v̂_t − v_t‖² = popcount(t)·d(d+1)·λ².",
              "Σ_t mean ‖v̂_t − v_t‖² / Σ_t popcount(t)d(d+1)λ² within 1 ± 0.05 for every d", needs=("st0",),
              details="interval: ratio ± 1.96·s, s the theory-weighted r.m.s. spread of the per-t ratios about "
                      "the total (a bound on the total's standard error when the t share their tree nodes)")
def _st0a(tables, settings):
    t = tables["st0"]
    out = []
    for d, g in t.groupby("d"):
        # every t's value, not pandas' sum that skips a NaN (a missing t would read as a smaller error)
        finite(g["mean_sq"].to_numpy(), g["theory_sq"].to_numpy(), what=f"d = {d}: a mean or theoretical ‖v̂_t − v_t‖²")
        ratio = float(g["mean_sq"].sum() / g["theory_sq"].sum())
        w = (g["theory_sq"] / g["theory_sq"].sum()).to_numpy()
        per_t = (g["mean_sq"] / g["theory_sq"]).to_numpy()
        spread = math.sqrt(float(np.sum(w * (per_t - ratio) ** 2)))
        per = g.groupby("popcount").apply(lambda x: x["mean_sq"].sum() / x["theory_sq"].sum(), include_groups=False)
        part = judge(f"d = {d}: ratio", ratio, spread, int(g["n"].min()), lo=0.95, hi=1.05,
                     fmt=lambda x: fmt_fixed(x, 4))
        out.append(outcome([part], reading=f"d={d}",
                           details=f"{int(g['n'].iloc[0])} trees, T = {len(g)}; per popcount class: "
                                   f"{fmt_fixed(per.min(), 3)}–{fmt_fixed(per.max(), 3)}"))
    return out


# ----------------------------------------------------------------------------- ST-0c (new, beyond the paper)


@CLAIMS.claim("ST0c.a", "st0c", BEYOND + "Every continual counter's released prefix sum has exactly its formula's "
              "variance: the measured mean N_i(t)² over the draws and coordinates matches Var N_i(t) at every t.",
              "every per-t ratio measured/formula inside its χ²_ν/ν interval at level 0.05/(K·T) (Bonferroni over t "
              "and the K counters: all inside with probability ≥ 95 %), every counter of every guarantee", needs=("st0c",),
              details="ν = draws·p for Gaussian seeds (exact χ² law); draws·2p(p + 1)/(4p + 6) for the ℓ2-Laplace "
                      "seeds (Satterthwaite's degrees of freedom of one seed's Σ_i z_i², the most kurtotic case)")
def _st0ca(tables, settings):
    t = tables["st0c"]
    out = []
    for (g, c), x in t.groupby(["guarantee", "counter"], sort=False):
        n = int(x["n"].min())
        ratio = x["ratio"].to_numpy(dtype=np.float64)
        finite(float(ratio.sum()), what=f"{g} {c}: ratios")
        outside = int(((ratio < x["tol_lo"]) | (ratio > x["tol_hi"])).sum())
        pooled = float(x["mean_sq"].sum() / x["var"].sum())
        text = (f"{g} {c}: per-t ratio {fmt_fixed(ratio.min(), 3)}–{fmt_fixed(ratio.max(), 3)} (tolerance "
                f"{fmt_fixed(float(x['tol_lo'].min()), 3)}–{fmt_fixed(float(x['tol_hi'].max()), 3)}), "
                f"{outside} of {len(x)} t outside; pooled over t {fmt_fixed(pooled, 4)}")
        if not x[["tol_lo", "tol_hi"]].notna().all().all():
            out.append(Outcome(text + " (no tolerance: a zero spread)", None, reading=f"{g} {c}", needs="draws ≥ 2"))
        elif outside == 0:
            out.append(Outcome(text, True, reading=f"{g} {c}", details=f"{n} draws, p = {int(x['p'].iloc[0])}"))
        elif n < MIN_SEEDS:
            out.append(Outcome(text + f" ({n} draws)", None, reading=f"{g} {c}", needs=f"≥ {MIN_SEEDS} draws"))
        else:
            out.append(Outcome(text, False, reading=f"{g} {c}", details=f"{n} draws, p = {int(x['p'].iloc[0])}"))
    return out


@CLAIMS.claim("ST0c.b", "st0c", BEYOND + "Honaker's estimator on the same tree has a smaller variance than the tree's "
              "at every t > 1, and the measured mean-over-t variance ratio to the tree is the formula's.",
              "formula: Var_Honaker(t) < Var_tree(t) at every t > 1; measured ratio of the means over t: its 95 % "
              "interval (over the draws) contains the formula's ratio, every guarantee", needs=("st0c_ratio", "st0c"))
def _st0cb(tables, settings):
    t, r = tables["st0c"], tables["st0c_ratio"]
    out = []
    for g, x in r.groupby("guarantee", sort=False):
        rows = x.set_index("counter")
        if "honaker" not in rows.index or "tree" not in rows.index:
            out.append(Outcome(f"{g}: tree or honaker did not run", None, reading=g, needs="both counters run"))
            continue
        h, n = rows.loc["honaker"], int(rows["n"].min())
        tree_var = t[(t["guarantee"] == g) & (t["counter"] == "tree")].set_index("t")["var"]
        hon_var = t[(t["guarantee"] == g) & (t["counter"] == "honaker")].set_index("t")["var"]
        finite(tree_var.to_numpy(), hon_var.to_numpy(), what=f"{g}: a formula variance of the tree or Honaker")
        later = tree_var.index > 1
        below = bool((hon_var[later] < tree_var[later]).all())
        est, lo, hi, formula = (float(h[k]) for k in ("ratio", "ratio_lo", "ratio_hi", "ratio_formula"))
        finite(est, what=f"{g}: measured ratio")
        text = (f"{g}: measured ratio {fmt_fixed(est, 4)} (95 % {fmt_fixed(lo, 4)} … {fmt_fixed(hi, 4)}), formula "
                f"{fmt_fixed(formula, 4)}; formula below the tree at every t > 1: {'yes' if below else 'no'}")
        if not below:
            holds, needs = False, ""
        elif lo <= formula <= hi:
            holds, needs = True, ""
        elif n < MIN_SEEDS:
            holds, needs = None, f"≥ {MIN_SEEDS} draws"
        else:
            holds, needs = False, ""
        out.append(Outcome(text, holds, reading=g, needs=needs,
                           details=f"{n} draws; gain {fmt_fixed(100 * (1 - est), 1)} % of the tree's variance"))
    return out
