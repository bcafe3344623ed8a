"""The styles of the algorithms perezsalazar2021's figures draw (colour, marker, line style, legend label),
collected into
the project's palette (:func:`privopt.plotting.palette.algo_style`) through ``Paper.styles``: one style per algorithm
name across the project, so a name two papers share must have the same style in both.

Perez-Salazar & Cummings (2021): the learners of F1–F8 and their baselines.
"""

from privopt.plotting.palette import EPS_INF_COLOUR, EPS_ZERO_COLOUR, algo

STYLES = {
    "FI-DP": algo("C0", "o", "-", "FI-DP"),
    "BanditDP": algo("C0", "^", "-", "BanditDP"),
    "SG-NP": algo(EPS_INF_COLOUR, "s", "-", "SG-NP (non-private)"),
    "SG-BANDIT-NP": algo(EPS_INF_COLOUR, "X", "--", "SG-BANDIT-NP (bandit, non-private)"),
    "UNIF": algo(EPS_ZERO_COLOUR, "v", "-", r"UNIF ($\varepsilon = 0$)"),
    "B1-NAIVE": algo("C3", "s", "--", "B1-NAIVE, same γ"),
    "B1-NAIVE-OWN": algo("C1", "^", ":", r"B1-NAIVE, own $\gamma = 2T^{-1/4}$"),
    "B2-PRESAMPLE": algo("C2", "D", "-.", "B2-PRESAMPLE, same γ"),
}
