"""Claims S.1 and S.2 (Figure 4's audited rounds: the bounds of Prop. 9 and the confidence set)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as _st

from privopt.pipeline.claims import Inconclusive, Outcome, decide
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.experiments.shariff2018.claims.deciding import CLAIMS, LEVEL


# ----------------------------------------------------------------------------- all


S1_THRESHOLD = 0.99   # shariff2018 reading R20, S.1: bounds hold on ≥ 99% of audited rounds, per private configuration
S2_THRESHOLD = 1.0    # shariff2018 reading R20, S.2: the confidence set contains θ* on all audited rounds
S1_SAMPLE = 10_000    # shariff2018 reading R20, S.1: audited rounds per private configuration


def _pct(x: float) -> str:
    return "nan" if not math.isfinite(x) else f"{100 * x:.2f}%"


def _is_private(audit: pd.DataFrame) -> pd.Series:
    return audit["mechanism"] != "none" if "mechanism" in audit else audit["variant"] != "nonprivate"


def audit_checks(audit: pd.DataFrame) -> pd.DataFrame:
    """Per audited round, whether each bound holds (non-finite values, e.g. H_t not PD, count as violations):
    ``lam_min_ok`` ρ_min ≤ λ_min(H_t), ``lam_max_ok`` λ_max(H_t) ≤ ρ_max, ``h_ok`` ‖h_t‖_{H_t⁻¹} ≤ γ,
    ``s1`` all three (NaN for non-private variants, to which S.1 does not apply), ``s2`` ‖θ* − θ̃_t‖_{V_t} ≤ β_t."""
    out = pd.DataFrame({"gap": audit["gap"], "variant": audit["variant"]})
    out["lam_min_ok"] = audit["lambda_min_H"] >= audit["rho_min"]
    out["lam_max_ok"] = audit["lambda_max_H"] <= audit["rho_max"]
    out["h_ok"] = audit["h_norm_Hinv"] <= audit["gamma"]
    s1 = (out["lam_min_ok"] & out["lam_max_ok"] & out["h_ok"]).astype(float)
    out["s1"] = s1.where(_is_private(audit))
    out["s2"] = (audit["conf_norm_V"] <= audit["beta"]).astype(float)
    return out


def audit_shares(audit: pd.DataFrame) -> pd.DataFrame:
    """Per configuration (variant, gap): audited rounds ``n`` and the shares ``s1`` (NaN for NonPrivate),
    ``s2``, ``lam_min_ok``, ``lam_max_ok``, ``h_ok`` of rounds where the bounds of S.1/S.2 hold."""
    checks = audit_checks(audit)
    cols = ["s1", "s2", "lam_min_ok", "lam_max_ok", "h_ok"]
    shares = checks.groupby(["variant", "gap"], sort=True)[cols].mean()
    shares.insert(0, "n", checks.groupby(["variant", "gap"], sort=True).size())
    return shares.reset_index()


def _share_parts(shares: pd.DataFrame, checks: pd.DataFrame, col: str) -> list[str]:
    """'variant: pooled share of n (Δ=…: share of n, …)' for each variant with a value of ``col``."""
    parts = []
    for variant, g in shares.dropna(subset=[col]).groupby("variant", sort=True):
        pooled = float(checks.loc[checks["variant"] == variant, col].mean())
        gaps = ", ".join(f"Δ={r.gap:g}: {_pct(getattr(r, col))} of {r.n:,}" for r in g.itertuples())
        parts.append(f"{variant}: {_pct(pooled)} of {int(g['n'].sum()):,} ({gaps})")
    return parts


S1_STATEMENT = "ρ_min ≤ λ_min(H_t), λ_max(H_t) ≤ ρ_max and ‖h_t‖_{H_t⁻¹} ≤ γ on ≥ 99% of audited rounds."
S2_STATEMENT = "The confidence set contains θ*: ‖θ* − θ̃_t‖_{V_t} ≤ β_t on audited rounds."


class _Audit:
    """The audited rounds of Experiment 2 (``fig4_audit``), their checks and per-configuration shares."""

    def __init__(self, tables, settings):
        audit = tables.get("fig4_audit")
        if audit is None or len(audit) == 0:
            off = settings["exp2"].get("audit_rounds") == 0
            raise Inconclusive("not audited: " + ("the audit is off (shariff2018.exp2.audit_rounds = 0)" if off
                                                  else "no audited rounds in the Exp. 2 runs"),
                               needs="audited rounds (shariff2018.exp2.audit_rounds > 0)")
        self.audit = audit
        self.checks, self.shares = audit_checks(audit), audit_shares(audit)
        per_run = audit.groupby(["gap", "variant", "seed"]).size()
        lo_n, hi_n = int(per_run.min()), int(per_run.max())
        self.sampling = (f"Exp. 2 runs; {lo_n if lo_n == hi_n else f'{lo_n}–{hi_n}'} rounds per run drawn at random "
                         f"(seeded audit stream), at least {int(self.shares['n'].min()):,} per (variant, Δ)")


@CLAIMS.claim("S.1", "fig4", S1_STATEMENT,
              f"≥ {S1_THRESHOLD:.0%} of audited rounds in every private configuration (variant, Δ)")
def _s1(tables, settings) -> Outcome:
    """S.1 per private configuration (variant ≠ NonPrivate, Δ): share of audited rounds with ρ_min ≤ λ_min(H_t),
    λ_max(H_t) ≤ ρ_max and ‖h_t‖_{H_t⁻¹} ≤ γ, each ≥ 99%."""
    a = _Audit(tables, settings)
    audit, checks, shares = a.audit, a.checks, a.shares
    private = shares.dropna(subset=["s1"])
    if not len(private):
        return Outcome("no private variant audited", None, details=a.sampling,
                       needs="audited rounds of a private variant")
    worst = float(private["s1"].min())
    extremes = []
    for variant, g in audit[_is_private(audit)].groupby("variant", sort=True):
        c = checks.loc[g.index]
        extremes.append(
            f"{variant}: min λ_min/ρ_min = {_fmt(float((g['lambda_min_H'] / g['rho_min']).min()), 4)}, "
            f"max λ_max/ρ_max = {_fmt(float((g['lambda_max_H'] / g['rho_max']).max()), 4)}, "
            f"max ‖h‖/γ = {_fmt(float((g['h_norm_Hinv'] / g['gamma']).max()), 3)}; shares of the "
            f"λ_min/λ_max/‖h‖ bounds {_pct(float(c['lam_min_ok'].mean()))}/{_pct(float(c['lam_max_ok'].mean()))}/"
            f"{_pct(float(c['h_ok'].mean()))}")
    small = int(private["n"].min()) < S1_SAMPLE
    # the Clopper–Pearson 95% upper end of each configuration's share: below 99% the data exclude the claim
    upper = [_cp_upper(int(round(r.s1 * r.n)), int(r.n)) for r in private.itertuples()]
    holds = decide(worst >= S1_THRESHOLD, min(upper) < S1_THRESHOLD and worst < S1_THRESHOLD)
    details = (a.sampling + " | " + " | ".join(extremes)
               + (f" | design sample: {S1_SAMPLE:,} rounds per configuration" if small else ""))
    return Outcome(f"{len(private)} private configurations, smallest share {_pct(worst)} (95% upper end "
                   f"{_pct(upper[int(np.argmin(private['s1'].to_numpy()))])}); "
                   + "; ".join(_share_parts(shares, checks, "s1")), holds, details=details,
                   needs="" if holds is not None else
                   f"more audited rounds: the interval of the smallest share reaches {S1_THRESHOLD:.0%} "
                   f"(the design: {S1_SAMPLE:,} per configuration)")


def _cp_upper(k: int, n: int, level: float = LEVEL) -> float:
    """Clopper–Pearson upper end of a share of k successes in n."""
    return 1.0 if k >= n else float(_st.beta.ppf(0.5 + level / 2, k + 1, n - k))


@CLAIMS.claim("S.2", "fig4", S2_STATEMENT, "100% of audited rounds in every configuration (variant, Δ)",
              details="exact: one audited round outside the confidence set contradicts it")
def _s2(tables, settings) -> Outcome:
    """S.2 per configuration (all variants): share of audited rounds with ‖θ* − θ̃_t‖_{V_t} ≤ β_t, each 100%."""
    a = _Audit(tables, settings)
    audit, shares = a.audit, a.shares
    worst = float(shares["s2"].min())
    ratio = (audit["conf_norm_V"] / audit["beta"]).groupby(audit["variant"]).max()
    details = (a.sampling + " | max ‖θ* − θ̃_t‖_{V_t}/β_t: "
               + ", ".join(f"{v}: {_fmt(float(r), 3)}" for v, r in ratio.items()))
    return Outcome(f"{len(shares)} configurations, smallest share {_pct(worst)}; "
                   + "; ".join(_share_parts(shares, a.checks, "s2")), worst >= S2_THRESHOLD, details=details)
