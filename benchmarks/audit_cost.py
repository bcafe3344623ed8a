"""The constants of the audit jobs' cost model (``privopt.pipeline.cost.AUDIT_COST``): per audit every paper
declares, the CPU seconds per sample per input of all its configurations together and the peak bytes of its
numpy arrays per sample per input, at its quick samples.

Each audit's sampler is called once on 16 samples first (numba compilation or cache load, not counted); then
``run_audit`` of every configuration (correct, planted, subtle) runs under ``tracemalloc`` (which traces numpy's
arrays; it slows their allocation a little, so the seconds err high) and ``time.process_time``.  Prints the
dictionary to paste into ``privopt/pipeline/cost.py``.

Run by hand, never as a test:  ``python benchmarks/audit_cost.py``.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from privopt.audit.core import run_audit
from privopt.pipeline.protocol import resolve
from privopt.pipeline.registry import papers


def measure() -> dict[str, dict[str, tuple[float, float]]]:
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for key, paper in papers().items():
        for ref in paper.audits:
            for a in resolve(ref)():
                n = int(a.samples["quick"])
                a.sampler("correct", 0, 16, np.random.default_rng(0))
                tracemalloc.start()
                start = time.process_time()
                for variant in a.variants():
                    run_audit(a, variant, n, 0)
                seconds = time.process_time() - start
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                out.setdefault(key, {})[a.name] = (seconds / n, peak / n)
    return out


if __name__ == "__main__":
    print("AUDIT_COST = {")
    for key, audits in measure().items():
        print(f'    "{key}": {{')
        for name, (seconds, peak) in audits.items():
            print(f'        "{name}": ({seconds:.3g}, {peak:.3g}),')
        print("    },")
    print("}")
