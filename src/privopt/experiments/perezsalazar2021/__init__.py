"""Perez-Salazar & Cummings (2021), Differentially Private Online Submodular Maximization: the figures its
theorems predict (the paper has none).  ``paper`` declares it; ``instances`` builds SYN-CLICK and the Uber
streams; ``runs`` runs every experiment; ``tables`` aggregates; ``claims`` checks perezsalazar2021 reading R20;
``cost`` prices the run jobs; ``figures`` draws F1–F8 for the notebooks (on :mod:`privopt.plotting`)."""
