"""privopt: differentially private optimisation and learning, the library behind the reproduction workflow.

Importing it makes numba's on-disk kernel cache notice edits of the modules a kernel imports
(:mod:`privopt.numba_cache`), before any kernel is defined.
"""

from privopt import numba_cache as _numba_cache

_numba_cache.install()
