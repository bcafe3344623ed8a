"""The styles of the algorithms chaturvedi2021's figures draw (colour, marker, line style, legend label), collected
into
the project's palette (:func:`privopt.plotting.palette.algo_style`) through ``Paper.styles``: one style per algorithm
name across the project, so a name two papers share must have the same style in both.

Chaturvedi et al. (2021): the paper's legend names, its four lines and our diagnostics.
"""

from privopt.plotting.palette import algo

STYLES = {
    "PCG": algo("C3", "o", "-", "This work (PCG)"),
    "Greedy": algo("C0", "s", "-", "Greedy"),
    "DPG": algo("C2", "^", "-", "MBKK (DPG)"),
    "Random": algo("C7", "D", "-", "Random"),
    "E[Random]": algo("0.35", "", "-.", "E[Random] (exact)"),
    "PCG0": algo("C3", "", ":", r"PCG, $\varepsilon_0 = 0$"),
    "PCG_perm": algo("C1", "", "--", "PCG, labels permuted"),
    "PCG0_perm": algo("C1", "", ":", r"PCG, $\varepsilon_0 = 0$, labels permuted"),
    # Figure 1–2e (beyond the paper): the same algorithm's colour, ε0 from exact composition
    "PCG_exactDP": algo("C3", "v", "--", r"PCG, $\varepsilon_0$ exact (DP steps)"),
    "PCG_exactBR": algo("C3", "x", ":", r"PCG, $\varepsilon_0$ exact (BR, non-adaptive)"),
    "DPG_exactDP": algo("C2", "v", "--", r"DPG, $\varepsilon_0$ exact (DP steps)"),
    "DPG_exactBR": algo("C2", "x", ":", r"DPG, $\varepsilon_0$ exact (BR, non-adaptive)"),
}
