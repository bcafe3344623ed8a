"""Shariff & Sheffet (NeurIPS 2018), differentially private contextual linear bandits.

``paper``   the declaration the workflow reads (experiments, figures, claims, cost);
``runs``    Figure 1's decision set and one block of runs of Experiments 1–3 (tidy frames);
``tables``  run records -> the tables of Figures 1–5;
``claims``  the paper's statements as claims (shariff2018 reading R20), checked on the tables;
``cost``    predicted seconds and memory of one run job.
"""
