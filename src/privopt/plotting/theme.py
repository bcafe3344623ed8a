"""The project's figure theme: seaborn's ``set_theme(context="paper", style="whitegrid")`` written out as
matplotlib rc values, so that a figure job does not import seaborn.

Importing seaborn imports ``scipy.stats`` and took about 1.2 s of each figure job's ~10 s on the 2-core AMD
host (the quick pipeline draws over 80 figures, its scale's and the references'): speed is why these values are
written here and not asked of seaborn in every job.  seaborn stays the source: ``tests/test_plotting.py`` sets
the theme through seaborn and requires exactly these values (and the same PNG bytes), so an upgrade of seaborn
that changes its theme fails there, naming the keys.

Left out: ``image.cmap`` (seaborn's ``rocket``, which exists only once seaborn is imported; no figure uses the
default colour map, and :func:`privopt.plotting.palette.level_colours` imports seaborn when a figure asks for
one of its maps by name).
"""

from __future__ import annotations

from cycler import cycler

#: seaborn's "deep" palette (its default colour cycle), as RGB
DEEP = [(0.2980392156862745, 0.4470588235294118, 0.6901960784313725),
        (0.8666666666666667, 0.5176470588235295, 0.3215686274509804),
        (0.3333333333333333, 0.6588235294117647, 0.40784313725490196),
        (0.7686274509803922, 0.3058823529411765, 0.3215686274509804),
        (0.5058823529411764, 0.4470588235294118, 0.7019607843137254),
        (0.5764705882352941, 0.47058823529411764, 0.3764705882352941),
        (0.8549019607843137, 0.5450980392156862, 0.7647058823529411),
        (0.5490196078431373, 0.5490196078431373, 0.5490196078431373),
        (0.8, 0.7254901960784313, 0.4549019607843137),
        (0.39215686274509803, 0.7098039215686275, 0.803921568627451)]

#: the paper context scales seaborn's notebook sizes by 0.8
_PAPER = 0.8

#: what ``seaborn.set_theme(context="paper", style="whitegrid")`` sets, but ``image.cmap``
SEABORN_PAPER_WHITEGRID = {
    # style "whitegrid"
    "axes.axisbelow": True, "axes.edgecolor": ".8", "axes.grid": True, "axes.labelcolor": ".15",
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans", "sans-serif"],
    "grid.color": ".8", "lines.solid_capstyle": "round", "patch.edgecolor": "w",
    "patch.force_edgecolor": True, "text.color": ".15", "xtick.bottom": False, "xtick.color": ".15",
    "ytick.color": ".15", "ytick.left": False,
    # context "paper"
    "font.size": 12 * _PAPER, "axes.labelsize": 12 * _PAPER, "axes.titlesize": 12 * _PAPER,
    "xtick.labelsize": 11 * _PAPER, "ytick.labelsize": 11 * _PAPER, "legend.fontsize": 11 * _PAPER,
    "legend.title_fontsize": 12 * _PAPER, "axes.linewidth": 1.25 * _PAPER, "grid.linewidth": 1 * _PAPER,
    "lines.linewidth": 1.5 * _PAPER, "lines.markersize": 6 * _PAPER, "patch.linewidth": 1 * _PAPER,
    "xtick.major.width": 1.25 * _PAPER, "ytick.major.width": 1.25 * _PAPER, "xtick.minor.width": 1 * _PAPER,
    "ytick.minor.width": 1 * _PAPER, "xtick.major.size": 6 * _PAPER, "ytick.major.size": 6 * _PAPER,
    "xtick.minor.size": 4 * _PAPER, "ytick.minor.size": 4 * _PAPER,
    # palette "deep"
    "axes.prop_cycle": cycler("color", DEEP),
}
