"""The report's findings for Shariff & Sheffet: WishartUnshifted against Wishart (Figure 4), the cost of
over-regularising (Figure 5), Figures 4c/4e, and the claims the data could not decide or contradict."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from privopt.pipeline.claims import INCONCLUSIVE, MIN_SEEDS, NOT_REPRODUCED
from privopt.pipeline.claims import fmt_sig as _fmt
from privopt.pipeline.protocol import Finding
from privopt.pipeline.stats import welch_p as _welch
from privopt.experiments.shariff2018.claims.deciding import _contrast
from privopt.experiments.shariff2018.claims.fig4 import _Fig4
from privopt.experiments.shariff2018.claims.fig5 import _Fig5
from privopt.experiments.shariff2018.claims.fig4c_4e import _f4c_finding, _f4e_finding


# ----------------------------------------------------------------------------- findings

#: claims reported without a gate (their rows are never decided)
DESCRIPTIVE = frozenset({"F5.e"})

_VARIANT_NAMES = {"nonprivate": "NonPrivate", "gaussian": "Gaussian", "wishart": "Wishart",
                  "wishart_unshifted": "WishartUnshifted"}


def _signed_pct(x: float) -> str:
    return f"{abs(100 * x):.1f} % {'below' if x < 0 else 'above'}"


def _wu_finding(tables, settings) -> Finding | None:
    """Figure 4: WishartUnshifted against Wishart at each gap, with p and the interval of the difference."""
    try:
        f = _Fig4(tables, settings)
    except (KeyError, ValueError, IndexError):
        return None
    parts, verdicts = [], []
    for g in sorted(f.gaps, reverse=True):
        if not f.has(g, "wishart", "wishart_unshifted"):
            continue
        a, b = f.vals[g, "wishart_unshifted"], f.vals[g, "wishart"]
        est, lo, hi = _contrast(a, b)
        mb = float(b.mean())
        p = _welch(a, b, "two-sided")
        if not all(math.isfinite(x) for x in (est, mb)) or mb <= 0:
            continue
        rel_lo, rel_hi = lo / mb, hi / mb
        parts.append(f"at Δ = {g:g} WishartUnshifted's mean regret is {_signed_pct(est / mb)} Wishart's "
                     f"(Welch p = {_fmt(p, 2)}; 95 % interval of the difference {100 * rel_lo:+.1f} % to {100 * rel_hi:+.1f} %)")
        if math.isfinite(rel_lo) and math.isfinite(rel_hi):
            verdicts.append((g, rel_lo > 0 or rel_hi < 0))
    if not parts:
        return None
    tier = "paper scale" if not f.quick else "below the paper's settings"
    text = f"Figure 4 at {f.t_lab} ({f.runs_min} runs per variant, {tier}): " + "; ".join(parts)
    if f.runs_min < MIN_SEEDS:
        text += f"; with {f.runs_min} runs these intervals rest on {f.runs_min - 1} degrees of freedom and decide nothing"
    else:
        differ = [g for g, d in verdicts if d]
        text += ("; the two differ beyond noise at Δ = " + ", ".join(f"{g:g}" for g in differ) if differ
                 else "; at no gap do the two differ beyond noise")
    return Finding(text + ".", figure="fig4")


def _inc_finding(tables, settings) -> Finding | None:
    """Figure 5: the cost of over-regularising at Δ = 0 and Δ = 0.1 (the paper's main point)."""
    try:
        f = _Fig5(tables, settings)
    except (KeyError, ValueError, IndexError):
        return None
    if not {0.0, 0.1} <= set(f.gaps):
        return None
    parts = []
    for mech in f.mechs:
        rdef, rtop = f.info[mech]
        if rdef is None:
            continue
        inc = {g: float(f.mean[mech, g, rtop] - f.mean[mech, g, rdef]) for g in (0.0, 0.1)}
        if not all(math.isfinite(v) for v in inc.values()):
            continue
        ratio = inc[0.1] / inc[0.0] if inc[0.0] else float("nan")
        parts.append(f"{_VARIANT_NAMES.get(mech, mech)} {_fmt(inc[0.0])} at Δ = 0 and {_fmt(inc[0.1])} at Δ = 0.1 "
                     f"(ratio {_fmt(ratio, 2)})")
    if not parts:
        return None
    t_end = int(f.runs["t"].max())
    return Finding(f"Figure 5 (regret at t = {t_end:,}, {f.runs_min} runs per point): raising ρ_min from the default "
                   f"to the largest grid value adds " + "; ".join(parts) + ".", figure="fig5")


def _claims_rows(claims) -> pd.DataFrame | None:
    if claims is None:
        return None
    if isinstance(claims, pd.DataFrame):
        return claims
    rows = [c if isinstance(c, Mapping) else vars(c) for c in claims]
    return pd.DataFrame(rows) if rows else None


def _undecided_findings(claims) -> list[Finding]:
    """Which gated claims the data could not decide at this scale (grouped by what would decide them), and
    which they contradict, from the evaluated claims table."""
    rows = _claims_rows(claims)
    if rows is None or not len(rows) or not {"claim", "verdict"} <= set(rows.columns):
        return []
    rows = rows[~rows["claim"].isin(DESCRIPTIVE)]
    out = []
    undecided = rows[rows["verdict"] == INCONCLUSIVE]
    if len(undecided):
        needs = undecided.get("needs", pd.Series("", index=undecided.index)).fillna("").replace("", "—")
        groups = {}
        for cid, need in zip(undecided["claim"], needs):
            groups.setdefault(need, []).append(cid)
        text = "; ".join(f"{', '.join(dict.fromkeys(ids))} (needs {need})" for need, ids in groups.items())
        n_claims = rows["claim"].nunique()
        out.append(Finding(f"{undecided['claim'].nunique()} of {n_claims} gated claims are inconclusive at this scale: "
                           f"{text}."))
    contra = rows[rows["verdict"] == NOT_REPRODUCED]
    if len(contra):
        out.append(Finding("Not reproduced (the interval of the measured effect excludes the claim): "
                           + "; ".join(f"{c} ({m})" for c, m in zip(contra["claim"], contra["measured"])) + "."))
    return out


def findings(tables: Mapping[str, pd.DataFrame], claims, settings: Mapping[str, Any]) -> list[Finding]:
    """Findings entry point (protocol): WishartUnshifted against Wishart in Figure 4 at each gap, the cost of
    over-regularising in Figure 5, and the claims the data could not decide or contradict — all computed from
    the tables and the evaluated claims."""
    out: list[Finding] = []
    if tables.get("fig4_runs") is not None and len(tables["fig4_runs"]):
        found = _wu_finding(tables, settings)
        if found is not None:
            out.append(found)
    if tables.get("fig5_runs") is not None and len(tables["fig5_runs"]):
        found = _inc_finding(tables, settings)
        if found is not None:
            out.append(found)
    if tables.get("fig4c_ratio") is not None and len(tables["fig4c_ratio"]):
        found = _f4c_finding(tables["fig4c_ratio"])
        if found is not None:
            out.append(found)
    if tables.get("fig4e_ratio") is not None and len(tables["fig4e_ratio"]):
        found = _f4e_finding(tables["fig4e_ratio"])
        if found is not None:
            out.append(found)
    return out + _undecided_findings(claims)
