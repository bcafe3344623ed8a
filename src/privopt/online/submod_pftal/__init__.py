"""SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings 2018; docs/papers/cardoso2019.md): PFTAL on the
Lovász extension of modular + cut losses over [0, 1]^n.

``algorithm`` (the learners' parameters, bounds, counters and the driver :func:`run_submod`), ``kernels`` (their
numba kernels) and ``reference`` (the numpy twins).
"""
