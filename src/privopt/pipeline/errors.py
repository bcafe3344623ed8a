"""Errors a job reports to the person who configured it (a module of its own, so that the run code
importing it does not import, and rerun with, the whole protocol)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ConfigError", "config_key"]


class ConfigError(ValueError):
    """A config value that cannot be run; the message names the config key (``paper.section.key``)."""


@contextmanager
def config_key(key: str, parameter: str) -> Iterator[None]:
    """Turn the library's ``ValueError("<parameter>: …")`` into a ``ConfigError("<key>: …")``.

    The library names its own parameters and knows nothing of the config; the paper's run and instance
    code, which knows which config key fed ``parameter``, wraps the call::

        with config_key("cardoso2019.rc1b.T", "T"):
            setup = bandit_setup(n, T, eps)

    Any other error (one about another parameter, or not a ValueError) passes through unchanged."""
    try:
        yield
    except ConfigError:
        raise
    except ValueError as exc:
        prefix = f"{parameter}: "
        msg = str(exc)
        if not msg.startswith(prefix):
            raise
        raise ConfigError(f"{key}: {msg[len(prefix):]}") from exc
