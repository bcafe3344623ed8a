"""Shariff & Sheffet (2018): the first rounds of a long run job, for ``verify``
(:class:`privopt.pipeline.protocol.Prefix`).

A job at the paper's horizon (5·10^7 rounds, about a quarter of a core-hour per block of seeds) is too long for
``verify`` to recompute whole.  Every run here is the exact prefix of a longer one with the same settings: the
constants use the full horizon ``n`` whatever ``n_rounds`` is (shariff2018 reading R19), and a round's draws
depend on the seed and the round only.  So the first ``rounds`` rounds of a seed, computed on their own, must
give the stored run's rows at ``t ≤ rounds`` value for value — except where a row depends on the horizon, which
each function here restores:

* Exp. 2 audits a random sample of the run's rounds drawn from the *whole* horizon (the run's audit stream,
  :func:`privopt.bandits.sample_audit_rounds`): the prefix audits that sample's rounds ≤ ``rounds``.
* Exp. 3 records every ``n_rounds // rec_points`` rounds: the prefix records at the full run's interval.

End-of-run counts (``pd_failures``, ``n_optimal``) cover the whole run and are not compared (``Prefix.totals``).

This module is not imported by the run functions, so declaring or editing it reruns no run job; it imports the
library only inside its functions, so the paper's declaration (which reads :func:`horizon` and the steps) stays light.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["horizon", "record_step", "exp3_record_step", "exp2_prefix", "shorter_prefix", "exp3_prefix"]


def horizon(settings: Mapping[str, Any]) -> int:
    """The rounds a job runs: ``n_rounds``, or the paper's horizon ``n`` when it is null."""
    return int(settings["n"] if settings.get("n_rounds") is None else settings["n_rounds"])


def record_step(settings: Mapping[str, Any]) -> int:
    """Exp. 2, 2c, 2e record every ``rec_every`` rounds."""
    return int(settings["rec_every"])


def exp3_record_step(settings: Mapping[str, Any]) -> int:
    """Exp. 3 records every ``n_rounds // rec_points`` rounds of the full run (:func:`~.runs.exp3_block`)."""
    return max(1, horizon(settings) // max(1, int(settings["rec_points"])))


def _shorter(settings: Mapping[str, Any], rounds: int) -> dict[str, Any]:
    if not 0 < rounds <= horizon(settings):
        raise ValueError(f"a prefix of {rounds} rounds of a {horizon(settings)}-round run")
    return {**settings, "n_rounds": int(rounds)}


def exp2_prefix(experiment, point: Mapping[str, Any], settings: Mapping[str, Any], seeds: Sequence[int],
                inputs: Mapping[str, str], rounds: int) -> dict[str, Any]:
    """:func:`~.runs.exp2_job`'s rows at ``t ≤ rounds``: the records of a ``rounds``-round run, and the audit of
    the full run's sampled rounds that fall in it (seed by seed: each seed has its own sample)."""
    import numpy as np
    import pandas as pd

    from privopt.bandits import BanditInstance, run_episodes, sample_audit_rounds
    from privopt.experiments.shariff2018 import runs

    s = _shorter(settings, rounds)
    full, gap, d = horizon(settings), float(point["gap"]), int(s["d"])
    vs = runs.exp2_variants(s["n"], d, s["eps"], s["delta"], gamma_rule=s["wishart_gamma_rule"], k_rule=s["k_rule"],
                            names=s["variants"])
    by_name = {v.name: v for v in vs}
    records, audits = [], []
    for seed in seeds:
        ss = runs.seeds_for("exp2", {"gap": gap}, [seed])[0]
        at = sample_audit_rounds(ss, full, int(s["audit_rounds"])) if s["audit_rounds"] else np.zeros(0, np.int64)
        at = at[at <= rounds]
        batch = run_episodes(vs, BanditInstance(d=d, gap=gap), rounds, [ss], labels=[seed], record=s["rec_every"],
                             audit=at if at.size else None, lockstep=True)
        records.append(runs._tidy(batch, experiment="exp2", gap=gap, d=d))
        if at.size:
            audit = batch.audits.copy()
            audit.insert(0, "gap", gap)
            audit.insert(2, "mechanism", audit["variant"].map({k: v.mechanism for k, v in by_name.items()}))
            for bound in ("rho_min", "rho_max", "gamma"):
                audit[bound] = audit["variant"].map({k: float(getattr(v, bound)) for k, v in by_name.items()})
            audits.append(audit.astype({"seed": np.int64, "t": np.int64})[list(runs.AUDIT_TABLE_COLUMNS)])
    audit = pd.concat(audits, ignore_index=True) if audits else runs.empty_audit()
    return {"runs": pd.concat(records, ignore_index=True), "audit": audit}


def shorter_prefix(experiment, point, settings, seeds, inputs, rounds) -> dict[str, Any]:
    """The job's rows at ``t ≤ rounds`` for an experiment whose rows do not depend on the horizon run (Fig. 4c's
    ``exp2c``, Fig. 4e's ``exp2e``): the same job on a ``rounds``-round horizon."""
    return experiment.execute(point, _shorter(settings, rounds), seeds, inputs)


def exp3_prefix(experiment, point, settings, seeds, inputs, rounds) -> dict[str, Any]:
    """:func:`~.runs.exp3_job`'s rows at ``t ≤ rounds``, recorded at the full run's interval (``rounds`` a multiple
    of it: :func:`exp3_record_step`)."""
    step = exp3_record_step(settings)
    if rounds % step:
        raise ValueError(f"an Exp. 3 prefix must end on a recorded round (a multiple of {step}), got {rounds}")
    return experiment.execute(point, {**_shorter(settings, rounds), "rec_points": rounds // step}, seeds, inputs)
