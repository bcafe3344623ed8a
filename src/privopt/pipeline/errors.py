"""Errors a job reports to the person who configured it (a module of its own, so that the run code
importing it does not import, and rerun with, the whole protocol)."""

__all__ = ["ConfigError"]


class ConfigError(ValueError):
    """A config value that cannot be run; the message names the config key (``paper.section.key``)."""
