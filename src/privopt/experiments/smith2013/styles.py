"""The styles of the algorithms smith2013's figures draw (colour, marker, line style, legend label), collected into
the project's palette (:func:`privopt.plotting.palette.algo_style`) through ``Paper.styles``: one style per algorithm
name across the project, so a name two papers share must have the same style in both.

Smith & Thakurta (2013): one algorithm per panel, curves by ε; the paired excess regret.
"""

from privopt.plotting.palette import algo

STYLES = {
    "PFTAL": algo("C0", "o", "-", "PFTAL"),
    "excess": algo("C0", "o", "-", "private − non-private (paired by seed)"),
}
