"""How much of a quick-scale run job is numba compilation: per experiment, the first run job of the quick
config (``config/config.yaml``) run in a fresh process twice, first with an empty numba cache (what a fresh
clone's first job pays), then with the cache the first one wrote.  CPU seconds of the child process
(user + system), so a loaded machine changes little.

    python benchmarks/bench_compile.py [paper ...]

Experiments whose instances read a data set are built from ``resources/`` when it holds the parsed data
(run the pipeline's ``<name>_parse`` rule first), and skipped otherwise.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, tempfile, time
from pathlib import Path
from privopt.pipeline.config import load_config
from privopt.pipeline.registry import paper as get
from privopt.pipeline.datasets import dataset_outputs
from privopt.io import write_output
key, name = sys.argv[1], sys.argv[2]
p = get(key)
section = load_config()[key]
exp = p.experiment(name)
job = next(iter(p.run_jobs(section, name)))
inputs = {}
work = Path(tempfile.mkdtemp())
for inst_name in exp.instances:
    inst = p.instance(inst_name)
    data = json.loads(sys.argv[3])
    made = inst.make(inst.settings(section), {o: data[o] for o in dataset_outputs(inst.datasets)})
    for f in inst.outputs:
        write_output(made[f], work / f)
    inputs[inst_name] = str(work)
t = time.perf_counter()
exp.execute(job.point, exp.settings(section, job.point), job.seeds, inputs)
print(json.dumps({"wall": time.perf_counter() - t, "seeds": len(job.seeds)}))
"""


def child_cpu(args, env) -> tuple[float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(out.stdout.strip().splitlines()[-1])


def parsed_data() -> dict[str, str]:
    found = {}
    for f in Path("resources").glob("*/*/*.parquet"):
        found.setdefault(f.stem, str(f))
    return found


def main(keys: list[str]) -> None:
    from privopt.pipeline.config import load_config
    from privopt.pipeline.registry import papers

    config = load_config()
    data = parsed_data()
    print(f"CPU: {platform.processor() or platform.machine()}; numba compile share of each experiment's first quick job")
    print(f"{'experiment':34s} {'cold s':>8s} {'warm s':>8s} {'compile s':>9s}")
    tot_cold = tot_warm = 0.0
    for key, p in papers().items():
        if keys and key not in keys:
            continue
        for exp in p.experiments:
            if not exp.points(config[key]):
                continue
            need = {o for i in exp.instances for o in __import__("privopt.pipeline.datasets", fromlist=["x"]).dataset_outputs(p.instance(i).datasets)}
            if need - set(data):
                print(f"{key + '/' + exp.name:34s} skipped (no parsed {', '.join(sorted(need - set(data)))})")
                continue
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                args = [key, exp.name, json.dumps(data)]
                cold, _ = child_cpu(args, env)
                warm, _ = child_cpu(args, env)
            tot_cold, tot_warm = tot_cold + cold, tot_warm + warm
            print(f"{key + '/' + exp.name:34s} {cold:8.1f} {warm:8.1f} {cold - warm:9.1f}", flush=True)
    print(f"{'total':34s} {tot_cold:8.1f} {tot_warm:8.1f} {tot_cold - tot_warm:9.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
