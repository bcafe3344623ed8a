"""Claims E.a and E.b (Figure 1–2e, beyond the paper): the per-step ε0 of DPG and PCG from the exact composition of
their steps at the paper's (ε, δ) against the paper's rules, read from the ratio table of
:mod:`privopt.experiments.chaturvedi2021.exact`."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privopt.pipeline.claims import Inconclusive, Outcome, ratio_outcome
from privopt.pipeline.claims import fmt_fixed as _fmt
from privopt.experiments.chaturvedi2021.claims.deciding import CLAIMS, _reading_name


# ----------------------------------------------------------------------------- Figure 1–2e (new, beyond the paper)

BEYOND = "(beyond the paper) "
#: the exact accountants of Figure 1–2e (:data:`privopt.experiments.chaturvedi2021.exact.ACCOUNTANTS`), in words
ACCOUNTANT_WORDS = {"exactDP": "optimal composition of ε0-DP steps (valid adaptively: a certificate)",
                    "exactBR": "optimal composition of ε0-bounded-range steps (the non-adaptive optimum: optimistic)"}
FIGURE_X = {"fig1": "r", "fig2": "m"}
#: what an undecided row needs: without a finite interval, and where the two ε0 give (nearly) the same runs
NO_INTERVAL = (" (no interval)", "a finite paired interval (≥ 2 runs, positive utilities)")
INSEPARABLE = ("a setting where the two ε0 change the picks (here the runs are identical or nearly so, so no number of "
               "runs separates them)")


def _f12e_ratio(tables: Mapping[str, pd.DataFrame], family: str) -> list[Outcome]:
    """One outcome per (figure, point, accountant): mean utility at the exact ε0 over the paper's, decided by its 95 %
    paired-bootstrap interval (above 1: reproduced, below 1: not reproduced, else inconclusive)."""
    t = tables["fig12e_ratio"]
    t = t[t["family"] == family]
    if t.empty:
        raise Inconclusive(f"no {family} rows in fig12e_ratio", needs=f"the {family} runs of Figure 1–2e")
    out = []
    for (figure, reading, point, acc), g in t.groupby(["figure", "reading", "point", "accountant"], sort=True):
        r = g.iloc[0]
        label = (f"Fig. {str(figure)[3:]}, {FIGURE_X.get(str(figure), 'x')} = {int(point)}, {acc}"
                 + (f" ({_reading_name(str(reading))})" if reading != "paper" else ""))
        n = int(r["n"])
        est, lo, hi = (float(r[k]) for k in ("ratio", "ratio_lo", "ratio_hi"))
        text = (f"{label}: mean utility {family}_{acc}/{family} = {est:.4f} (95 % paired bootstrap {lo:.4f} … "
                f"{hi:.4f}); ε0 {_fmt(r['eps0_exact'], 5)} against the paper's {_fmt(r['eps0_paper'], 5)} "
                f"(× {float(r['eps0_ratio']):.2f})")
        details = (f"{n} runs, {int(r['steps'])} exponential-mechanism steps per run; {ACCOUNTANT_WORDS.get(acc, acc)}; "
                   f"mean utility {_fmt(r['mean_exact'], 4)} against {_fmt(r['mean_paper'], 4)}")
        out.append(ratio_outcome(text, est, lo, hi, n, reading=label, details=details, above=True, unit="runs",
                                 where="at this point", longer="", no_interval=NO_INTERVAL, inseparable=INSEPARABLE))
    return out


_F12E_THRESHOLD = ("per (figure, point, accountant): the 95 % paired-bootstrap interval (over runs) of mean utility "
                   "{v}_exact/{v} lies above 1 (reproduced), below 1 (not reproduced), else inconclusive")


@CLAIMS.claim("E.a", "fig12e", BEYOND + "Setting DPG's per-step ε0 by the exact composition of its r "
              "exponential-mechanism steps at the paper's (ε, δ), instead of the paper's rule (ε/r in Figure 1, the "
              "improved rule in Figure 2), raises its mean utility.", _F12E_THRESHOLD.format(v="DPG"),
              needs=("fig12e_ratio",), details="privacy: the paper's (ε, δ) for both; same datasets and streams")
def _f12ea(tables, settings):
    return _f12e_ratio(tables, "DPG")


@CLAIMS.claim("E.b", "fig12e", BEYOND + "Setting PCG's per-step ε0 by the exact composition of its T·r "
              "exponential-mechanism steps at the paper's (ε, δ), instead of Thm 3.9's rule, raises its mean utility.",
              _F12E_THRESHOLD.format(v="PCG"), needs=("fig12e_ratio",),
              details="privacy: the paper's (ε, δ) for both; same datasets and streams")
def _f12eb(tables, settings):
    return _f12e_ratio(tables, "PCG")
