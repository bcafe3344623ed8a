"""The OpenBLAS kernel family every job of the workflow uses, so that rows summed through BLAS are the same
bits on every x86-64 CPU that can run it.

numpy's bundled OpenBLAS picks its kernels by the CPU at load time (``DYNAMIC_ARCH``), and the kernels of two
families sum a dot product in different orders: Shariff & Sheffet's Exp. 2 audit rows (LAPACK's ``eigvalsh`` and
``solve``) move by up to 12 units in the last place between the SkylakeX kernels an AVX-512 CPU gets by default
and the Haswell ones, by up to 16 under the Prescott ones.  (Perez-Salazar & Cummings' offline comparators moved
too; they are now summed in a fixed order, :mod:`privopt.online.osm.fixed_sums`.)  The workflow pins the Haswell
family (``OPENBLAS_CORETYPE=Haswell``, read by OpenBLAS when it loads) on every CPU with AVX2 and FMA, the
instructions those kernels need; the committed references were computed with them.  A CPU without them keeps
OpenBLAS's own choice (and ``snakemake verify`` reports the values that then differ); a value the user sets
is kept.

>>> pinned_coretype({"avx2", "fma", "sse2"}, {})
'Haswell'
>>> pinned_coretype({"sse2"}, {}) is None
True
>>> pinned_coretype({"avx2", "fma"}, {"OPENBLAS_CORETYPE": "Prescott"}) is None
True
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, MutableMapping, Set
from pathlib import Path

__all__ = ["CORETYPE", "NEEDS", "cpu_flags", "pinned_coretype", "pin_openblas", "openblas_corename"]

#: the OpenBLAS kernel family the workflow pins
CORETYPE = "Haswell"
#: the CPU flags its kernels need
NEEDS = frozenset({"avx2", "fma"})


def cpu_flags(cpuinfo: str | os.PathLike = "/proc/cpuinfo") -> frozenset[str]:
    """The flags of the first CPU listed in ``cpuinfo`` (empty where there is none: not Linux, not x86)."""
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def pinned_coretype(flags: Set[str], environ: Mapping[str, str]) -> str | None:
    """The ``OPENBLAS_CORETYPE`` to set: :data:`CORETYPE` when the CPU has :data:`NEEDS` and none is set;
    None otherwise (keep OpenBLAS's choice, or the user's)."""
    if environ.get("OPENBLAS_CORETYPE"):
        return None
    return CORETYPE if NEEDS <= set(flags) else None


def pin_openblas(environ: MutableMapping[str, str] = os.environ,
                 cpuinfo: str | os.PathLike = "/proc/cpuinfo") -> str | None:
    """Set ``OPENBLAS_CORETYPE`` in ``environ`` (inherited by every job the workflow starts) as
    :func:`pinned_coretype` says, on x86-64 only; the value now in force (None: OpenBLAS chooses)."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        chosen = pinned_coretype(cpu_flags(cpuinfo), environ)
        if chosen:
            environ["OPENBLAS_CORETYPE"] = chosen
    return environ.get("OPENBLAS_CORETYPE") or None


def openblas_corename() -> str | None:
    """The kernel family numpy's bundled OpenBLAS uses in this process ("Haswell", "SkylakeX", ...), from its
    ``*_get_corename`` function; None where numpy has no bundled OpenBLAS or it does not say."""
    import ctypes
    import glob

    import numpy

    here = Path(numpy.__file__).resolve().parent
    for path in sorted(glob.glob(str(here.parent / "numpy.libs" / "*openblas*")) + glob.glob(str(here / ".dylibs" / "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                     "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                found = fn()
                return found.decode() if found else None
    return None
