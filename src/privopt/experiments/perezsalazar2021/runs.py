"""Run jobs of Perez-Salazar & Cummings (2021): one entry point per experiment of :mod:`.paper`.

A parameter point is a *group* of one experiment (``{"group": "syn"}``); a job runs the group's
configurations for a block of seeds (seeds at or beyond the group's ``runs`` are skipped), one kernel
call per configuration (:mod:`.simulate`).  Every frame has one row per run (replica); the Uber
anytime group also returns checkpoint rows (``curves``) and the map data (``map``, from the seed block
holding seed 0).

Settings are exactly what :mod:`.paper` whitelists for the group; a config error that needs the data
(k larger than the instance's items) is raised here naming the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privopt.experiments.perezsalazar2021 import simulate as sim
from privopt.experiments.perezsalazar2021 import syn
from privopt.pipeline.errors import ConfigError
from privopt.online.osm.coverage import Stream

__all__ = ["fi_job", "uber_job", "bandit_job", "cont_job", "privacy_job", "modal_set"]

KEY = "perezsalazar2021"


def _seeds(seeds: Sequence[int], runs: int) -> list[int]:
    return [int(s) for s in seeds if int(s) < int(runs)]


def _syn_streams(spec: Mapping[str, Any], T: int, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray, Stream, dict]:
    pi, P = syn.instance_matrix(spec)
    types = np.stack([syn.type_stream(pi, T, spec, s) for s in seeds]) if seeds else np.zeros((0, T), np.int32)
    return pi, P, Stream.single(types), {s: j for j, s in enumerate(seeds)}


def _frame(rows: list[dict], **extra) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for i, (k, v) in enumerate(extra.items()):
        frame.insert(i, k, v)
    return frame


def _empty(**extra) -> pd.DataFrame:
    return pd.DataFrame({k: pd.Series(dtype=object) for k in extra})


# ----------------------------------------------------------------------------- full information on SYN-CLICK


def fi_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    """Experiment ``fi`` (Figures 1–3 on SYN-CLICK): groups ``syn`` (F1 row 1, F2 k = 3, F3a), ``collapse``
    (F2: k ∈ ks over the T grid), ``kscan`` (F3b: k ∈ ks at one T), ``nscan`` (F3c: SYN-CLICK-PAD)."""
    group, delta, cfg = point["group"], float(settings["delta"]), settings["group"]
    seeds = _seeds(seeds, cfg["runs"])
    rows: list[dict] = []
    if group in ("syn", "collapse", "kscan"):
        spec = settings["instance"]
        ks = [int(cfg["k"])] if "k" in cfg else [int(k) for k in cfg["ks"]]
        horizons = [int(T) for T in (cfg["T"] if isinstance(cfg["T"], list) else [cfg["T"]])]
        _, P, stream, srows = _syn_streams(spec, max(horizons), seeds)
        for k in ks:
            if k > P.shape[1]:
                raise ConfigError(f"config key {KEY}.fi.{group}: k = {k} exceeds |U| = {P.shape[1]} products")
            bench = sim.stream_benchmarks(P, stream, k, horizons, srows)
            for T in horizons:
                out, _, _ = sim.full_information(P, stream, instance="syn_main", key=syn.stream_key(spec), k=k, T=T,
                                                 algos=sim.fi_algos(cfg["eps"], cfg["baselines"]), seeds=seeds,
                                                 rows=srows, delta=delta, bench=bench)
                rows += out
    elif group == "nscan":
        spec = settings["instance"]
        k, T = int(cfg["k"]), int(cfg["T"])
        pi, P0 = syn.instance_matrix(spec)
        types = np.stack([syn.type_stream(pi, T, spec, s) for s in seeds]) if seeds else np.zeros((0, T), np.int32)
        stream, srows = Stream.single(types), {s: j for j, s in enumerate(seeds)}
        for n in cfg["ns"]:
            P = syn.padded(P0, int(n), float(spec["p_base"]))
            if k > P.shape[1]:
                raise ConfigError(f"config key {KEY}.fi.nscan.k: k = {k} exceeds |U| = {P.shape[1]}")
            bench = sim.stream_benchmarks(P, stream, k, [T], srows)
            out, _, _ = sim.full_information(P, stream, instance="syn_pad", key={**syn.stream_key(spec), "pad": int(n)},
                                             k=k, T=T, algos=sim.fi_algos(cfg["eps"], cfg["baselines"]), seeds=seeds,
                                             rows=srows, delta=delta, bench=bench)
            rows += out
    else:
        raise ValueError(f"unknown group {group!r} of experiment fi")
    return {"runs": _frame(rows, group=group) if rows else _empty(group=group)}


# ----------------------------------------------------------------------------- Uber


def modal_set(codes: np.ndarray) -> tuple[int, float]:
    """The most frequent set code (ties: the smallest code) and its frequency."""
    values, counts = np.unique(codes, return_counts=True)
    j = int(np.argmax(counts))
    return int(values[j]), float(counts[j] / codes.size)


def _items(code: int) -> str:
    return " ".join(str(a) for a in range(63) if (code >> a) & 1)


def uber_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    """Experiment ``uber``: groups ``fi`` (F1 row 2: FI on UBER-PICK over a T grid), ``anytime`` (F4a/b: one
    run of the first ``T_pick`` pickups per algorithm, running average at checkpoints, modal final set) and
    ``granularity`` (F4c: FI over the whole stream of each privacy unit: windows of w minutes, pickups)."""
    from privopt.experiments.perezsalazar2021.uber import load

    inst = load(inputs["uber"])
    group, delta, cfg = point["group"], float(settings["delta"]), settings["group"]
    seeds = _seeds(seeds, cfg["runs"])
    P = inst.P
    key = {"grid": int(settings["instance"]["grid"]), "radius_km": float(settings["instance"]["radius_km"])}
    rows: list[dict] = []
    curves: list[dict] = []
    maps: list[dict] = []
    srows = {s: 0 for s in seeds}
    k = int(cfg["k"])
    if k > P.shape[1]:
        raise ConfigError(f"config key {KEY}.uber.{group}.k: k = {k} exceeds the {P.shape[1]} candidate locations")
    if group == "fi":
        horizons = [int(T) for T in cfg["T"]] + ([inst.T_max] if cfg["include_all"] else [])
        horizons = sorted(set(horizons))
        stream = inst.pick_stream(max(horizons))
        bench = sim.stream_benchmarks(P, stream, k, horizons, srows)
        for T in horizons:
            out, _, _ = sim.full_information(P, stream, instance="uber_pick", key=key, k=k, T=T,
                                             algos=sim.fi_algos(cfg["eps"], cfg["baselines"]), seeds=seeds, rows=srows,
                                             delta=delta, bench=bench)
            rows += out
    elif group == "anytime":
        T = inst.T_max if cfg["T_pick"] is None else int(cfg["T_pick"])
        stream = inst.pick_stream(T)
        bench = sim.stream_benchmarks(P, stream, k, [T], srows)
        ck = sim.checkpoint_rounds(T)
        tail = T - max(1, T // 10)
        algos = sim.fi_algos(cfg["eps"], ("SG-NP", "UNIF"))
        modal = [a for a in algos if a.name == "SG-NP" or (a.name == "FI-DP" and a.eps == float(cfg["modal_eps"]))]
        out, runs, replicas = sim.full_information(P, stream, instance="uber_pick", key=key, k=k, T=T, algos=algos,
                                                   seeds=seeds, rows=srows, delta=delta, bench=bench, checkpoints=ck,
                                                   tail_from=tail, record_codes=modal)
        code_row = 0
        for j, ((a, s), row) in enumerate(zip(replicas, out)):
            curves += [{"algo": a.name, "eps": row["eps"], "feedback": "full", "seed": s, "t": int(t),
                        "cum_reward": float(v)} for t, v in zip(ck, runs.checkpoints[j])]
            if a in modal:
                code, freq = modal_set(runs.codes[code_row])
                row.update(modal_set=_items(code), modal_freq=freq)
                code_row += 1
        rows += out
        b_algos = [sim.Algo("BanditDP", float(e)) for e in cfg["bandit_eps"]] + [sim.Algo("SG-BANDIT-NP")]
        out, per, replicas = sim.bandit(P, stream, instance="uber_pick", key=key, k=k, T=T, algos=b_algos, seeds=seeds,
                                        rows=srows, delta=delta, c_gamma=float(cfg["c_gamma"]), bench=bench,
                                        checkpoints=ck)
        for (a, s), row, (res, q) in zip(replicas, out, per):
            curves += [{"algo": a.name, "eps": row["eps"], "feedback": "bandit", "seed": s, "t": int(t),
                        "cum_reward": float(v)} for t, v in zip(ck, res.checkpoints[q])]
        rows += out
        if 0 in seeds:
            maps = _map_rows(inst, bench[(0, T)], P, stream, k)
    elif group == "granularity":
        for unit in cfg["units"]:
            if unit == "pick":
                T = inst.T_max if cfg["T_pick"] is None else int(cfg["T_pick"])
                stream = inst.pick_stream(T)
            else:
                stream = inst.window_stream(int(unit))
                T = stream.length
            bench = sim.stream_benchmarks(P, stream, k, [T], srows)
            out, _, _ = sim.full_information(P, stream, instance=f"uber_{unit}", key=key, k=k, T=T,
                                             algos=sim.fi_algos(cfg["eps"], ()), seeds=seeds, rows=srows, delta=delta,
                                             bench=bench)
            for row in out:
                row["unit"] = str(unit)
            rows += out
    else:
        raise ValueError(f"unknown group {group!r} of experiment uber")
    frames = {"runs": _frame(rows, group=group) if rows else _empty(group=group),
              "curves": _frame(curves, group=group) if curves else _empty(group=group),
              "map": pd.DataFrame(maps) if maps else _empty(kind=None)}
    return frames


def _map_rows(inst, bench: Mapping[str, Any], P, stream: Stream, k: int) -> list[dict]:
    """Density cells, candidates and the OPT set of the map (Figure 4b)."""
    from privopt.online.osm.coverage import type_totals
    from privopt.online.osm.offline import exact_opt

    meta = inst.meta
    width, height = meta["extent_km"]
    dens = np.asarray(meta["density"], dtype=float)
    bins = dens.shape[0]
    rows = []
    for i in range(bins):
        for j in range(dens.shape[1]):
            if dens[i, j] > 0:
                rows.append({"kind": "density", "x": (i + 0.5) * width / bins, "y": (j + 0.5) * height / dens.shape[1],
                             "value": dens[i, j], "item": -1})
    _, opt_set = exact_opt(P, type_totals(stream, P.shape[0], [stream.length]), k)
    for a, (x, y) in enumerate(meta["candidates"]):
        rows.append({"kind": "candidate", "x": x, "y": y, "value": float(a in set(opt_set[0].tolist())), "item": a})
    rows.append({"kind": "extent", "x": width, "y": height, "value": float(meta["radius_km"]), "item": -1})
    return rows


# ----------------------------------------------------------------------------- bandit


def bandit_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    """Experiment ``bandit`` (Figures 5–6): groups ``s1`` and ``s2`` (BanditDP at every ε, SG-BANDIT-NP and
    the full-information references FI-DP, SG-NP, UNIF on the same streams) and ``variants`` (App. B:
    B1-NAIVE at Algorithm 3's γ and at its own, B2-PRESAMPLE)."""
    group, delta, cfg = point["group"], float(settings["delta"]), settings["group"]
    seeds = _seeds(seeds, settings["runs"])
    spec = settings["instance"]
    horizons = [int(T) for T in settings["T"]]
    _, P, stream, srows = _syn_streams(spec, max(horizons), seeds)
    k = int(cfg["k"])
    if k > P.shape[1]:
        raise ConfigError(f"config key {KEY}.bandit.{group}.k: k = {k} exceeds |U| = {P.shape[1]} products")
    c_gamma = float(settings["c_gamma"])
    bench = sim.stream_benchmarks(P, stream, k, horizons, srows)
    name = f"syn_{cfg['instance']}"
    rows: list[dict] = []
    for T in horizons:
        if group == "variants":
            algos = [sim.Algo(v, float(e)) for v in ("B1-NAIVE", "B1-NAIVE-OWN", "B2-PRESAMPLE") for e in cfg["eps"]]
        else:
            algos = [sim.Algo("BanditDP", float(e)) for e in cfg["eps"]] + [sim.Algo("SG-BANDIT-NP")]
        out, _, _ = sim.bandit(P, stream, instance=name, key=syn.stream_key(spec), k=k, T=T, algos=algos, seeds=seeds,
                               rows=srows, delta=delta, c_gamma=c_gamma, bench=bench)
        rows += out
        if group != "variants":
            fi = sim.fi_algos(cfg["fi_eps"], ("SG-NP", "UNIF"))
            out, _, _ = sim.full_information(P, stream, instance=name, key=syn.stream_key(spec), k=k, T=T, algos=fi,
                                             seeds=seeds, rows=srows, delta=delta, bench=bench)
            rows += out
    return {"runs": _frame(rows, group=group) if rows else _empty(group=group)}


# ----------------------------------------------------------------------------- continuous (Algorithm 4)


def cont_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    """Experiment ``cont`` (Figure 7): Algorithm 4 on SYN-CLICK-MLE (:mod:`.continuous_runs`)."""
    from privopt.experiments.perezsalazar2021.continuous_runs import cont_rows

    rows = cont_rows(point["group"], settings, _seeds(seeds, settings["runs"]))
    return {"runs": _frame(rows, group=point["group"]) if rows else _empty(group=point["group"])}


# ----------------------------------------------------------------------------- privacy bookkeeping


def privacy_job(experiment, point, settings, seeds, inputs) -> dict[str, pd.DataFrame]:
    """Experiment ``privacy`` (Figure 8): the certified-ε grid and T-PRIV (:mod:`.privacy_tables`)."""
    from privopt.experiments.perezsalazar2021.privacy_tables import cert_grid, tpriv_table

    return {"runs": cert_grid(settings), "tpriv": tpriv_table(settings)}
