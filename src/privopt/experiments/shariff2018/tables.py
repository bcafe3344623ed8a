"""Aggregation of Shariff & Sheffet run records into the tables the figures and claims read."""

from __future__ import annotations

import pandas as pd

from privopt.experiments.shariff2018 import runs
from privopt.experiments.summary import summarise


def final_rows(records: pd.DataFrame, by) -> pd.DataFrame:
    """The last recorded point of every run (t = n_rounds)."""
    last = records.groupby(list(by), sort=False)["t"].transform("max")
    return records[records["t"] == last].reset_index(drop=True)


def defaults_table(settings: dict, mechanisms) -> pd.DataFrame:
    """Dotted lines of Fig. 5: mechanism, label, ρ_min (shifted defaults and the unshifted Wishart)."""
    rows = []
    for mech in mechanisms:
        for label, rho in runs.default_rho(mech, settings["n"], settings["d"], settings["eps"], settings["delta"],
                                           k_rule=settings["k_rule"]).items():
            rows.append({"mechanism": mech, "label": label, "rho_min": rho})
    return pd.DataFrame(rows, columns=["mechanism", "label", "rho_min"])


def tables_for(experiment: str, records: pd.DataFrame, settings: dict | None = None,
               mechanisms=None, audits: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Tables of one experiment: per-figure summaries (mean, std, sem, n) and per-run values.

    ``audits`` (Exp. 2 only): the audit rows of the run blocks, returned as table ``audit``
    sorted by gap, variant, seed, t (claims S.1/S.2).
    """
    keep = ["t", "regret", "pd_failures"]
    if experiment == "exp1":
        records = records.sort_values(["reward", "d", "seed", "t"], kind="stable")
        fin = final_rows(records, ["reward", "d", "seed"])[["reward", "d", "seed", *keep]]
        return {"fig2": summarise(records, ["reward", "d", "t"], "regret", ddof=1),
                "fig3": summarise(fin, ["reward", "d"], "regret", ddof=1),
                "runs": fin.reset_index(drop=True)}
    if experiment == "exp2":
        records = records.sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)
        out = {"fig4": summarise(records, ["gap", "variant", "t"], "regret", ddof=1),
               "runs": records[["gap", "variant", "seed", *keep]]}
        if audits is not None:
            audits = audits if len(audits) else runs.empty_audit()
            out["audit"] = audits.sort_values(["gap", "variant", "seed", "t"], kind="stable").reset_index(drop=True)
        return out
    if experiment == "exp3":
        records = records.sort_values(["mechanism", "gap", "rho_min", "seed", "t"], kind="stable")
        fin = final_rows(records, ["mechanism", "gap", "rho_min", "seed"])
        fin = fin[["mechanism", "gap", "rho_min", "seed", *keep]].reset_index(drop=True)
        out = {"fig5": summarise(fin, ["mechanism", "gap", "rho_min"], "regret", ddof=1), "runs": fin}
        if settings is not None:
            out["defaults"] = defaults_table(settings, mechanisms or sorted(records["mechanism"].unique()))
        return out
    raise ValueError(f"unknown experiment {experiment!r}")
