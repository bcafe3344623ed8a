"""The styles of the algorithms cardoso2019's figures draw (colour, marker, line style, legend label), collected into
the project's palette (:func:`privopt.plotting.palette.algo_style`) through ``Paper.styles``: one style per algorithm
name across the project, so a name two papers share must have the same style in both.

Rivera Cardoso & Cummings (2019): one algorithm per panel, curves by ε.
"""

from privopt.plotting.palette import algo

STYLES = {
    "SubmodPFTAL": algo("C0", "o", "-", "SubmodPFTAL"),
    "BanditSubmodPFTAL": algo("C0", "^", "-", "BanditSubmodPFTAL"),
}
