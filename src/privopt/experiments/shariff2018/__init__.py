"""Shariff & Sheffet (NeurIPS 2018), differentially private contextual linear bandits.

``runs``   Figure 1's decision set and one block of runs of Experiments 1–3 (tidy frames);
``claims`` the statements of spec §8 (shared/specs/private-linear-bandits.md), checked on the tables.
"""

PAPER = "shariff2018"
