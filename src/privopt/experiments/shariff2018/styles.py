"""The styles of the algorithms shariff2018's figures draw (colour, marker, line style, legend label), collected into
the project's palette (:func:`privopt.plotting.palette.algo_style`) through ``Paper.styles``: one style per algorithm
name across the project, so a name two papers share must have the same style in both.

Shariff & Sheffet (2018): the LinUCB variants (Fig. 4), the mechanisms (Fig. 5) and the paper's path tree, the
baseline of Fig. 4c.
"""

from privopt.plotting.palette import EPS_INF_COLOUR, algo

STYLES = {
    "nonprivate": algo(EPS_INF_COLOUR, "o", "-", "NonPrivate"),
    "gaussian": algo("C1", "s", "-", "Gaussian"),
    "wishart": algo("C2", "^", "-", "Wishart"),
    "wishart_unshifted": algo("C4", "D", "-", "WishartUnshifted"),
    # Fig. 4c's baseline, the paper's path tree, is Fig. 4's Gaussian variant: Gaussian's orange in both figures
    "path": algo("C1", "P", "-", "path tree (the paper's)"),
    # the Gaussian variant with its node σ calibrated exactly to the paper's (ε, δ) (Fig. 4e)
    "gaussian_exact": algo("C9", "v", "--", "Gaussian, σ calibrated exactly"),
    "gaussian_exact_counter": algo("C3", "X", "--", "Gaussian, σ calibrated exactly + best counter"),
}
