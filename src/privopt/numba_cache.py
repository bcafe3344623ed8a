"""Numba's on-disk cache (``@numba.njit(cache=True)``), made to notice edits of the modules a kernel calls.

Numba keys a cached kernel by the file that defines it (a hash of its content, numba 0.68), and nothing
else: a kernel of ``online/submod_pftal/kernels.py`` that inlines ``sort_chain`` from ``submodular/cuts.py`` keeps
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

Jobs that start together (``--cores N``, a cluster's array of one rule) compiled the same kernels each, the
same 25-70 CPU-s per bandit kernel signature N times over: :func:`serialise_compiles` makes a process about to
compile a signature of a ``privopt`` kernel wait while another compiles it, and then load it from the cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import logging
import os
import sys
from functools import cache
from pathlib import Path

__all__ = ["install", "closure_stamp", "package_subpath", "recover_bad_entries", "serialise_compiles", "InTreeLocator",
           "UserProvidedLocator", "LOCATORS"]

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


@contextlib.contextmanager
def _file_lock(path: str):
    """An exclusive ``flock`` on ``path`` (created); released when the block ends, or when the process dies.  A
    lock file that cannot be made (a read-only cache folder) only costs the wait: the block runs unlocked."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        _log.debug("no compile lock at %s (%s): compiling without it", path, exc)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _compile_lock_path(dispatcher, args) -> str | None:
    """The lock file of one signature of a ``privopt`` kernel cached through these locators, beside its index
    (``<index>.<hash of the argument types>.lock``); None for any other dispatcher."""
    cache = getattr(dispatcher, "_cache", None)
    locator = getattr(getattr(cache, "_impl", None), "locator", None)
    if locator is None or type(locator).__name__ not in ("InTreeLocator", "UserProvidedLocator") \
            or type(locator).__module__ != __name__:
        return None
    files = cache._cache_file
    key = hashlib.sha256(repr(tuple(args)).encode()).hexdigest()[:16]
    return os.path.join(files._cache_path, f"{files._index_name}.{key}.lock")


def serialise_compiles() -> None:
    """Make a process that is about to compile a signature of a cached ``privopt`` kernel wait while another
    process compiles the same one, then load it from the cache instead of compiling it too (numba 0.68's
    ``Dispatcher.compile`` looks in the cache before compiling); idempotent.

    Jobs of one rule start together (``--cores N``, a cluster's array) and each compiled the same kernels,
    25-70 CPU-s a signature for the bandit kernels: N times the work, for one result.  The lock is an ``flock``
    on a file beside the kernel's index, taken inside numba's compiler lock (so threads of one process never
    wait on each other through it); a callee compiled while its caller compiles takes its own, and kernels
    call each other without cycles, so two processes cannot wait on each other.  A process that dies releases
    its lock; a signature already loaded in the process takes none."""
    from numba.core import dispatcher, sigutils
    from numba.core.compiler_lock import global_compiler_lock

    cls = dispatcher.Dispatcher
    if getattr(cls.compile, "privopt_serialised", False):
        return
    compile_ = cls.compile

    held: set[str] = set()  # the locks this process holds (a recursive kernel asks for its own again)

    @functools.wraps(compile_)
    def compile(self, sig):
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            path = None if self.overloads.get(tuple(args)) is not None else _compile_lock_path(self, args)
            if path is None or path in held:
                return compile_(self, sig)
            with _file_lock(path):
                held.add(path)
                try:
                    return compile_(self, sig)
                finally:
                    held.discard(path)

    compile.privopt_serialised = True
    cls.compile = compile


def _entry_path(cache, sig, target_context) -> str:
    """The data file of a cache entry that unpickled but could not be rebuilt (incompatible contents)."""
    files = cache._cache_file
    name = files._load_index().get(cache._index_key(sig, target_context.codegen()))
    return files._data_path(name) if name else files._index_path


def _class(name: str):
    if name not in globals():
        from numba.core import caching

        recover_bad_entries()
        serialise_compiles()
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
    serialise_compiles()
    if numba_config.CACHE_LOCATOR_CLASSES:  # the locators are named (by us before numba's import, or a user)
        return
    from numba.core import caching

    ours = [_class("UserProvidedLocator"), _class("InTreeLocator")]
    classes = caching.CacheImpl._locator_classes  # numba's default list (numba 0.68)
    if classes[: len(ours)] != ours:
        classes[:0] = ours
