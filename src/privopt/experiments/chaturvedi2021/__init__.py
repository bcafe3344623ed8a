"""Chaturvedi, Nguyen, Zakynthinou (AAAI 2021), DP decomposable submodular maximisation.

``runs``   instances (boxes, candidate locations, pools) and one block of runs;
``claims`` the paper's statements about Figures 1 and 2, checked on the tables.
"""

PAPER = "chaturvedi2021"
