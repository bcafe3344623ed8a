"""Regenerate the README's and docs' tables from the papers' declarations (privopt.pipeline.doctables).

    python scripts/docs_tables.py           # rewrite every generated block
    python scripts/docs_tables.py --check   # list the blocks that differ, exit 1 if any (changes nothing)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privopt.pipeline.config import load_config
from privopt.pipeline.doctables import COST_CONFIGS, update
from privopt.pipeline.registry import papers

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 listing the blocks that differ")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to update (default: this one)")
    args = ap.parse_args(argv)
    base, *files = (args.root / c for c in COST_CONFIGS)
    config = load_config(files, base=base, schemas=args.root / "workflow" / "schemas")
    stale = update(args.root, papers(), config, check=args.check)
    for s in stale:
        print(("differs: " if args.check else "rewrote: ") + s)
    if args.check and stale:
        print("run `python scripts/docs_tables.py` to regenerate them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
