"""Every numba kernel of privopt keeps the kernel/twin contract (tests/kernel_contract.py), and the contract can
fail: a twin off by one ulp, a kernel that forgets its seed or one that is not deterministic is caught."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import privopt
from kernel_contract import KernelTwinContract

SRC = Path(privopt.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
#: a kernel's name: ``<algorithm>_kernel`` or ``<algorithm>_kernel_<flavour>`` (``episode_kernel_prefilter``)
KERNEL_NAME = re.compile(r"(^|_)kernel(_[a-z0-9]+)*$")


def privopt_kernels() -> dict[str, object]:
    """``module.name`` → numba dispatcher, for every module-level njit function of privopt named as a kernel."""
    from numba.core.registry import CPUDispatcher

    found = {}
    for path in sorted(SRC.rglob("*.py")):
        if "njit" not in path.read_text(encoding="utf-8"):
            continue
        rel = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if (isinstance(obj, CPUDispatcher) and KERNEL_NAME.search(attr)
                    and obj.py_func.__module__ == name):
                found[f"{name}.{attr}"] = obj
    return found


def contract_pairs() -> list[type[KernelTwinContract]]:
    """Every :class:`KernelTwinContract` subclass of the test modules (each module that names the contract is
    imported, as pytest imports it: by its name, tests/ being on the path)."""
    for path in sorted(TESTS.glob("test_*.py")):
        if path != Path(__file__).resolve() and "KernelTwinContract" in path.read_text(encoding="utf-8"):
            importlib.import_module(path.stem)
    pairs, todo = [], list(KernelTwinContract.__subclasses__())
    while todo:
        cls = todo.pop()
        pairs.append(cls)
        todo.extend(cls.__subclasses__())
    return [cls for cls in pairs if cls.__module__ != __name__]


def test_every_kernel_has_a_twin_under_the_contract():
    kernels = privopt_kernels()
    assert len(kernels) >= 10, sorted(kernels)  # the walk found the package's kernels
    covered = {id(k) for cls in contract_pairs() for k in cls.kernels}
    missing = sorted(name for name, k in kernels.items() if id(k) not in covered)
    assert not missing, (f"kernels without a twin under the contract (subclass tests/kernel_contract.py's "
                         f"KernelTwinContract and list them in its kernels): {missing}")


#: the modules that hold a kernel outside a ``kernels.py`` (docs/adding-a-paper.md, "A kernel and its twin"): the
#: LinUCB lockstep and prefilter kernels beside the helpers only they use, TBAP's in the mechanism's one module
KERNELS_ELSEWHERE = {"privopt.bandits.lockstep", "privopt.bandits.prefilter", "privopt.mechanisms.tbap"}


def test_kernels_and_twins_are_named_and_placed_by_the_convention():
    """A kernel lives in its package's ``kernels.py`` (or a stated exception); a ``reference.py`` holds twins named
    ``<algorithm>_reference`` and nothing public else; no function of a package with kernels is named as the old
    twins were (``*_numpy``)."""
    kernels = privopt_kernels()
    misplaced = sorted(name for name in kernels
                       if name.rpartition(".")[0].rpartition(".")[2] != "kernels"
                       and name.rpartition(".")[0] not in KERNELS_ELSEWHERE)
    assert not misplaced, f"kernels outside a kernels.py: {misplaced}"
    assert {name.rpartition(".")[0] for name in kernels} >= KERNELS_ELSEWHERE, "a stated exception holds no kernel"
    references = list(SRC.rglob("reference.py"))  # the committed results are privopt.pipeline.reference_results
    assert len(references) >= 3, references
    for path in references:
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        public = importlib.import_module(name).__all__
        bad = [f for f in public if not f.endswith("_reference")]
        assert public and not bad, f"{name}: twins are named <algorithm>_reference, not {bad}"
    packages = {p.parent for p in SRC.rglob("kernels.py")}
    old = sorted(f"{path.relative_to(SRC)}: {m.group(1)}" for package in packages for path in package.glob("*.py")
                 for m in re.finditer(r"^def ([a-z0-9_]+_numpy)\(", path.read_text(encoding="utf-8"), re.M))
    assert not old, f"twins named *_numpy (rename to <algorithm>_reference, beside the kernel): {old}"


def test_every_pair_names_real_kernels_and_cases():
    for cls in contract_pairs():
        assert cls.__name__.startswith("Test"), f"{cls.__module__}.{cls.__name__}: pytest collects Test* only"
        assert cls.kernels and cls.CASES, f"{cls.__module__}.{cls.__name__}: kernels and CASES"
        assert all(hasattr(k, "py_func") for k in cls.kernels), f"{cls.__name__}: kernels are numba dispatchers"


# ---- the contract can fail: planted bugs in a toy pair (plain numpy, no compilation) ----
def _toy(seed: int, n: int, ulp: bool = False, seeded: bool = True, drift: list | None = None):
    rng = np.random.default_rng(seed if seeded else 0)
    x = np.cumsum(rng.standard_normal(n))
    if ulp:
        x[n // 2] = np.nextafter(x[n // 2], np.inf)
    if drift is not None:
        drift.append(1)
        x[0] = x[0] * (1.0 + len(drift) * 1e-15)  # a few ulps more at each call
    return {"path": x, "last": float(x[-1])}


class _Toy(KernelTwinContract):
    CASES = {"n=10": 10, "n=33": 33}

    def run_kernel(self, variant, case, seed):
        return _toy(seed, case)

    def run_twin(self, case, seed):
        return _toy(seed, case)


class _OffByOneUlp(_Toy):
    def run_twin(self, case, seed):
        return _toy(seed, case, ulp=True)


class _IgnoresItsSeed(_Toy):
    def run_kernel(self, variant, case, seed):
        return _toy(seed, case, seeded=False)

    run_twin = run_kernel


class _NotDeterministic(_Toy):
    def __init__(self):
        self.calls = []

    def run_kernel(self, variant, case, seed):
        return _toy(seed, case, drift=self.calls)


def test_the_contract_passes_a_true_pair():
    pair = _Toy()
    for case_id in pair.CASES:
        pair.test_kernel_equals_twin(case_id, "kernel")
        pair.test_kernel_is_deterministic(case_id)
        pair.test_seed_reaches_the_kernel(case_id)


@pytest.mark.parametrize("pair, test", [
    (_OffByOneUlp, "test_kernel_equals_twin"),
    (_IgnoresItsSeed, "test_seed_reaches_the_kernel"),
    (_NotDeterministic, "test_kernel_is_deterministic"),
])
def test_the_contract_catches_a_planted_bug(pair, test):
    args = ("n=33", "kernel") if test == "test_kernel_equals_twin" else ("n=33",)
    with pytest.raises(AssertionError):
        getattr(pair(), test)(*args)


def test_a_missing_value_fails_the_agreement():
    class _Drops(_Toy):
        def run_kernel(self, variant, case, seed):
            return {"path": _toy(seed, case)["path"]}

    with pytest.raises(AssertionError, match="returns no"):
        _Drops().test_kernel_equals_twin("n=10", "kernel")
