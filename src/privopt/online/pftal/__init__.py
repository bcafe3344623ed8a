"""Private follow-the-approximate-leader (Smith & Thakurta 2013; docs/papers/smith2013.md, reading R6).

``losses`` (squared and Euclidean distance), ``projections`` (onto a ball), ``comparators`` (the best fixed
decision), ``full`` (PFTAL, full information) and ``bandit`` (private bandit FTAL); ``kernels`` holds their numba
kernels and ``reference`` the numpy twins.  Their private prefix sums are the mechanism TBAP
(:mod:`privopt.mechanisms.tbap`: the dyadic tree of :mod:`privopt.mechanisms.tree` with ℓ2-Laplace nodes).
"""
