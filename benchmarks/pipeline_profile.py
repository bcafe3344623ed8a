"""Where a pipeline run's time went: per kind of rule (runs, tables, plots, reference plots, claims, audits,
notebook pages, report, data), the number of jobs and the seconds between each job's start and finish in
Snakemake's log (``.snakemake/log/<date>.snakemake.log``, the latest by default), and the run's wall time.

    python benchmarks/pipeline_profile.py [LOG]

Job seconds add up to more than the wall time when jobs run side by side (``--cores 2``: at most twice).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\S+):$")
_JOBID = re.compile(r"^\s+jobid: (\d+)$")
_DONE = re.compile(r"^Finished jobid: (\d+) \(Rule: (\S+)\)$")

#: a rule's kind, from the end of its name (the generic rules of workflow/rules/*.smk)
KINDS = (("_plot_reference", "reference plots"), ("_plot", "plots (notebook kernel)"), ("_notebooks_html", "notebook pages"),
         ("_claims_reference", "claims on the reference"), ("_claims", "claims"), ("_audit", "audits"),
         ("report_html", "report"), ("privacy_audit", "report"), ("_download", "data"), ("_parse", "data"))


def kind_of(rule: str) -> str:
    for suffix, kind in KINDS:
        if rule.endswith(suffix):
            return kind
    for part, kind in (("_runs_", "run jobs"), ("_tables_", "tables"), ("_check_", "table checks"), ("_instance_", "instances")):
        if part in rule:
            return kind
    return "other"


def profile(log: Path) -> tuple[dict[str, list[float]], float]:
    started: dict[str, tuple[str, datetime]] = {}
    spans: dict[str, list[float]] = defaultdict(list)
    stamp = first = last = None
    rule = None
    for line in log.read_text(errors="replace").splitlines():
        if m := _STAMP.match(line):
            stamp = datetime.strptime(m[1], "%a %b %d %H:%M:%S %Y")
            first, last = first or stamp, stamp
        elif m := _START.match(line):
            rule = m[1]
        elif (m := _JOBID.match(line)) and rule:
            started[m[1]] = (rule, stamp)
            rule = None
        elif m := _DONE.match(line):
            if m[1] in started:
                name, t0 = started.pop(m[1])
                spans[kind_of(name)].append((stamp - t0).total_seconds())
    return spans, (last - first).total_seconds() if first else 0.0


def main(argv: list[str]) -> None:
    log = Path(argv[0]) if argv else max(Path(".snakemake/log").glob("*.snakemake.log"))
    spans, wall = profile(log)
    total = sum(sum(v) for v in spans.values())
    print(f"{log}: wall {wall / 60:.1f} min, {sum(len(v) for v in spans.values())} jobs, {total / 60:.1f} job-minutes")
    print(f"{'kind':28s} {'jobs':>5s} {'job-min':>8s} {'share':>6s} {'mean s':>7s}")
    for kind, v in sorted(spans.items(), key=lambda kv: -sum(kv[1])):
        print(f"{kind:28s} {len(v):5d} {sum(v) / 60:8.2f} {sum(v) / total:6.1%} {sum(v) / len(v):7.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
