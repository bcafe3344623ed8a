"""The drawing of Perez-Salazar & Cummings' figures F1–F8 (illustrations of the paper's theorems; the paper
has none), on the shared style :mod:`privopt.plotting`.

Each function takes the tables its :class:`~privopt.pipeline.registry.Figure` names (as DataFrames, read by
the notebook with :func:`privopt.plotting.read`) and the figure's params, draws the whole figure and returns
it; the notebook ``workflow/notebooks/perezsalazar2021_<fig>.py.ipynb`` shows the heading, reads the
tables, calls the function and saves (:func:`privopt.plotting.save`).  Drawing only: every number comes from
the tables.  A paper module, so it may import :mod:`privopt.plotting`; nothing in the library or the
pipeline imports it.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privopt import plotting as pp


# per row: the column, its SEM column, divided by T?, y label, y scale
F1_ROWS = [("sum_r", "sum_r_sem", False, r"$E[\Sigma_i r_i]$  (dashed: $\min(B_{FI}, kT)$)", "log"),
           ("R", "R_sem", True, r"$R_T/T = ((1-1/e)\,OPT - ALG)/T$", "linear"),
           ("REG_G", None, True, r"$REG_G/T = (G_T - ALG)/T$ (values ≤ 0 not drawn)", "log")]


def _horizon_panels(cols, rows) -> tuple[Figure, list]:
    """The 3 × 2 grid of F1 and F5: a column per instance (``cols``: (name, table)), a row per quantity
    (``rows``: (y scale, y label)), lettered a–f, log horizon, shared down each column only (each instance's
    horizons end where its data do: UBER-PICK's near 10⁵, SYN-CLICK's at 10⁶).  Returns the figure and, for every
    panel whose table has rows, (axes, row index, table); a panel of an empty table says there is no data."""
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(10, 9.6), layout="constrained", sharex="col")
    panels = []
    for c, (name, s) in enumerate(cols):
        for r, (yscale, ylabel) in enumerate(rows):
            ax = axes[r, c]
            ax.set_title(f"({'abcdef'[len(cols) * r + c]}) {name}")
            if s.empty:
                pp.nodata(ax)
                continue
            ax.set(xscale="log", yscale=yscale, ylabel=ylabel if c == 0 else "",
                   xlabel="horizon T" if r == len(rows) - 1 else "")
            panels.append((ax, r, s))
    return fig, panels


def f1(fi: pd.DataFrame, uber: pd.DataFrame, eps_plot, delta) -> Figure:
    """F1: FI-DP's regret against horizon on SYN-CLICK and UBER-PICK (rows: E[Σ r_i], R_T/T, REG_G/T)."""
    cols = [("SYN-CLICK (k = 3, n = 30)", fi[fi["group"] == "syn"] if len(fi) else fi),
            ("UBER-PICK (k = 3, n = 36)", uber[uber["group"] == "fi"] if len(uber) else uber)]
    eps_plot = [float(e) for e in eps_plot]
    fig, panels = _horizon_panels(cols, [(yscale, ylabel) for *_, ylabel, yscale in F1_ROWS])
    for ax, r, s in panels:
        y, err, per_t, _, _ = F1_ROWS[r]
        per = lambda p, col: p[col] / (p["T"] if per_t else 1)  # noqa: E731
        for eps in eps_plot:
            p = s[(s["algo"] == "FI-DP") & np.isclose(s["eps"], eps)]
            if len(p):
                q = p.assign(v=per(p, y), e=per(p, err) if err else 0.0)
                pp.curve(ax, q, "T", "v", algo="FI-DP", eps=eps, label=pp.eps_label(eps), err="e", certified="certified")
                if r == 0:
                    ax.plot(p["T"], np.minimum(p["B_theorem"], p["k"] * p["T"]), color=pp.eps_colour(eps), lw=0.8, ls="--")
        for algo in ("SG-NP", "UNIF") if r else ("SG-NP",):
            p = s[s["algo"] == algo]
            if len(p):
                pp.curve(ax, p.assign(v=per(p, y), e=per(p, err) if err else 0.0), "T", "v", algo=algo,
                         label=pp.algo_style(algo).label, err="e")
        if r == 1:
            ax.axhline(0, color="0.3", lw=0.8)
        if r == 0:
            Ts, low = np.sort(s["T"].unique()), float(s.loc[s["algo"].isin(["FI-DP", "SG-NP"]), "sum_r"].min())
            pp.guide(ax, Ts[0], low * 0.45, Ts, 0.5, r"$\propto \sqrt{T}$", colour="0.55", ls=":")
            pp.guide(ax, Ts[0], low * 0.45, Ts, 1.0, r"$\propto T$", colour="0.55", ls="-.")
    n = pd.concat([s["N"] for _, s in cols]) if any(len(s) for _, s in cols) else [0]
    pp.figure_legend(fig, [pp.hollow_handle(), pp.band_handle("sem", n, bars=True)], ncol=4)
    fig.suptitle(rf"F1 — FI-DP (Algorithm 2): regret against horizon, $\delta$ = {float(delta):g}. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


F2_MARKERS = {1: "^", 2: "D", 3: "o", 4: "P", 6: "s", 8: "*"}  # SYN-CLICK by k; UBER-PICK: crosses


def f2(fi: pd.DataFrame, uber: pd.DataFrame, be: pd.DataFrame, breakeven_eps, delta) -> Figure:
    """F2: collapse of FI-DP's regret onto the effective budget u; (c) the break-even horizon."""
    pts = fi[fi["group"].isin(["syn", "collapse"]) & (fi["algo"] == "FI-DP")] if len(fi) else fi
    upts = uber[(uber["group"] == "fi") & (uber["algo"] == "FI-DP")] if len(uber) else uber
    all_eps = sorted(set(pts["eps"]) | set(upts["eps"])) if len(pts) or len(upts) else []
    fig, (ax_a, ax_b, ax_c) = plt.subplots(1, 3, figsize=(10.4, 4.4), layout="constrained")
    for frame, cross in ((pts, False), (upts, True)):
        for (k, eps), p in frame.groupby(["k", "eps"]):
            c, m, cert = pp.eps_colour(eps), "x" if cross else F2_MARKERS.get(int(k), "o"), p["certified"].astype(bool)
            for ax, y in ((ax_a, p["sum_r"] / p["T"]), (ax_b, p["R"] / p["T"])):
                ax.scatter(p.loc[cert | cross, "u"], y[cert | cross], marker=m, color=c, s=20, gid=f"eps={eps:g}")
                if not cross:
                    ax.scatter(p.loc[~cert, "u"], y[~cert], marker=m, facecolors="white", edgecolors=c, s=20)
    if all_eps:
        u_all = pd.concat([pts["u"], upts["u"]])
        us = np.geomspace(max(u_all.min(), 1e-3), u_all.max(), 100)
        ax_a.plot(us, 1 / us, color="0.3", lw=1, ls="--", label="y = 1/u")
        ax_a.axvline(10, color="0.6", lw=0.8, ls=":")
        ax_a.text(10, 0.97, " u = 10", transform=ax_a.get_xaxis_transform(), color="0.4", fontsize=8, va="top")
    ax_a.set(xscale="log", yscale="log", ylabel=r"$E[\Sigma_i r_i]\, /\, T$", title="(a) expert regret per round against u",
             xlabel=r"effective budget $u = \varepsilon\sqrt{T} / (k^2 \ln n \sqrt{32 \ln(k/\delta)})$")
    ax_b.axhline(0, color="0.3", lw=0.8)
    ax_b.set(xscale="log", xlabel="effective budget u", ylabel="$R_T / T$", title="(b) (1−1/e)-regret per round against u")
    k3 = be[(be["k"] == 3) & be["eps"].isin([float(e) for e in breakeven_eps])].dropna(subset=["T_star"]) if len(be) else be
    if len(k3):
        ax_c.plot(k3["eps"], k3["T_star"], "o-", color="C3", label="T* (k = 3)")
        e = np.geomspace(k3["eps"].min(), k3["eps"].max(), 10)
        pp.guide(ax_c, k3["eps"].iloc[0], k3["T_star"].iloc[0] * 1.6, e, -2.0, r"$\propto \varepsilon^{-2}$", colour="0.55", ls=":")
        ax_c.set(xscale="log", yscale="log")
        missing = sorted(set(float(x) for x in breakeven_eps) - set(k3["eps"]))
        if missing:
            pp.note(ax_c, f"no sign change inside the T grid for ε = {missing}", colour="0.35")
    else:
        pp.nodata(ax_c, "no ε changes sign inside the T grid")
    ax_c.set(xlabel=r"$\varepsilon$", ylabel=r"break-even horizon $T^*$  ($E[R_T] = 0$)", title="(c) break-even horizon, k = 3")
    handles = [Line2D([], [], ls="none", marker=F2_MARKERS.get(int(k), "o"), color="0.3", label=f"k = {k} (SYN-CLICK)")
               for k in sorted(set(pts["k"]))] + [Line2D([], [], ls="none", marker="x", color="0.3", label="k = 3 (UBER-PICK)")]
    handles += [Line2D([], [], ls="none", marker="o", color=pp.eps_colour(e), label=pp.eps_label(e)) for e in all_eps]
    pp.figure_legend(fig, handles + [pp.hollow_handle()], ncol=7)
    runs = pd.concat([pts["N"], upts["N"]]).astype(int) if len(pts) or len(upts) else pd.Series([], dtype=int)
    each = "" if runs.empty else (f"each marker the mean of {runs.min()} runs. " if runs.min() == runs.max()
                                  else f"each marker the mean of {runs.min()}–{runs.max()} runs. ")
    fig.suptitle(rf"F2 — collapse of FI-DP's regret onto u (Theorem 6), $\delta$ = {float(delta):g}; {each}"
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


def f3(fi: pd.DataFrame, delta) -> Figure:
    """F3: FI-DP's regret at fixed T against ε, k and ln n."""
    groups = {g: fi[fi["group"] == g] for g in ("syn", "kscan", "nscan")} if len(fi) else {}
    fig, (ax_a, ax_b, ax_c) = plt.subplots(1, 3, figsize=(10.4, 4.4), layout="constrained")
    for ax in (ax_a, ax_b, ax_c):
        ax.set(xscale="log", yscale="log", ylabel=r"$E[\Sigma_i r_i]$")
    s = groups.get("syn", pd.DataFrame())
    if len(s):
        last = s[s["T"] == s["T"].max()]
        p = last[last["algo"] == "FI-DP"]
        pp.curve(ax_a, p, "eps", "sum_r", algo="FI-DP", label="FI-DP", err="sum_r_sem", certified="certified")
        for algo in ("UNIF", "SG-NP"):
            q = last[last["algo"] == algo]
            if len(q):
                st = pp.style(algo)
                ax_a.axhline(q["sum_r"].iloc[0], color=st["color"], ls="--" if algo == "UNIF" else "-.", lw=1, label=pp.algo_style(algo).label)
        learned = p[p["u"] >= 10].sort_values("eps")
        if len(learned):
            pp.guide(ax_a, learned["eps"].iloc[0], learned["sum_r"].iloc[0] * 0.6,
                     np.geomspace(learned["eps"].iloc[0] / 3, p["eps"].max(), 20), -1.0, r"$\propto \varepsilon^{-1}$", colour="0.55", ls=":")
        ax_a.set_title(f"(a) SYN-CLICK, k = 3, T = {int(s['T'].max()):,}")
    else:
        pp.nodata(ax_a)
    ax_a.set_xlabel(r"$\varepsilon$")
    for ax, name, x, xlabel in ((ax_b, "kscan", "k", "k"), (ax_c, "nscan", "logn", "ln n (log scale)")):
        s = groups.get(name, pd.DataFrame())
        ax.set_xlabel(xlabel)
        if s.empty:
            pp.nodata(ax)
            continue
        s = s.assign(logn=np.log(s["n"]))
        for eps, p in s[s["algo"] == "FI-DP"].groupby("eps"):
            pp.curve(ax, p, x, "sum_r", algo="FI-DP", eps=eps, label=f"FI-DP, {pp.eps_label(eps)}", err="sum_r_sem", certified="certified")
        q = s[s["algo"] == "SG-NP"]
        if len(q):
            pp.curve(ax, q, x, "sum_r", algo="SG-NP", label=pp.algo_style("SG-NP").label, err="sum_r_sem")
        xs, top = np.sort(s[x].unique()).astype(float), s[s["algo"] == "FI-DP"].sort_values(x)["sum_r"].iloc[0]
        if name == "kscan":
            pp.guide(ax, xs[0], top * 0.5, xs, 2.0, r"$\propto k^2$", colour="0.55", ls=":")
            if len(q):
                pp.guide(ax, xs[0], q.sort_values("k")["sum_r"].iloc[0] * 0.6, xs, 0.5, r"$\propto k^{1/2}$", colour="0.55", ls="-.")
            ax.set_xticks(xs, [f"{int(k)}" for k in xs])
            ax.set_title(f"(b) SYN-CLICK, T = {int(s['T'].max()):,}: k sweep")
        else:
            pp.guide(ax, xs[0], top * 0.6, xs, 1.0, r"$\propto \ln n$", colour="0.55", ls="--")
            ax.set_xticks(xs, [f"ln {int(n)}" for n in np.sort(s["n"].unique())])
            ax.minorticks_off()
            ax.set_title(f"(c) SYN-CLICK-PAD, k = 3, T = {int(s['T'].max()):,}: n sweep")
    pp.figure_legend(fig, [pp.hollow_handle(), pp.band_handle("sem", fi["N"] if len(fi) else 0, bars=True)], ncol=5)
    fig.suptitle(rf"F3 — FI-DP's regret in ε, k and ln n at fixed T (Theorem 6), $\delta$ = {float(delta):g}. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


def uber_anytime(ax, curves: pd.DataFrame, anytime: pd.DataFrame) -> None:
    """F4 (a): one UBER-PICK run's running average reward per algorithm, with OFF-GREEDY and (1−1/e)·OPT per round."""
    if not len(curves):
        pp.nodata(ax)
        return
    for (algo, eps), p in curves.groupby(["algo", "eps"], sort=False, dropna=False):
        private = algo in ("FI-DP", "BanditDP")
        st = pp.style(algo, eps if private else None)
        label = f"{algo}, {pp.eps_label(eps)}" + (" (bandit)" if algo == "BanditDP" else "") if private else pp.algo_style(algo).label
        p = p.sort_values("t")
        ax.plot(p["t"], p["mean"], color=st["color"], ls="--" if algo == "BanditDP" else st["ls"], lw=1.3, label=label, gid=st["gid"])
    if len(anytime):
        r = anytime.iloc[0]
        ax.axhline(r["G"] / r["T"], color="C3", lw=0.9, ls=":", label="OFF-GREEDY / T (hindsight)")
        ax.axhline(0.6321205588 * r["OPT"] / r["T"], color="C3", lw=0.9, ls="-.", label="(1−1/e)·OPT / T")
        ax.set_ylim(0, 1.1 * max(r["G"] / r["T"], curves["mean"].max()))
        ax.set_title(f"(a) UBER-PICK, k = 3, one run of T = {int(r['T']):,} pickups, {int(anytime['N'].max())} seeds")
    ax.set(xscale="log", xlabel="round t (pickup)", ylabel=r"running average reward $(1/t)\,\Sigma_{\tau \leq t} f_\tau(S_\tau)$")
    pp.legend_below(ax, ncol=3)


def uber_map(ax, mp: pd.DataFrame) -> None:
    """F4 (b): the pickup density, the candidate locations, the OPT set with its L1 balls and the modal sets."""
    if not len(mp):
        pp.nodata(ax)
        return
    ext = mp[mp["kind"] == "extent"]
    width, height, radius = (float(ext["x"].iloc[0]), float(ext["y"].iloc[0]), float(ext["value"].iloc[0])) if len(ext) else (8, 11, 1)
    dens, cands = mp[mp["kind"] == "density"], mp[mp["kind"] == "candidate"].sort_values("item")
    ax.scatter(dens["x"], dens["y"], c=np.log10(dens["value"]), cmap="Greys", marker="s", s=9, lw=0, vmin=0)
    ax.scatter(cands["x"], cands["y"], s=12, color="C0", zorder=3, label=f"candidate locations (|U| = {len(cands)})")
    opt = cands[cands["value"] > 0]
    ax.scatter(opt["x"], opt["y"], s=140, marker="*", color="C3", zorder=4, label="OPT set (whole stream)")
    for r in opt.itertuples():
        ax.plot([r.x - radius, r.x, r.x + radius, r.x, r.x - radius], [r.y, r.y + radius, r.y, r.y - radius, r.y], color="C3", lw=0.7, alpha=0.7)
    for (m, c, size), r in zip([("o", "C2", 90), ("s", "C1", 150)], mp[mp["kind"] == "modal"].itertuples()):
        q = cands[cands["item"].isin([int(a) for a in str(r.items).split()])]
        ax.scatter(q["x"], q["y"], s=size, facecolors="none", edgecolors=c, lw=1.4, zorder=5,
                   label=f"modal set, {r.label} (in {r.freq:.0%} of the last 10 % of rounds)")
    ax.set(xlim=(0, width), ylim=(0, height), aspect="equal", xlabel="x (km east of −74.02°)", ylabel="y (km north of 40.70°)",
           title=f"(b) pickup density, candidates, $L_1$ balls of radius {radius:g} km")
    pp.legend_below(ax, ncol=1, bbox_to_anchor=(0.5, -0.1))


#: F4 (c)'s privacy units, in colours (and line styles) the ε scale of :func:`privopt.plotting.eps_colour` does
#: not use, since (a) colours its curves by ε: the pickup black, the time windows pink then brown
UNIT_COLOURS = {"pick": ("black", "-"), "window": [("#e377c2", "--"), ("#8c564b", "-.")]}


def privacy_unit(ax, phi: pd.DataFrame) -> None:
    """F4 (c): φ against ε per privacy unit (pickups, time windows), with ε_1/2 marked."""
    if not len(phi):
        pp.nodata(ax)
        return
    units = sorted(phi["unit"].astype(str).unique(), key=lambda u: (u == "pick", int(u) if u.isdigit() else 0))
    windows = iter(UNIT_COLOURS["window"])
    for u in units:
        p = phi[phi["unit"].astype(str) == u]
        label = f"per pickup (T = {int(p['T'].iloc[0]):,})" if u == "pick" else f"per {u}-min window (T = {int(p['T'].iloc[0]):,})"
        colour, ls = UNIT_COLOURS["pick"] if u == "pick" else next(windows, ("0.5", ":"))
        pp.curve(ax, p, "eps", "phi", colour=colour, ls=ls, algo="FI-DP", label=label, err="phi_sem", certified="certified")
        e_half = float(p["eps_half"].iloc[0])
        if np.isfinite(e_half):
            ax.axvline(e_half, color=colour, ls=":", lw=1)
            ax.text(e_half, 0.52, rf" $\varepsilon_{{1/2}}$ = {e_half:.3g}", color=colour, fontsize=8, rotation=90, va="bottom")
    ax.axhline(0.5, color="0.5", lw=0.8)
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set(xscale="log", xlabel=r"$\varepsilon$", ylabel=r"$\varphi$ = (ALG − UNIF) / (OFF-GREEDY − UNIF)",
           title="(c) privacy unit: windows against pickups (FI-DP, k = 3)")
    pp.legend_below(ax, [pp.hollow_handle(), pp.band_handle("sem", phi["N"], bars=True)], ncol=1)


def f4(uber: pd.DataFrame, curves: pd.DataFrame, mp: pd.DataFrame, phi: pd.DataFrame, delta) -> Figure:
    """F4: Uber pickups: running average reward, the map, and the privacy unit."""
    anytime = uber[uber["group"] == "anytime"] if len(uber) else uber
    fig, axd = plt.subplot_mosaic("AA;BC", figsize=(10.4, 9.8), layout="constrained", height_ratios=[1, 1.25])
    uber_anytime(axd["A"], curves, anytime)
    uber_map(axd["B"], mp)
    privacy_unit(axd["C"], phi)
    fig.suptitle(rf"F4 — Uber pickups (April 2014): privacy–utility and the privacy unit, $\delta$ = {float(delta):g}. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


F5_ROWS = [("REG_OPT", "log", r"$E[REG_{OPT}]$ = OPT − ALG  (dashed: $B_{BD}$)"), ("R", "linear", "$R_T / T$"),
           ("M", "log", "explore rounds M / T")]
F5_REFS = {"SG-BANDIT-NP": "SG-BANDIT-NP (bandit, non-private)", "SG-NP": "SG-NP (full information, non-private)",
           "UNIF": r"UNIF ($\varepsilon = 0$)"}


def f5(b: pd.DataFrame, delta) -> Figure:
    """F5: BanditDP's regret against horizon on SYN-CLICK-S1 and S2 (rows: REG_OPT, R_T/T, M/T)."""
    cols = [("SYN-CLICK-S1 (k = 1, n = 5)", b[(b["instance"] == "syn_s1") & (b["group"] == "s1")] if len(b) else b),
            ("SYN-CLICK-S2 (k = 2, n = 10)", b[(b["instance"] == "syn_s2") & (b["group"] == "s2")] if len(b) else b)]
    fig, panels = _horizon_panels(cols, [(yscale, ylabel) for _, yscale, ylabel in F5_ROWS])
    for ax, r, s in panels:
        y = F5_ROWS[r][0]
        v = (lambda p: p[y]) if r == 0 else (lambda p: p[y] / p["T"])  # noqa: E731
        for eps, p in s[s["algo"] == "BanditDP"].groupby("eps"):
            pp.curve(ax, p.assign(v=v(p)), "T", "v", algo="BanditDP", eps=eps, label=f"BanditDP, {pp.eps_label(eps)}",
                     err="REG_OPT_sem" if r == 0 else None, certified="certified")
            if r == 0:
                ax.plot(p["T"], p["B_theorem"], color=pp.eps_colour(eps), lw=0.7, ls="--")
        for algo, label in F5_REFS.items() if r < 2 else ():
            p = s[s["algo"] == algo]
            if len(p):
                pp.curve(ax, p.assign(v=v(p)), "T", "v", algo=algo, label=label)
        for eps, p in s[s["algo"] == "FI-DP"].groupby("eps") if r < 2 else ():
            pp.curve(ax, p.assign(v=v(p)), "T", "v", algo="FI-DP", eps=eps, ls="-.", certified="certified",
                     label=f"FI-DP, {pp.eps_label(eps)} (full information)")
        if r == 0:
            Ts, lo = np.sort(s["T"].unique()).astype(float), float(s.loc[s["REG_OPT"] > 0, "REG_OPT"].min())
            pp.guide(ax, Ts[0], lo * 0.5, Ts, 2 / 3, r"$\propto T^{2/3}$", colour="0.55", ls=":")
            pp.guide(ax, Ts[0], lo * 0.5, Ts, 0.5, r"$\propto T^{1/2}$", colour="0.55", ls="-.")
        if r == 1:
            ax.axhline(0, color="0.3", lw=0.8)
        if r == 2:
            gam = s.groupby("T")["gamma"].first().dropna()
            ax.plot(gam.index, gam.values, color="0.3", lw=1, label=r"$\gamma(T) = \min(½, 2T^{-1/3})$")
            ax.plot(gam.index, 2 * gam.values, color="C3", lw=1, ls="--", label=r"privacy cap $2\gamma$ ($M < 2\gamma T$)")
    n = b["N"] if len(b) else 0
    pp.figure_legend(fig, [pp.hollow_handle(), pp.band_handle("sem", n, bars=True, what="bars (a, b)")], ncol=3)
    fig.suptitle(rf"F5 — BanditDP (Algorithm 3): regret against horizon, $\delta$ = {float(delta):g}."
                 "\nIllustration of the paper's theorems, not a figure of the paper.")
    return fig


F6_LABELS = {"BanditDP": r"Algorithm 3 ($\gamma = 2T^{-1/3}$)", "B1-NAIVE": "B1-NAIVE, same γ",
             "B1-NAIVE-OWN": r"B1-NAIVE, own $\gamma = 2T^{-1/4}$", "B2-PRESAMPLE": "B2-PRESAMPLE, same γ"}
F6_COLOURS = {"BanditDP": "C0", "B1-NAIVE": "C3", "B1-NAIVE-OWN": "C1", "B2-PRESAMPLE": "C2"}  # one ε per panel: by variant


def f6(b: pd.DataFrame, tail: pd.DataFrame, delta) -> Figure:
    """F6: Algorithm 3 against App. B's variants; (c) the exploration tail and its bounds."""
    s2 = b[b["instance"] == "syn_s2"] if len(b) else b
    var_eps = sorted(s2.loc[s2["group"] == "variants", "eps"].unique()) if len(s2) else []
    panels = (sorted(var_eps, reverse=True) + [None, None])[:2]
    fig, axes = plt.subplots(1, 3, figsize=(10.4, 4.4), layout="constrained")
    for j, (ax, eps) in enumerate(zip(axes[:2], panels)):
        if eps is None:
            pp.nodata(ax)
            continue
        sub = s2[np.isclose(s2["eps"], eps)]
        for algo, label in F6_LABELS.items():
            p = sub[sub["algo"] == algo]
            if len(p):
                pp.curve(ax, p, "T", "REG_OPT", algo=algo, colour=F6_COLOURS[algo], label=label, err="REG_OPT_sem", certified="certified")
        np_ = s2[s2["algo"] == "SG-BANDIT-NP"]
        if len(np_):
            pp.curve(ax, np_, "T", "REG_OPT", algo="SG-BANDIT-NP", label=pp.algo_style("SG-BANDIT-NP").label)
        ax.set(xscale="log", yscale="log", xlabel="horizon T", ylabel=r"$E[REG_{OPT}]$ = OPT − ALG",
               title=rf"({'ab'[j]}) SYN-CLICK-S2, $\varepsilon$ = {eps:g}" + ("" if sub["certified"].all() else " (nominal)"))
    if len(tail):
        t = tail.sort_values("T")
        for col, c, ls, label in (("log10_exact", "black", "-", r"exact $P(M \geq 2\gamma T)$"),
                                  ("log10_hoeffding", "C0", "--", r"Hoeffding $e^{-2\gamma^2 T}$"),
                                  ("log10_paper", "C3", ":", r"paper $e^{-8\gamma^2 T}$"),
                                  ("log10_chernoff", "C2", "-.", r"Chernoff $e^{-\gamma T/3}$")):
            axes[2].plot(t["T"], t[col], color=c, ls=ls, marker="o", ms=3.5, label=label)
        axes[2].set(xscale="log", xlabel="horizon T", ylabel=r"$\log_{10}$ of the tail probability",
                    title="(c) the δ-tail Algorithm 3 adds (B2 has none)")
        text = "\n".join(rf"T = {int(r.T):,}: γ = {r.gamma:.3f}, $\eta_{{B1}}/\eta_{{Alg3}} = \sqrt{{2\gamma}}$ = {r.eta_B1_over_alg3:.2f}"
                         for r in t.itertuples())
        extra = [plt.Line2D([], [], ls="none", label=f"(c) {text}")]
    else:
        extra = []
        pp.nodata(axes[2])
    pp.figure_legend(fig, [pp.hollow_handle(), pp.band_handle("sem", s2["N"] if len(s2) else 0, bars=True), *extra], ncol=3)
    fig.suptitle(rf"F6 — updating only after exploration (Algorithm 3) against App. B's variants, $\delta$ = {float(delta):g}. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


def f7(cont: pd.DataFrame) -> Figure:
    """F7: Algorithm 4 (continuous extension): regret per round against T, and the K ablation."""
    sweep = cont[cont["group"] == "sweep"] if len(cont) else cont
    abl = cont[cont["group"] == "ablation"] if len(cont) else cont
    fig, (ax_a, ax_b, ax_c) = plt.subplots(1, 3, figsize=(10.4, 4.2), layout="constrained")
    if len(sweep):
        for eps, p in sweep.groupby("eps"):
            for ax, y in ((ax_a, "REG_OPT"), (ax_b, "R")):
                pp.curve(ax, p.assign(v=p[y] / p["T"], e=p[f"{y}_sem"] / p["T"]), "T", "v", eps=eps, label=pp.eps_label(eps),
                         err="e", certified="certified")
        ks = sweep.groupby("T")["K"].first()
        for ax in (ax_a, ax_b):
            ax.set(xscale="log", xlabel="horizon T  (K = " + ", ".join(f"{int(v)}" for v in ks.values) + ")")
        ax_b.axhline(0, color="0.3", lw=0.8)
        ax_a.set(ylabel=r"$E[REG_{OPT}]/T$ = (OPT − ALG)/T", title="(a) regret against OPT per round")
        ax_b.set(ylabel="$R_T / T$", title="(b) (1−1/e)-regret per round")
    else:
        pp.nodata(ax_a)
        pp.nodata(ax_b)
    if len(abl):
        p = abl.sort_values("K")
        ax_c.errorbar(p["K"], p["REG_OPT"] / p["T"], yerr=p["REG_OPT_sem"] / p["T"], color="C0", marker="o", capsize=2,
                      label=r"(c) $E[REG_{OPT}]/T$")
        ax_c.errorbar(p["K"], p["R"] / p["T"], yerr=p["R_sem"] / p["T"], color="C3", marker="s", capsize=2, label="(c) $R_T/T$")
        ax_c.axhline(0, color="0.3", lw=0.8)
        ax_c.set_xticks(p["K"])
        ax_c.set(xlabel="experts K", title=rf"(c) ablation: T = {int(p['T'].iloc[0]):,}, $\varepsilon$ = {p['eps'].iloc[0]:g}")
    else:
        pp.nodata(ax_c)
    pp.figure_legend(fig, [pp.hollow_handle(), pp.band_handle("sem", cont["N"] if len(cont) else 0, bars=True)], ncol=4)
    fig.suptitle(r"F7 — Algorithm 4 (private continuous extension) on SYN-CLICK-MLE, $(\varepsilon, 0)$-DP. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig


def certified_eps(ax, cert: pd.DataFrame) -> None:
    """F8 (a): the certified ε against the nominal ε per (algorithm, k, T); dots: the largest certified nominal ε.
    Beyond the paper, where the table has ``eps_exact``: the same draws under optimal composition, thin dotted, the
    largest nominal ε it certifies as a hollow dot."""
    if not len(cert):
        pp.nodata(ax)
        return
    cols = {("FI-DP", 1): "C0", ("FI-DP", 3): "C2", ("FI-DP", 8): "C1", ("BanditDP", 2): "C3"}
    for (algo, k, T), p in cert.groupby(["algo", "k", "T"]):
        p, c = p.sort_values("eps_nominal"), cols.get((algo, int(k)), "C4")
        ax.plot(p["eps_nominal"], p["eps_cert"], color=c, ls={1000: "--", 1000000: "-"}.get(int(T), "-."), lw=1.3,
                label=f"{algo}, k = {k}, T = {int(T):,}")
        ok = p[p["certified"].astype(bool)]
        if len(ok):
            ax.plot(ok["eps_nominal"].iloc[-1:], ok["eps_cert"].iloc[-1:], "o", ms=3.5, color=c)
        if "eps_exact" in p:  # beyond the paper: the same draws under optimal composition (thin dotted)
            ax.plot(p["eps_nominal"], p["eps_exact"], color=c, ls=":", lw=0.9)
            ok = p[p["certified_exact"].astype(bool)]
            if len(ok):
                ax.plot(ok["eps_nominal"].iloc[-1:], ok["eps_exact"].iloc[-1:], "o", ms=3.5, mfc="white", mec=c)
    if "eps_exact" in cert:
        ax.plot([], [], color="0.3", ls=":", lw=0.9, marker="o", ms=3.5, mfc="white",
                label="thin dotted, hollow dot: exact (optimal) composition of the same draws")
    e = np.geomspace(cert["eps_nominal"].min(), cert["eps_nominal"].max(), 50)
    ax.plot(e, e, color="black", lw=1, label=r"identity $\varepsilon_{cert} = \varepsilon_{nominal}$")
    ax.fill_between(e, 1e-3 * np.ones_like(e), e, color="C2", alpha=0.08, label="certified region")
    low = min(cert["eps_cert"].min(), cert["eps_exact"].min()) if "eps_exact" in cert else cert["eps_cert"].min()
    ax.set(xscale="log", yscale="log", ylim=(low / 2, cert["eps_cert"].max() * 2),
           xlabel=r"nominal $\varepsilon$ (the ε that sets η)", ylabel=r"certified $\varepsilon_{cert}$",
           title="(a) certified against nominal ε (dots: largest certified nominal ε)")
    pp.legend_below(ax, ncol=2, bbox_to_anchor=(0.5, -0.13))


def tpriv(ax, tp: pd.DataFrame) -> None:
    """F8 (b): T-PRIV's enumerated privacy loss per η, as implemented (and the variant), against the pure bound."""
    if not len(tp):
        pp.nodata(ax)
        return
    ok, bug = tp[tp["variant"] == "as implemented"], tp[tp["variant"] != "as implemented"]
    labels = [f"{r.eta:.3g}" + (f"\n(ε = {r.eps_nominal:g})" if r.rate == "paper" else "") for r in ok.itertuples()]
    x = np.arange(len(labels))
    ax.bar(x - 0.2, ok["max_log_ratio"], width=0.38, color="C0", label="max |ln P/P'|, as implemented")
    if len(bug):
        ax.bar(x + 0.2, bug["max_log_ratio"].to_numpy(), width=0.38, color="C3", alpha=0.8, label=f"max |ln P/P'|, {bug['variant'].iloc[0]}")
    ax.scatter(x, ok["pure_bound"], marker="_", s=600, color="black", zorder=4, label=r"pure bound $2\eta k(T - t_0)$")
    ax.set_yscale("log")
    ax.set_xticks(x, labels)
    sums = max(abs(ok["sum_P"] - 1).max(), abs(ok["sum_P_prime"] - 1).max())
    total = "Σ P = 1 within 1e-12" if sums <= 1e-12 else f"|Σ P − 1| = {sums:.1e}"
    ax.set(ylabel="privacy loss", xlabel="η (in brackets: the ε of the paper's η)", title=f"(b) T-PRIV: {int(ok['outputs'].iloc[0]):,} outputs enumerated, {total};\n"
           f"δ(ε) = {ok.loc[ok['rate'] == 'paper', 'delta_at_eps'].max():g} at the paper's η")
    pp.legend_below(ax, ncol=1, bbox_to_anchor=(0.5, -0.13))


def f8(cert: pd.DataFrame, tp: pd.DataFrame, delta) -> Figure:
    """F8: certified against nominal ε, and the T-PRIV enumeration."""
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(10.4, 5.8), layout="constrained")
    certified_eps(ax_a, cert)
    tpriv(ax_b, tp)
    fig.suptitle(rf"F8 — privacy bookkeeping, $\delta$ = {float(delta):g}. "
                 "Illustration of the paper's theorems, not a figure of the paper.")
    return fig
