"""The project's palette: one colour per ε on a fixed logarithmic scale, one style per algorithm."""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib
from matplotlib.colors import LinearSegmentedColormap, LogNorm, to_hex

# Every ε the configurations of the project run (config/*.yaml): the scale of :func:`eps_colour` spans them.
PROJECT_EPS = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 100.0, 200.0, 300.0, 1000.0, 3000.0)
EPS_RANGE = (PROJECT_EPS[0], PROJECT_EPS[-1])
EPS_INF_COLOUR = "#000000"   # ε = ∞: the non-private learner
EPS_ZERO_COLOUR = "#8c8c8c"  # ε = 0: a learner that never looks at the data (UNIF)
# An ordered map that keeps changing hue over its whole length (viridis or plasma over 4.5 decades leave the
# common ε = 1…100 within two or three shades) and stays dark enough to read on white.
_EPS_STOPS = ("#2d0a5e", "#2a4fb0", "#0b8fa0", "#2e9e3a", "#b59a00", "#e0661a", "#c4173a", "#6e0d2a")
_EPS_CMAP = LinearSegmentedColormap.from_list("privopt_eps", _EPS_STOPS)
_EPS_SPAN = (0.0, 1.0)
_EPS_MARKERS = ("o", "s", "^", "D", "v", "P")


def eps_colour(eps) -> str:
    """The colour of ε: an ordered map (dark purple → blue → teal → green → gold → orange → red) over log ε on :data:`EPS_RANGE` (clipped outside it); ∞ black, 0 grey."""
    e = float(eps)
    if math.isinf(e):
        return EPS_INF_COLOUR
    if e <= 0:
        return EPS_ZERO_COLOUR
    t = min(max(LogNorm(*EPS_RANGE, clip=True)(e), 0.0), 1.0)
    return to_hex(_EPS_CMAP(_EPS_SPAN[0] + (_EPS_SPAN[1] - _EPS_SPAN[0]) * float(t)))


def eps_marker(eps) -> str:
    """The marker of ε: one per half decade of ε (1, 3, 10, 30, 100, 300 get six different markers)."""
    e = float(eps)
    if math.isinf(e):
        return "o"
    if e <= 0:
        return "v"
    return _EPS_MARKERS[round(2 * math.log10(e)) % len(_EPS_MARKERS)]


def eps_label(eps, *, private_word: bool = True) -> str:
    """'ε = 10' (mathtext), 'non-private (ε = ∞)' for ∞."""
    e = float(eps)
    if math.isinf(e):
        return r"non-private ($\varepsilon = \infty$)" if private_word else r"$\varepsilon = \infty$"
    return rf"$\varepsilon = {e:g}$"


@dataclass(frozen=True)
class AlgoStyle:
    colour: str
    marker: str
    ls: str
    label: str


def _s(colour, marker, ls, label):
    return AlgoStyle(to_hex(colour), marker, ls, label)


# name → colour, marker, line style, legend label.  Private algorithms drawn at several ε take their colour
# from ε (:func:`style`); their own colour is used when a figure draws them at one ε among other algorithms.
ALGORITHMS: dict[str, AlgoStyle] = {
    # Chaturvedi et al. (2021): the paper's legend names, its four lines and our diagnostics
    "PCG": _s("C3", "o", "-", "This work (PCG)"),
    "Greedy": _s("C0", "s", "-", "Greedy"),
    "DPG": _s("C2", "^", "-", "MBKK (DPG)"),
    "Random": _s("C7", "D", "-", "Random"),
    "E[Random]": _s("0.35", "", "-.", "E[Random] (exact)"),
    "PCG0": _s("C3", "", ":", r"PCG, $\varepsilon_0 = 0$"),
    "PCG_perm": _s("C1", "", "--", "PCG, labels permuted"),
    "PCG0_perm": _s("C1", "", ":", r"PCG, $\varepsilon_0 = 0$, labels permuted"),
    # Shariff & Sheffet (2018): LinUCB variants (Fig. 4) and mechanisms (Fig. 5)
    "nonprivate": _s(EPS_INF_COLOUR, "o", "-", "NonPrivate"),
    "gaussian": _s("C1", "s", "-", "Gaussian"),
    "wishart": _s("C2", "^", "-", "Wishart"),
    "wishart_unshifted": _s("C4", "D", "-", "WishartUnshifted"),
    # Perez-Salazar & Cummings (2021)
    "FI-DP": _s("C0", "o", "-", "FI-DP"),
    "BanditDP": _s("C0", "^", "-", "BanditDP"),
    "SG-NP": _s(EPS_INF_COLOUR, "s", "-", "SG-NP (non-private)"),
    "SG-BANDIT-NP": _s(EPS_INF_COLOUR, "X", "--", "SG-BANDIT-NP (bandit, non-private)"),
    "UNIF": _s(EPS_ZERO_COLOUR, "v", "-", r"UNIF ($\varepsilon = 0$)"),
    "B1-NAIVE": _s("C3", "s", "--", "B1-NAIVE, same γ"),
    "B1-NAIVE-OWN": _s("C1", "^", ":", r"B1-NAIVE, own $\gamma = 2T^{-1/4}$"),
    "B2-PRESAMPLE": _s("C2", "D", "-.", "B2-PRESAMPLE, same γ"),
    # Rivera Cardoso & Cummings, Smith & Thakurta: one algorithm per panel, curves by ε
    "SubmodPFTAL": _s("C0", "o", "-", "SubmodPFTAL"),
    "BanditSubmodPFTAL": _s("C0", "^", "-", "BanditSubmodPFTAL"),
    "PFTAL": _s("C0", "o", "-", "PFTAL"),
    "excess": _s("C0", "o", "-", "private − non-private (paired by seed)"),
    # continual counters (privopt.mechanisms.counting; Smith & Thakurta ST-0c)
    "tree": _s("C0", "o", "-", "tree (binary mechanism)"),
    "honaker": _s("C3", "s", "-", "Honaker"),
    "sqrt": _s("C2", "^", "-", "square root (full)"),
    "sqrt_banded": _s("C8", "v", "--", "square root (banded)"),
    "smooth": _s("C4", "D", "-", "smooth binary"),
    # the path tree of Shariff & Sheffet (all m levels summed every round), the baseline of their Fig. 4c
    "path": _s("C5", "P", "-", "path tree (the paper's)"),
    # Shariff & Sheffet's Gaussian variant with its node σ calibrated exactly to the paper's (ε, δ) (Fig. 4e)
    "gaussian_exact": _s("C9", "v", "--", "Gaussian, σ calibrated exactly"),
    "gaussian_exact_counter": _s("C3", "X", "--", "Gaussian, σ calibrated exactly + best counter"),
}


def algo_style(name: str) -> AlgoStyle:
    """The style of an algorithm; an unknown name is an error (add it to :data:`ALGORITHMS`)."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(f"no style for algorithm {name!r}: add it to privopt.plotting.palette.ALGORITHMS") from None


def style(algo: str | None = None, eps=None) -> dict:
    """Line keywords (color, marker, ls, gid) of a curve: colour from ε when given, else the algorithm's;
    marker and line style from the algorithm when given, else the ε marker."""
    if algo is None and eps is None:
        raise ValueError("style() needs an algorithm or an ε")
    a = algo_style(algo) if algo is not None else None
    colour = eps_colour(eps) if eps is not None else a.colour
    marker = a.marker if a is not None else eps_marker(eps)
    ls = a.ls if a is not None else "-"
    parts = ([f"algo={algo}"] if algo is not None else []) + ([f"eps={float(eps):g}"] if eps is not None else [])
    return {"color": colour, "marker": marker or "None", "ls": ls, "gid": "|".join(parts)}


def level_colours(values, cmap: str = "cividis", span=(0.0, 0.85)) -> dict:
    """Colours of an ordered set of levels other than ε (a dimension d, a gap Δ), fixed by the sorted values
    given — pass the whole set the figure's configuration runs, not one panel's subset."""
    values = sorted({float(v) for v in values})
    c = matplotlib.colormaps[cmap]
    n = max(1, len(values) - 1)
    return {v: to_hex(c(span[0] + (span[1] - span[0]) * i / n)) for i, v in enumerate(values)}
