"""Online submodular maximisation on coverage streams (Perez-Salazar & Cummings 2021; docs/papers/perezsalazar2021.md).

``coverage`` (the streams and set functions), ``hedge`` (the experts' exponential weights), ``parameters``
(η, γ and the certified ε of each algorithm), ``privacy`` (their accounting), ``submodular_max`` (FI-DP and
BanditDP over every replica of a configuration), ``dr_submodular`` (Algorithm 4 on the multilinear extension),
``offline`` (the exact optimum, greedy in hindsight, UNIF's value), ``enumeration`` (exact output laws of
small instances, for the audits), ``fixed_sums`` (dot products in one fixed order); ``kernels`` holds every
numba kernel of the package and ``reference`` the plain twins of FI-DP's and BanditDP's.
"""
