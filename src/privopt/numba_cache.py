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

With ``NUMBA_CACHE_DIR`` set, numba files a kernel under a hash of its source file's absolute folder, so two
copies of the package (a workflow copy, a second clone, a cluster node's checkout) never share a compiled
kernel.  The ``privopt`` locator files it instead under the module's place in the package and its closure
stamp (``<NUMBA_CACHE_DIR>/privopt/bandits/kernels-<stamp>``): every copy whose import closure has the same
code shares the kernels compiled by any of them, and a copy with other code has folders of its own, so that
two copies of different code never write into one index (numba numbers a kernel's data files afresh when its
index's stamp changes: a shared index could name a kernel compiled from the other copy's code).  The test
suite uses it (tests/conftest.py): the smoke pipeline runs on a copy of the workflow, which before compiled
every kernel that the unit tests compiled again in the checkout.

A cache entry that cannot be read back (an index ``.nbi`` or a data file ``.nbc`` truncated by a killed
writer or a full disk, or written by an incompatible numba) made numba raise ``UnpicklingError: could not
find MARK`` at every call, naming no file, until the file was deleted by hand.  When numba first asks for
these locators (or at :func:`install` when numba is already imported), :func:`recover_bad_entries` makes
numba's cache files treat such an entry as a miss: the file is removed, a warning naming it is logged
(``privopt.numba_cache``; a job's log), and the kernel is compiled again and cached anew.  It applies to
every numba cache of the process: numba has no other way to recover from an unreadable entry.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from functools import cache
from pathlib import Path

__all__ = ["install", "closure_stamp", "package_subpath", "recover_bad_entries", "InTreeLocator", "UserProvidedLocator",
           "LOCATORS"]

_log = logging.getLogger(__name__)

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

        @classmethod
        def get_suitable_cache_subpath(cls, py_file):  # numba's UserProvidedCacheLocator asks for it
            return package_subpath(py_file)

    Locator.__doc__ = Locator.__doc__.format(base=base.__name__)
    return Locator


def package_subpath(py_file: str) -> str:
    """Where, under ``NUMBA_CACHE_DIR``, the kernels of a ``privopt`` file lie: its module's folders in the
    package, then its file name and the closure stamp (module docstring); independent of where the package is."""
    rel = Path(py_file).resolve().relative_to(_ROOT)
    return os.path.join("privopt", *rel.parent.parts, f"{rel.stem}-{closure_stamp(py_file)}")


def _discard(path: str, exc: Exception) -> None:
    _log.warning("numba cache: %s cannot be read (%s: %s): removed it; the kernel is compiled again and cached anew",
                 path, type(exc).__name__, exc)
    try:
        os.remove(path)
    except FileNotFoundError:  # another process removed it first
        pass


def _recovering(load, path_of, miss):
    """numba's ``load`` of one cache file, with an unreadable file removed and read as ``miss``.  OSError is
    numba's own business (a file removed while the index still names it, permissions)."""

    @functools.wraps(load)
    def wrapper(self, *args):
        try:
            return load(self, *args)
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever unpickling a damaged file raises
            _discard(path_of(self, *args), exc)
            return miss()

    wrapper.privopt_recovering = True
    return wrapper


def recover_bad_entries() -> None:
    """Make numba's cache (``numba.core.caching``, numba 0.68) read an index or data file that cannot be
    unpickled, or an entry that cannot be rebuilt from what it holds, as a cache miss: the file removed,
    logged with its path, the kernel compiled again; idempotent."""
    from numba.core import caching

    files = caching.IndexDataCacheFile
    if getattr(files._load_index, "privopt_recovering", False):
        return
    files._load_index = _recovering(files._load_index, lambda self: self._index_path, dict)
    files._load_data = _recovering(files._load_data, lambda self, name: self._data_path(name), lambda: None)
    caching.Cache._load_overload = _recovering(caching.Cache._load_overload, _entry_path, lambda: None)


def _entry_path(cache, sig, target_context) -> str:
    """The data file of a cache entry that unpickled but could not be rebuilt (incompatible contents)."""
    files = cache._cache_file
    name = files._load_index().get(cache._index_key(sig, target_context.codegen()))
    return files._data_path(name) if name else files._index_path


def _class(name: str):
    if name not in globals():
        from numba.core import caching

        recover_bad_entries()
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
    recover_bad_entries()
    if numba_config.CACHE_LOCATOR_CLASSES:  # the locators are named (by us before numba's import, or a user)
        return
    from numba.core import caching

    ours = [_class("UserProvidedLocator"), _class("InTreeLocator")]
    classes = caching.CacheImpl._locator_classes  # numba's default list (numba 0.68)
    if classes[: len(ours)] != ours:
        classes[:0] = ours
