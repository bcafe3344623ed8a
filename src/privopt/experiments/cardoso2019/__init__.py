"""Rivera Cardoso & Cummings (2018), DP online submodular minimisation: new figures illustrating its theorems.

The paper has no experiments; the figures are the project's design (docs/papers/cardoso2019.md, readings
R1, R9): RC-1 … RC-4 on grid cells of the Uber box (``grid``: the box, its grids and the instances RC-MRF
and RC-ZERO).  The algorithms live in the library (:mod:`privopt.submodular.lovasz`,
:mod:`privopt.submodular.cuts`, :mod:`privopt.online.submod_pftal`); ``privacy`` audits BanditSubmodPFTAL
(the paper's bandit calibration as the planted bug).
"""
