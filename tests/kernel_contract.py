"""The contract every numba kernel of ``privopt`` keeps with its numpy twin, written once.

A kernel (a ``@numba.njit`` loop over rounds or items, fast and hard to read) has a twin: plain numpy or
Python code that draws from the same random streams and is meant to compute the same thing, written to be
read.  A test module of the kernel's package subclasses :class:`KernelTwinContract` once per pair and says
four things: which kernels the pair covers (``kernels``, for the coverage test in
``tests/test_kernel_contract.py``), its cases (``CASES``: id → whatever the runners take), how to run a kernel
(``run_kernel``, once per entry of ``VARIANTS`` when one twin stands behind several kernels) and how to run the
twin (``run_twin``).  Both runners return a mapping name → value (arrays, numbers, frames).  The contract
then asserts, for every case:

* **the twin agrees**: every value the twin returns, the kernel returns too, bit for bit
  (:meth:`KernelTwinContract.assert_agree`; a pair whose arithmetic differs, e.g. a BLAS product that sums in
  another order, overrides it with a tolerance and says why);
* **the kernel is deterministic**: run twice from the same seed, every value is identical;
* **the seed reaches the kernel**: another seed changes some value, so that agreement is not that of two
  functions that both ignore their random stream (a pair without randomness sets
  ``test_seed_reaches_the_kernel = None``, and says so).

``tests/conftest.py`` parametrises the three tests over ``CASES`` and ``VARIANTS``
(:func:`parametrise_contract`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd


def assert_same(name: str, got: Any, want: Any) -> None:
    """``got`` equals ``want`` bit for bit (arrays: same shape, dtype kind and every element, NaN equal to NaN;
    frames: exact)."""
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=name)
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        got, want = np.asarray(got), np.asarray(want)
        assert got.shape == want.shape, f"{name}: shape {got.shape} ≠ {want.shape}"
        np.testing.assert_array_equal(got, want, err_msg=name, strict=False)
    else:
        assert got == want or (got != got and want != want), f"{name}: {got!r} ≠ {want!r}"


def differs(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether some value of ``a`` differs from the same-named value of ``b``."""
    for name, x in a.items():
        try:
            assert_same(name, x, b[name])
        except AssertionError:
            return True
    return False


class KernelTwinContract:
    """Subclass once per kernel/twin pair (module docstring); the name must start with ``Test``."""

    #: the numba dispatchers this pair covers (every ``*_kernel`` of privopt must be in some pair's)
    kernels: ClassVar[tuple] = ()
    #: case id → case (what :meth:`run_kernel` and :meth:`run_twin` take)
    CASES: ClassVar[Mapping[str, Any]] = {}
    #: the kernels behind one twin, by name (passed to :meth:`run_kernel`)
    VARIANTS: ClassVar[tuple[str, ...]] = ("kernel",)
    #: the two seeds of the determinism and seed tests
    SEEDS: ClassVar[tuple[int, int]] = (5, 6)

    def run_kernel(self, variant: str, case: Any, seed: int) -> Mapping[str, Any]:
        raise NotImplementedError

    def run_twin(self, case: Any, seed: int) -> Mapping[str, Any]:
        raise NotImplementedError

    def assert_agree(self, got: Mapping[str, Any], want: Mapping[str, Any]) -> None:
        """Every value of the twin's, bit for bit."""
        missing = sorted(set(want) - set(got))
        assert not missing, f"the kernel returns no {missing}"
        for name, value in want.items():
            assert_same(name, got[name], value)

    # ---- the contract (parametrised by tests/conftest.py) ----
    def test_kernel_equals_twin(self, case_id, variant):
        case = self.CASES[case_id]
        self.assert_agree(self.run_kernel(variant, case, self.SEEDS[0]), self.run_twin(case, self.SEEDS[0]))

    def test_kernel_is_deterministic(self, case_id):
        case = self.CASES[case_id]
        a = self.run_kernel(self.VARIANTS[0], case, self.SEEDS[0])
        b = self.run_kernel(self.VARIANTS[0], case, self.SEEDS[0])
        for name, value in a.items():
            assert_same(name, b[name], value)

    def test_seed_reaches_the_kernel(self, case_id):
        case = self.CASES[case_id]
        a = self.run_kernel(self.VARIANTS[0], case, self.SEEDS[0])
        b = self.run_kernel(self.VARIANTS[0], case, self.SEEDS[1])
        assert differs(a, b), f"seeds {self.SEEDS} give the same {sorted(a)}: the kernel ignores its seed"


def parametrise_contract(metafunc) -> None:
    """``pytest_generate_tests`` for :class:`KernelTwinContract` subclasses: ``case_id`` over ``CASES``,
    ``variant`` over ``VARIANTS``."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, KernelTwinContract):
        return
    if "case_id" in metafunc.fixturenames:
        if not cls.CASES:
            raise ValueError(f"{cls.__name__}: a kernel/twin contract needs CASES")
        metafunc.parametrize("case_id", list(cls.CASES))
    if "variant" in metafunc.fixturenames:
        metafunc.parametrize("variant", list(cls.VARIANTS))
