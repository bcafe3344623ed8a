"""The project's palette: one colour per ε on a fixed logarithmic scale, one style per algorithm."""

from __future__ import annotations

import math
from collections.abc import Mapping
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


def algo(colour, marker, ls, label) -> AlgoStyle:
    """An algorithm's style: colour (any matplotlib colour), marker ("" for none), line style, legend label."""
    return AlgoStyle(to_hex(colour), marker, ls, label)


# The styles no one paper owns: the continual counters of privopt.mechanisms.counting, which the figures of
# three papers draw (Smith & Thakurta ST-0c/ST-1c, Rivera Cardoso & Cummings RC-1c, Shariff & Sheffet Fig. 4c).
# Every other algorithm's style is declared by its paper (``Paper.styles``, its ``styles.py``) and collected
# here.  Private algorithms drawn at several ε take their colour from ε (:func:`style`); their own colour is used
# when a figure draws them at one ε among other algorithms.
SHARED: dict[str, AlgoStyle] = {
    "tree": algo("C0", "o", "-", "tree (binary mechanism)"),
    "honaker": algo("C3", "s", "-", "Honaker"),
    "sqrt": algo("C2", "^", "-", "square root (full)"),
    "sqrt_banded": algo("C8", "v", "--", "square root (banded)"),
    "smooth": algo("C4", "D", "-", "smooth binary"),
}


class _Palette(Mapping):
    """name → :class:`AlgoStyle`: :data:`SHARED` and every registered paper's ``Paper.styles``, collected on first
    use (the registry imports only the papers' declarations).  A name declared twice with two styles is an error
    naming both papers: one style per algorithm across the project."""

    def __init__(self) -> None:
        self._styles: dict[str, AlgoStyle] | None = None

    def _collect(self) -> dict[str, AlgoStyle]:
        if self._styles is None:
            import importlib

            from privopt.pipeline.registry import papers

            styles, owner = dict(SHARED), dict.fromkeys(SHARED, "privopt.plotting.palette.SHARED")
            for key, paper in papers().items():
                if not paper.styles:
                    continue
                module, _, name = paper.styles.partition(":")
                for algo_name, st in getattr(importlib.import_module(module), name).items():
                    if algo_name in styles and styles[algo_name] != st:
                        raise ValueError(f"algorithm {algo_name!r} has two styles: {owner[algo_name]} and {key}'s "
                                         f"{paper.styles}; one style per name across the project")
                    styles[algo_name], owner[algo_name] = st, f"{key}'s {paper.styles}"
            self._styles = styles
        return self._styles

    def __getitem__(self, name: str) -> AlgoStyle:
        return self._collect()[name]

    def __iter__(self):
        return iter(self._collect())

    def __len__(self) -> int:
        return len(self._collect())


#: every algorithm's style (:class:`_Palette`)
ALGORITHMS: Mapping[str, AlgoStyle] = _Palette()


def algo_style(name: str) -> AlgoStyle:
    """The style of an algorithm; an unknown name is an error (add it to :data:`ALGORITHMS`)."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(f"no style for algorithm {name!r}: declare it in its paper's styles.py (Paper.styles), or in "
                       f"privopt.plotting.palette.SHARED if no one paper owns it") from None


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
    if cmap not in matplotlib.colormaps:
        import seaborn  # noqa: F401 - registers its colour maps (flare, rocket, ...) with matplotlib
    c = matplotlib.colormaps[cmap]
    n = max(1, len(values) - 1)
    return {v: to_hex(c(span[0] + (span[1] - span[0]) * i / n)) for i, v in enumerate(values)}
