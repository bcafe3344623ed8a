"""One figure style for every notebook of the project (issue 26).

Importing changes nothing; :func:`use` applies the style.  The palette is fixed: the same algorithm has the
same colour, marker and line style in every figure (:data:`ALGORITHMS`; an unknown name is an error), and an
ε has one colour on one logarithmic scale over the ε values the project runs (:data:`EPS_RANGE`), never
re-spread over the ε values of one panel; ε = ∞ (non-private) is black, ε = 0 (no data used) grey.
Colour comes from ε when a curve has one, marker and line style from the algorithm when it has one
(:func:`style`).  Every artist drawn through these helpers carries a ``gid`` (``eps=10``, ``algo=FI-DP``,
``algo=FI-DP|eps=10``) so that a test can read a saved figure's artists and check the palette
(:func:`palette_problems`).

Helpers take an ``ax`` and return what they drew or counted: :func:`curve` (a mean with its band or bars),
:func:`band` (clipped, never dropped, on a log axis), :func:`band_text` / :func:`band_handle` (what the band
is and over how many runs), :func:`guide` (a slope), :func:`legend_below` / :func:`figure_legend` (legends
outside the data), :func:`nodata` (an empty panel), :func:`ratio_points` (ratios to a baseline with their interval, side by side), :func:`save` (stamps the scale, writes PDF and PNG, shows the PNG in the executed notebook).

:func:`heading` shows the figure's captions from its declaration at the top of its notebook.

:func:`use` applies seaborn's paper/whitegrid theme as written out in :mod:`privopt.plotting.theme` (a figure job
then imports no seaborn; a test keeps the two equal) with the project's sizes on top.

On the pipeline floor: it may import numpy, pandas, matplotlib, seaborn, IPython (to display a saved figure) and :mod:`privopt.pipeline`; the
library never imports it.
"""

from __future__ import annotations

from privopt.plotting.palette import (
    ALGORITHMS,
    EPS_INF_COLOUR,
    EPS_RANGE,
    EPS_ZERO_COLOUR,
    PROJECT_EPS,
    algo_style,
    eps_colour,
    eps_label,
    eps_marker,
    level_colours,
    style,
)
from privopt.plotting.draw import (
    BAND_KINDS,
    REPORT_WIDTH_IN,
    anchor,
    band,
    band_handle,
    band_text,
    curve,
    eps_curves,
    figure_legend,
    guide,
    heading,
    hollow_handle,
    legend_below,
    min_text_pt,
    nodata,
    note,
    palette_problems,
    ratio_points,
    read,
    save,
    show,
    use,
)

__all__ = [
    "ALGORITHMS", "BAND_KINDS", "EPS_INF_COLOUR", "EPS_RANGE", "EPS_ZERO_COLOUR", "PROJECT_EPS", "REPORT_WIDTH_IN",
    "algo_style", "anchor", "band", "eps_curves", "band_handle", "band_text", "curve", "eps_colour", "eps_label", "eps_marker",
    "figure_legend", "guide", "heading", "hollow_handle", "legend_below", "level_colours", "min_text_pt", "nodata", "note", "palette_problems",
    "ratio_points", "read", "save", "show", "style", "use",
]
