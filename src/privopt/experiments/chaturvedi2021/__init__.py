"""Chaturvedi, Nguyen, Zakynthinou (AAAI 2021), DP decomposable submodular maximisation.

``paper``      the declaration the workflow reads (experiments, figures, claims, cost);
``instances``  the pickups inside each figure's box;
``runs``       one block of runs of every algorithm at one parameter point;
``tables``     run records -> the tables of Figures 1 and 2;
``claims``     the paper's statements about Figures 1 and 2, checked on the tables;
``cost``       predicted seconds and memory of one run job.
"""
