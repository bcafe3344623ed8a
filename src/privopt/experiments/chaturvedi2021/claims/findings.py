"""The report's findings for Chaturvedi et al.: per reading, the label-permutation and PCG0 diagnostics of Figure 1
and PCG against E[Random] in Figure 2, with their numbers; Figure 1–2e's ε0 and utility ratios."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privopt.experiments.chaturvedi2021.runs import EXACT_RANDOM
from privopt.experiments.chaturvedi2021.tables import paired_name
from privopt.pipeline.claims import Inconclusive
from privopt.pipeline.claims import fmt_fixed as _fmt
from privopt.pipeline.protocol import Finding
from privopt.experiments.chaturvedi2021.claims.deciding import (_Pivots, _ms, _paired_sum, _ranks, _reading_name, _z)


# ----------------------------------------------------------------------------- findings


def _label_finding(p: _Pivots, reading: str) -> Finding | None:
    """Figure 1: what the element labels and the data each add to PCG, from the diagnostics."""
    mid = [r for r in _ranks(p) if 10 < r <= 20]
    needed = [paired_name("PCG", "PCG_perm"), paired_name("PCG0", EXACT_RANDOM), "PCG", "PCG_perm", EXACT_RANDOM]
    if not mid or any(a not in p.mean.columns for a in needed):
        return None
    try:
        p.need(*needed)
    except Inconclusive:
        return None
    k = len(mid)
    label, label_se = (v / k for v in _paired_sum(p, "PCG", "PCG_perm", mid))
    pcg0, pcg0_se = (v / k for v in _paired_sum(p, "PCG0", EXACT_RANDOM, mid))
    exact = float(p.mean.loc[mid, EXACT_RANDOM].mean())
    edge = float(p.mean.loc[mid, "PCG"].mean()) - exact
    perm = float(p.mean.loc[mid, "PCG_perm"].mean()) - exact
    perm_se = float(np.sqrt((p.sem.loc[mid, "PCG_perm"] ** 2 + p.sem.loc[mid, EXACT_RANDOM] ** 2).sum())) / k
    ranks = ", ".join(map(str, mid))
    n = int(p.n.loc[mid].min().min()) if p.n is not None else 0
    numbers = (f"Figure 1, {_reading_name(reading)} (r ∈ {{{ranks}}}, {n} runs each): permuting the element labels before "
               f"rounding changes PCG's mean utility by {_fmt(-label, 2)} ± {_fmt(label_se, 2)} (paired, {_z(-label, label_se)} SE), "
               f"leaving it {_fmt(perm, 2)} ± {_fmt(perm_se, 2)} from the exact E[Random] = {_fmt(exact, 2)} (PCG itself: "
               f"{_fmt(edge, 2)} above); PCG0, which never reads the data, is {_fmt(pcg0, 2)} ± {_fmt(pcg0_se, 2)} "
               f"({_z(pcg0, pcg0_se)} SE) above E[Random]")
    if "PCG0_perm" in p.mean.columns and np.isfinite(p.mean.loc[mid, "PCG0_perm"]).all():
        d0 = float(p.mean.loc[mid, "PCG0_perm"].mean()) - exact
        se0 = float(np.sqrt((p.sem.loc[mid, "PCG0_perm"] ** 2 + p.sem.loc[mid, EXACT_RANDOM] ** 2).sum())) / k
        numbers += f" and, with its labels permuted (a uniform basis in law), {_fmt(d0, 2)} ± {_fmt(se0, 2)} from it"
    if label > 2 * label_se and abs(perm) <= 2 * perm_se:
        verdict = "so PCG's edge over a random basis comes from rounding in index order (grid points first), not from the data"
    elif label > 2 * label_se:
        verdict = (f"so rounding in index order accounts for {_fmt(label, 2)} of PCG's {_fmt(edge, 2)} over a random basis, "
                   f"and the rest ({_fmt(perm, 2)}) remains with the labels permuted")
    else:
        verdict = "so the element labels make no detectable difference to PCG at this number of runs (|z| ≤ 2)"
    return Finding(f"{numbers}: {verdict}.", figure="fig1")


def _fig2_finding(p: _Pivots, reading: str) -> Finding | None:
    """Figure 2: PCG and DPG against Random's exact expectation."""
    if any(a not in p.mean.columns for a in ("PCG", "DPG", EXACT_RANDOM)):
        return None
    try:
        p.need("PCG", "DPG", EXACT_RANDOM)
    except Inconclusive:
        return None
    ms = _ms(p)
    d = p.mean["PCG"] - p.mean[EXACT_RANDOM]
    se = np.sqrt(p.sem["PCG"] ** 2 + p.sem[EXACT_RANDOM] ** 2)
    worst = max(ms, key=lambda m: abs(d[m]) / se[m] if se[m] > 0 else np.inf)
    last = ms[-1]
    dd = float(p.mean.loc[last, "DPG"] - p.mean.loc[last, EXACT_RANDOM])
    dse = float(np.sqrt(p.sem.loc[last, "DPG"] ** 2 + p.sem.loc[last, EXACT_RANDOM] ** 2))
    within = int((d.abs() <= 2 * se).sum())
    return Finding(
        f"Figure 2, {_reading_name(reading)}: PCG's utility/m is within 2 SE of the exact E[Random] at {within} of {len(ms)} "
        f"values of m (largest gap {_fmt(d[worst], 4)} at m = {worst}, {_z(float(d[worst]), float(se[worst]))} SE), "
        f"while DPG is {_fmt(dd, 4)} ({_z(dd, dse)} SE) from it at m = {last}.", figure="fig2")


def _fig12e_finding(t: pd.DataFrame) -> Finding | None:
    """Figure 1–2e in one sentence: per algorithm and accountant, per figure, the range of the ε0 ratio and of the
    mean-utility ratio over the points, and at how many points the 95 % paired interval lies above or below 1
    (every point's value is in the figure's claims)."""
    if t is None or t.empty:
        return None

    def span(lo: float, hi: float, digits: int) -> str:
        return f"{lo:.{digits}f}" if f"{lo:.{digits}f}" == f"{hi:.{digits}f}" else f"{lo:.{digits}f}–{hi:.{digits}f}"

    parts = []
    for (family, acc), g in t.groupby(["family", "accountant"], sort=False):
        per = []
        for figure, f in g.groupby("figure", sort=True):
            above, below = int((f["ratio_lo"] > 1).sum()), int((f["ratio_hi"] < 1).sum())
            per.append(f"Fig. {str(figure)[3:]}: ε0 ×{span(f['eps0_ratio'].min(), f['eps0_ratio'].max(), 2)}, utility "
                       f"×{span(f['ratio'].min(), f['ratio'].max(), 3)} (above 1 at {above}, below at {below} of "
                       f"{len(f)} points)")
        parts.append(f"{family} {acc}: " + ", ".join(per))
    return Finding(f"Figure 1–2e (beyond the paper, {int(t['n'].min())} paired runs per point): per-step ε0 from exact "
                   "composition at the paper's (ε, δ) against the paper's rules, as ε0 and mean-utility ratios (95 % "
                   "paired bootstrap intervals): " + "; ".join(parts) + ".", figure="fig12e")


def findings(tables: Mapping[str, pd.DataFrame], claims: pd.DataFrame, settings: Mapping[str, Any]) -> list[Finding]:
    """Findings entry point (protocol, :meth:`privopt.pipeline.protocol.Claims.find`): per reading, the
    label-permutation and PCG0 diagnostics of Figure 1 and PCG against E[Random] in Figure 2, with their numbers;
    Figure 1–2e's ε0 and utility ratios."""
    out: list[Finding] = []
    for figure, make in (("fig1", _label_finding), ("fig2", _fig2_finding)):
        table = tables.get(figure)
        if table is None or len(table) == 0:
            continue
        for reading, sub in table.groupby("reading", sort=False):
            found = make(_Pivots(sub), str(reading))
            if found is not None:
                out.append(found)
    found = _fig12e_finding(tables.get("fig12e_ratio"))
    if found is not None:
        out.append(found)
    return out
