"""Online learning algorithms, one subpackage per family, each with its numba ``kernels`` and their plain ``reference``
twins beside them.

* ``osm``: online submodular maximisation on coverage streams (Perez-Salazar & Cummings 2021): FI-DP, BanditDP
  and their baselines, Algorithm 4, the offline benchmarks.
* ``pftal``: private follow-the-approximate-leader (Smith & Thakurta 2013): full information and bandit.
* ``submod_pftal``: SubmodPFTAL and BanditSubmodPFTAL (Rivera Cardoso & Cummings 2018), PFTAL on the Lovász
  extension.
"""
