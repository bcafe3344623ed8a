"""Numba's on-disk cache (``@numba.njit(cache=True)``), made to notice edits of the modules a kernel calls.

Numba keys a cached kernel by the file that defines it (a hash of its content, numba 0.68), and nothing
else: a kernel of ``online/submod_pftal.py`` that inlines ``sort_chain`` from ``submodular/cuts.py`` keeps
being loaded, compiled from the old ``sort_chain``, after ``cuts.py`` is edited (numba documents this
limit).  The workflow reruns a job when any module its code imports changes (:mod:`privopt.codedigest`),
so the rerun would compute with the stale kernel.  Here the cache locators for the files of the
``privopt`` package add to numba's stamp the code digest of the defining module and of every ``privopt``
module it imports, transitively (docstrings and comments do not count): an edit anywhere in that closure
is a cache miss, and the kernel is compiled again.  Files outside ``privopt`` keep numba's own locators.

:func:`install` runs when ``privopt`` is imported (``privopt/__init__.py``): before numba is imported it
only names these locators in ``NUMBA_CACHE_LOCATOR_CLASSES`` (numba reads it on import; subprocesses
inherit it), so importing ``privopt`` does not import numba; when numba is already imported it puts them
first in numba's list of locators.  Either way, before any ``privopt`` kernel is defined.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path

__all__ = ["install", "closure_stamp", "InTreeLocator", "UserProvidedLocator", "LOCATORS"]

_ROOT = Path(__file__).resolve().parent  # .../src/privopt
#: numba's own locators, in numba's order, after ours (by name: numba resolves them in numba.core.caching)
_NUMBA_DEFAULT = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator", "IPythonCacheLocator",
                  "ZipCacheLocator")
LOCATORS = (f"{__name__}.UserProvidedLocator", f"{__name__}.InTreeLocator")


def _module_name(py_file: str) -> str | None:
    """``privopt.a.b`` for a file of this ``privopt`` package, else None."""
    try:
        rel = Path(py_file).resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        return None
    if rel.suffix != ".py":
        return None
    parts = rel.with_suffix("").parts
    return ".".join(("privopt", *parts[:-1])) if parts[-1] == "__init__" else ".".join(("privopt", *parts))


@cache
def closure_stamp(py_file: str) -> str | None:
    """The code digest of the module of ``py_file`` and of the ``privopt`` modules it imports (None outside
    ``privopt``); once per file and process (a module's kernels are defined when it is imported)."""
    from privopt.codedigest import code_digest

    name = _module_name(py_file)
    return code_digest([name], _ROOT.parent) if name else None


def _locator(base):
    class Locator(base):
        """numba's ``{base}``, for ``privopt`` files only, its stamp extended by :func:`closure_stamp`."""

        def get_source_stamp(self):
            return (super().get_source_stamp(), closure_stamp(self._py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if _module_name(py_file) is None:
                return None
            return super().from_function(py_func, py_file)

    Locator.__doc__ = Locator.__doc__.format(base=base.__name__)
    return Locator


def _class(name: str):
    if name not in globals():
        from numba.core import caching

        base = caching.InTreeCacheLocator if name == "InTreeLocator" else caching.UserProvidedCacheLocator
        cls = _locator(base)
        cls.__name__ = cls.__qualname__ = name
        globals()[name] = cls
    return globals()[name]


def __getattr__(name):  # the classes need numba: made when numba (or a caller) asks for them
    if name in ("InTreeLocator", "UserProvidedLocator"):
        return _class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def install() -> None:
    """Make numba use the ``privopt`` locators (module docstring); idempotent."""
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is None:
        if "NUMBA_CACHE_LOCATOR_CLASSES" not in os.environ:
            os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = ",".join((*LOCATORS, *_NUMBA_DEFAULT))
        return
    if numba_config.CACHE_LOCATOR_CLASSES:  # the locators are named (by us before numba's import, or a user)
        return
    from numba.core import caching

    ours = [_class("UserProvidedLocator"), _class("InTreeLocator")]
    classes = caching.CacheImpl._locator_classes  # numba's default list (numba 0.68)
    if classes[: len(ours)] != ours:
        classes[:0] = ours
