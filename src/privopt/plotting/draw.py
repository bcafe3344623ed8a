"""Drawing helpers shared by the figure notebooks: curves with bands, guides, legends, empty panels, saving."""

from __future__ import annotations

import math
from collections.abc import Iterable

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_hex
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from privopt.plotting.palette import eps_colour, eps_label, style
from privopt.plotting.theme import SEABORN_PAPER_WHITEGRID

# The report shows every figure 996 CSS px wide (96 px to the inch): text of s pt in a figure w inches wide
# reads as s · REPORT_WIDTH_IN / w pt there (:func:`min_text_pt`).
REPORT_WIDTH_IN = 996 / 96
MIN_REPORT_PT = 8.0
DPI = 150
FEW_RUNS = 10  # a band or bar from fewer runs says so

BAND_KINDS = {"boot95": "95 % bootstrap interval", "sem": "±1 SEM", "sd": "±1 SD", "ci95": "95 % CI"}

RC = {
    "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "legend.fontsize": 8, "legend.title_fontsize": 8, "figure.titlesize": 9, "legend.frameon": False,
    "lines.linewidth": 1.4, "lines.markersize": 4, "savefig.dpi": DPI, "mathtext.default": "regular",
    "axes.titlepad": 5,
}


def use() -> None:
    """Apply the project's style (seaborn's whitegrid paper theme, :data:`privopt.plotting.theme.SEABORN_PAPER_WHITEGRID`,
    with :data:`RC` on top) to pyplot."""
    matplotlib.use("Agg")
    plt.rcParams.update(SEABORN_PAPER_WHITEGRID)
    plt.rcParams.update(RC)


def read(path) -> pd.DataFrame:
    """A table of the pipeline: parquet or CSV by its suffix."""
    return pd.read_parquet(path) if str(path).endswith(".parquet") else pd.read_csv(path)


def _runs(n) -> tuple[int, int]:
    vals = [int(v) for v in np.atleast_1d(np.asarray(n, dtype=float)) if np.isfinite(v)]
    return (min(vals), max(vals)) if vals else (0, 0)


def band_text(kind: str, n, unit: str = "seeds") -> str:
    """What a band or bar is and over how many runs: '95 % bootstrap interval over 10 seeds'; from fewer than
    10 runs it says so."""
    lo, hi = _runs(n)
    count = f"{lo}" if lo == hi else f"{lo}–{hi}"
    text = f"{BAND_KINDS[kind]} over {count} {unit}"
    if lo < FEW_RUNS:
        text += f" (fewer than {FEW_RUNS}: rough)"
    return text


def band_handle(kind: str, n, unit: str = "seeds", *, clipped: int = 0, bars: bool = False, what: str | None = None):
    """A legend entry for the bands (or error bars) of a figure: their meaning and N, and, when a lower end was
    clipped at the bottom of a log axis, how many."""
    label = (what or ("bars" if bars else "bands")) + ": " + band_text(kind, n, unit)
    if clipped:
        label += f"; {clipped} lower end(s) ≤ 0 clipped at the axis (log scale)"
    if bars:
        return Line2D([], [], color="0.4", marker="|", ls="none", ms=9, mew=1.2, label=label)
    return Patch(facecolor="0.6", alpha=0.35, edgecolor="none", label=label)


def hollow_handle(label: str = "hollow: nominal ε (η-equivalent, not certified)"):
    """A legend entry for the hollow markers :func:`curve` draws where ``certified`` is false."""
    return Line2D([], [], ls="none", marker="o", mfc="white", mec="0.3", label=label)


def _is_log(ax, log) -> bool:
    return ax.get_yscale() == "log" if log is None else bool(log)


def _floor(*arrays) -> float:
    pos = np.concatenate([np.asarray(a, float)[np.asarray(a, float) > 0] for a in arrays])
    return float(pos.min() / 3) if pos.size else 1e-12


def band(ax, x, lo, hi, colour, *, log=None, alpha=0.18, gid: str | None = None, floor: float | None = None) -> int:
    """Fill between ``lo`` and ``hi``.  On a log y axis (set the scale first, or pass ``log``) a lower end
    ≤ 0 cannot be drawn: it is clipped to ``floor`` (default a third of the band's smallest positive value),
    never dropped; returns how many were clipped (say it in the legend: :func:`band_handle`)."""
    x, lo, hi = (np.asarray(v, dtype=float) for v in (x, lo, hi))
    ok = np.isfinite(lo) & np.isfinite(hi)
    clipped = 0
    if _is_log(ax, log):
        f = _floor(lo[ok], hi[ok]) if floor is None else floor
        bad = ok & (lo <= 0)
        clipped = int(bad.sum())
        lo = np.where(bad, f, lo)
        hi = np.where(ok & (hi <= 0), f, hi)
    ax.fill_between(x[ok], lo[ok], hi[ok], color=colour, alpha=alpha, lw=0,
                    gid=f"band|{gid}" if gid else None)
    return clipped


def curve(ax, frame: pd.DataFrame, x: str, y: str = "mean", *, algo: str | None = None, eps=None,
          label: str | None = None, lo: str | None = None, hi: str | None = None, err: str | None = None,
          certified: str | None = None, log=None, lw: float | None = None, ms: float | None = None,
          ls: str | None = None, colour: str | None = None, capsize: float = 2) -> dict:
    """One curve in the project's style (:func:`privopt.plotting.style` of ``algo`` / ``eps``): ``y`` against
    ``x`` (sorted), a band between the columns ``lo`` and ``hi`` or error bars ±``err``, markers hollow where
    the boolean column ``certified`` is false.  On a log y axis a mean ≤ 0 is not drawn (counted in
    ``dropped``: say it with :func:`note`) and a lower end ≤ 0 is clipped (``clipped``).  Returns the counts."""
    if algo is None and eps is None:  # one series that is neither an algorithm nor an ε: ``colour`` names it
        st = {"color": colour or "C0", "marker": "o", "ls": "-", "gid": None}
    else:
        st = style(algo, eps)
    if colour is not None:  # a reference line in another colour: not a palette entry, so no gid
        st = {**st, "color": colour, "gid": None}
    if ls is not None:
        st["ls"] = ls
    c = frame.sort_values(x)
    log = _is_log(ax, log)
    keep = (c[y] > 0) if log else pd.Series(True, index=c.index)
    keep &= np.isfinite(c[y])
    kw = dict(color=st["color"], lw=lw or plt.rcParams["lines.linewidth"], gid=st["gid"])
    marker, size = st["marker"], plt.rcParams["lines.markersize"] if ms is None else ms
    cert = (c[certified].astype(bool) if certified else pd.Series(True, index=c.index))[keep]
    xs, ys = c.loc[keep, x], c.loc[keep, y]
    # one line with filled markers where certified (the legend shows line and marker), hollow ones beside it
    ax.plot(xs, ys, ls=st["ls"], label=label, marker=marker, ms=size, markevery=list(cert.to_numpy()), **kw)
    if marker != "None" and (~cert).any():
        ax.plot(xs[~cert], ys[~cert], ls="none", marker=marker, ms=size, mfc="white", mec=st["color"], **kw)
    clipped = 0
    if lo is not None and hi is not None:
        clipped = band(ax, c.loc[keep, x], c.loc[keep, lo], c.loc[keep, hi], st["color"], log=log, gid=st["gid"])
    elif err is not None:
        yv, e = c.loc[keep, y].to_numpy(float), c.loc[keep, err].fillna(0).to_numpy(float)
        low = yv - e
        if log:
            f = _floor(yv, low)
            clipped = int((low <= 0).sum())
            low = np.where(low <= 0, f, low)
        bars = ax.errorbar(c.loc[keep, x], yv, yerr=[yv - low, e], fmt="none", ecolor=st["color"], elinewidth=0.9,
                           capsize=capsize)
        for coll in bars.lines[2] if st["gid"] else ():  # the bars (not the caps) carry the curve's gid
            coll.set_gid(f"bars|{st['gid']}")
    return {"dropped": int((~keep).sum()), "clipped": clipped}


def eps_curves(ax, table: pd.DataFrame, x: str, y: str = "mean", *, lo: str | None = "ci_lo",
               hi: str | None = "ci_hi", err: str | None = None, algo: str | None = None, eps_col: str = "eps",
               **kw) -> dict:
    """One :func:`curve` per ε of ``table`` (ε = ∞ last, labelled non-private); a panel note counts the means
    ≤ 0 a log axis cannot show.  Returns the summed counts ``dropped`` and ``clipped``."""
    out = {"dropped": 0, "clipped": 0}
    for e in sorted(table[eps_col].unique()):
        r = curve(ax, table[table[eps_col] == e], x, y, eps=e, algo=algo, label=eps_label(e), lo=lo, hi=hi,
                  err=err, **kw)
        out = {k: out[k] + r[k] for k in out}
    if out["dropped"]:
        note(ax, f"{out['dropped']} mean(s) ≤ 0 not drawn (log axis)")
    return out


def anchor(table: pd.DataFrame, x: str, y: str = "mean", eps_col: str = "eps"):
    """The row a guide slope goes through: the last point of the non-private curve (else of the largest ε)
    with a positive ``y``; None if there is none."""
    eps = table[eps_col]
    finite = eps[np.isfinite(eps)]
    for sel in (np.isinf(eps), eps == (finite.max() if len(finite) else np.nan)):
        c = table[sel & (table[y] > 0)].sort_values(x)
        if len(c):
            return c.iloc[-1]
    return None


def guide(ax, x0, y0, xs, slope, label, colour="0.4", ls="--", lw=1.0):
    """A line of log–log slope ``slope`` through (x0, y0) over ``xs``, labelled for the legend."""
    xs = np.asarray(xs, dtype=float)
    return ax.plot(xs, y0 * (xs / x0) ** slope, ls=ls, color=colour, lw=lw, label=label, gid="guide")[0]


def note(ax, text: str, where: str = "lower left", colour: str = "C3"):
    """A short remark in a panel's corner (a count of points not drawn), on a white box."""
    x, ha = (0.02, "left") if "left" in where else (0.98, "right")
    y, va = (0.02, "bottom") if "lower" in where else (0.98, "top")
    return ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=8, color=colour,
                   bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))


def ratio_points(ax, frame: pd.DataFrame, x: str, k: int, count: int, *, algo: str | None = None, eps=None,
                 step: float = 2.0**0.06, ms: float = 5) -> None:
    """Ratios to a baseline (column ``ratio``) against ``x``, with error bars [``ratio_lo``, ``ratio_hi``] (a paired
    bootstrap interval), in the style of ``algo``/``eps``: series k of ``count`` drawn side by side on a log x axis
    (x multiplied by ``step`` ** (k − (count − 1)/2)), so that the bars of the series at one x do not overlap."""
    st = style(algo, eps)
    sub = frame.sort_values(x)
    xs = sub[x].to_numpy(float) * step ** (k - (count - 1) / 2)
    y = sub["ratio"].to_numpy(float)
    ax.plot(xs, y, marker=st["marker"], ls=st["ls"], color=st["color"], lw=1, ms=ms, gid=st["gid"])
    ax.errorbar(xs, y, yerr=[y - sub["ratio_lo"].to_numpy(float), sub["ratio_hi"].to_numpy(float) - y], fmt="none",
                ecolor=st["color"], capsize=2, elinewidth=0.9)


def nodata(ax, text: str = "no data at this scale"):
    """An empty panel that says why."""
    ax.set_xticks([])
    ax.set_yticks([])
    return ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="0.4")


def legend_below(ax, handles: Iterable | None = None, ncol: int = 2, **kw):
    """The panel's legend under its x axis, off the data (with the figure's constrained layout)."""
    h, l = ax.get_legend_handles_labels()
    if handles is not None:
        extra = list(handles)
        h, l = h + extra, l + [a.get_label() for a in extra]
    kw.setdefault("bbox_to_anchor", (0.5, -0.16))
    return ax.legend(h, l, loc="upper center", ncol=ncol, **kw)


def figure_legend(fig, extra: Iterable = (), ncol: int = 3, axes=None, **kw):
    """One legend for the whole figure, below its panels (never on the data): every labelled artist of the
    panels once (by label; the palette gives a label one style everywhere), then ``extra`` handles."""
    seen, handles = {}, []
    for ax in axes if axes is not None else fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in seen and not lab.startswith("_"):
                seen[lab] = h
                handles.append(h)

    def order(item):  # the curves of an ε first, by algorithm then ε (∞ last), then the rest as drawn
        i, h = item
        gid = h.get_gid() if hasattr(h, "get_gid") else None
        keys = dict(p.split("=", 1) for p in (gid or "").split("|") if "=" in p)
        return (0, keys.get("algo", ""), float(keys["eps"]), i) if "eps" in keys else (1, "", 0.0, i)

    handles = [h for _, h in sorted(enumerate(handles), key=order)]
    handles += list(extra)
    return fig.legend(handles=handles, loc="outside lower center", ncol=ncol, **kw)


def _stamp(fig, scale: str) -> None:
    text = f"scale: {scale}"
    title = fig._suptitle  # noqa: SLF001 (matplotlib has no public getter)
    if title is None or not title.get_text():
        fig.suptitle(text, fontsize=8, color="0.35")
    elif text not in title.get_text():
        title.set_text(f"{title.get_text()}  ·  {text}")
    fig._suptitle.set_gid("scale-stamp")  # noqa: SLF001


def min_text_pt(fig) -> float:
    """The smallest text of the figure, in points, once the figure is shown :data:`REPORT_WIDTH_IN` wide."""
    fig.canvas.draw()
    width = fig.get_tightbbox(fig.canvas.get_renderer()).width
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and t.get_window_extent().width > 0]
    return min(sizes) * REPORT_WIDTH_IN / width if sizes else math.inf


def save(fig, output, scale: str) -> None:
    """Stamp the scale into the figure's title line, write ``output.pdf`` and ``output.png`` and, inside a
    notebook, show the PNG as the cell's output (:func:`show`)."""
    _stamp(fig, scale)
    fig.savefig(output.pdf, bbox_inches="tight")
    fig.savefig(output.png, dpi=DPI, bbox_inches="tight")
    show(output.png)


def heading(snakemake) -> None:
    """The notebook's heading, from the figure's declaration (the one source of its captions): the paper, the
    figure's title, our caption (its config values filled in from ``snakemake.config``) and the original
    caption, shown as the cell's Markdown output inside a notebook (printed outside one).  The
    figure is the one the running job draws (``snakemake.params.notebook`` = ``<paper>_<figure>``).

    Every notebook calls it first, so it first compares the tables the job's check stamps (its input
    ``checked``) list with their recorded sha256 (:func:`privopt.pipeline.tablecheck.verify_checked`): a
    table changed since its check is refused before the figure reads it."""
    import jinja2

    from privopt.pipeline.registry import papers
    from privopt.pipeline.tablecheck import verify_checked

    inputs = getattr(snakemake, "input", None)
    checked = dict(inputs.items()).get("checked") if inputs is not None and hasattr(inputs, "items") else None
    if checked:
        verify_checked(checked)

    name = snakemake.params.notebook
    found = [(p, f) for p in papers().values() for f in p.figures if name == f"{p.key}_{f.id}"]
    if not found:
        raise KeyError(f"no registered paper declares the figure of notebook {name!r}")
    paper, fig = found[0]
    caption = jinja2.Template(fig.caption.strip()).render(snakemake={"config": dict(snakemake.config)})
    text = (f"# {paper.short}: {fig.title}\n\n{caption}\n\n**Original caption:** {fig.original_caption.strip()}\n\n"
            f"*Captions declared in `privopt.experiments.{paper.key}.paper` (Figure `{fig.id}`).*")
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(Markdown(text))
    else:
        print(text)


def show(png) -> bool:
    """Display the saved PNG ``png`` as the output of the running notebook cell (the executed notebook under
    ``logs/<scale>/notebooks/`` then carries the figure, although the notebooks draw with the Agg backend);
    outside IPython it does nothing.  True when it displayed the image."""
    try:
        from IPython import get_ipython
        from IPython.display import Image, display
    except ImportError:
        return False
    if get_ipython() is None:
        return False
    display(Image(filename=str(png)))
    return True


def _gid_style(gid: str) -> dict:
    keys = dict(p.split("=", 1) for p in gid.split("|") if "=" in p)
    eps = float(keys["eps"]) if "eps" in keys else None
    return style(keys.get("algo"), eps)


def palette_problems(fig) -> list[str]:
    """Every artist of ``fig`` drawn for an algorithm or an ε (its ``gid``) whose colour or marker is not the
    palette's; an empty list when the figure keeps to it.  Curves drawn with an explicit ``colour`` (reference
    lines) carry no ε or algorithm and are not checked."""
    problems = []
    for art in fig.findobj(lambda a: isinstance(a.get_gid(), str) and ("algo=" in a.get_gid() or "eps=" in a.get_gid())):
        gid = art.get_gid()
        want = _gid_style(gid.split("|", 1)[1] if gid.startswith(("band|", "bars|")) else gid)
        if isinstance(art, Line2D):
            got = to_hex(art.get_color())
            if art.get_marker() not in ("None", None, "", " ") and art.get_marker() != want["marker"]:
                problems.append(f"{gid}: marker {art.get_marker()!r}, palette {want['marker']!r}")
        else:
            fc = art.get_facecolor() if hasattr(art, "get_facecolor") else None
            if fc is None or len(np.atleast_2d(fc)) == 0:
                fc = art.get_edgecolor()
            got = to_hex(np.atleast_2d(fc)[0][:3])
        if got != want["color"]:
            problems.append(f"{gid}: colour {got}, palette {want['color']}")
    return problems


__all__ = ["anchor", "band", "eps_curves", "hollow_handle", "band_handle", "band_text", "curve", "eps_colour", "figure_legend", "guide", "legend_below",
           "heading", "min_text_pt", "nodata", "note", "palette_problems", "ratio_points", "read", "save", "show", "use"]
