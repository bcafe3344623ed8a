"""Re-encode committed references' parquet files compactly (privopt.pipeline.reference_results.compact_reference):
the same values in fewer bytes, the manifests' digests and sizes updated, nothing recomputed.  References
written by ``snakemake reference_<paper>`` are compact already; this gives the budget back the bytes of those
written before.

    python scripts/compact_reference.py reference/*/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privopt.pipeline.reference_results import MAX_BYTES, compact_reference


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="reference folders (reference/<paper>/)")
    args = ap.parse_args(argv)
    total_before = total_after = 0
    for folder in args.folders:
        before, after = compact_reference(folder)
        total_before, total_after = total_before + before, total_after + after
        print(f"{folder}: {before:,} -> {after:,} bytes")
    print(f"together: {total_before:,} -> {total_after:,} bytes (budget {MAX_BYTES:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
