"""What each regret experiment of Rivera Cardoso & Cummings runs: its learner and its instance, in one place.

The run job (:func:`.runs.rc_job`), the cost model (:mod:`.cost`: µs per step by learner) and the declaration's
cross-key checks (:mod:`.paper`: BanditSubmodPFTAL needs T ≥ n⁴) read this map; it imports nothing, so the
declaration stays light.
"""

from __future__ import annotations

__all__ = ["MODES", "BANDIT"]

#: experiment → (learner: SubmodPFTAL "full" or BanditSubmodPFTAL "bandit", instance: RC-MRF "mrf" or RC-ZERO "zero")
MODES = {"rc1a": ("full", "mrf"), "rc1b": ("bandit", "mrf"), "rc2a": ("full", "mrf"), "rc2b": ("bandit", "mrf"),
         "rc3a": ("full", "mrf"), "rc3b": ("bandit", "mrf"), "rc4": ("full", "zero")}
#: the experiments that run BanditSubmodPFTAL
BANDIT = tuple(name for name, (learner, _) in MODES.items() if learner == "bandit")
