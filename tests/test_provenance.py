"""privopt.pipeline.provenance: versions, git state of the checkout, config digests."""

import json
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import privopt
from privopt.pipeline import provenance

PRIVOPT_DIR = Path(privopt.__file__).resolve().parent
GIT = shutil.which("git")


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def _is_checkout(path):
    return GIT is not None and subprocess.run(
        ["git", "ls-files", "--error-unmatch", "__init__.py"], cwd=path, capture_output=True
    ).returncode == 0


def test_environment_is_json_and_names_python_platform_packages_git():
    env = provenance.environment()
    assert set(env) == {"python", "platform", "packages", "git"}
    assert env["python"] == ".".join(map(str, __import__("sys").version_info[:3]))
    assert env["platform"]["machine"]
    json.dumps(env)  # serialisable as it is


@pytest.mark.parametrize("name", ["numpy", "scipy", "pandas", "pyarrow", "numba", "snakemake", "matplotlib", "seaborn"])
def test_package_versions_are_the_installed_distributions(name):
    packages = provenance.environment()["packages"]
    try:
        expected = metadata.version(name)
    except metadata.PackageNotFoundError:
        expected = "not installed"
    assert packages[name] == expected
    if name == "numpy":
        assert packages[name] == np.__version__


def test_absent_package_is_reported_not_raised(monkeypatch):
    monkeypatch.setattr(provenance, "PACKAGES", ("numpy", "no-such-distribution-privopt"))
    packages = provenance.environment()["packages"]
    assert packages["no-such-distribution-privopt"] == "not installed"
    assert packages["numpy"] == metadata.version("numpy")


@pytest.mark.skipif(not _is_checkout(PRIVOPT_DIR), reason="privopt is not imported from a git checkout")
def test_commit_is_head_of_the_checkout_privopt_is_imported_from():
    # Read before and after: someone may commit in a shared checkout meanwhile.
    before = _git("rev-parse", "HEAD", cwd=PRIVOPT_DIR), bool(_git("status", "--porcelain", cwd=PRIVOPT_DIR))
    git = provenance.environment()["git"]
    after = _git("rev-parse", "HEAD", cwd=PRIVOPT_DIR), bool(_git("status", "--porcelain", cwd=PRIVOPT_DIR))
    assert len(git["commit"]) == 40
    assert (git["commit"], git["dirty"]) in {before, after}


@pytest.mark.skipif(GIT is None, reason="git not installed")
def test_git_state_of_a_fresh_repository_follows_commits_and_edits(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    (repo / "a.py").write_text("x = 1\n")
    _git("add", "a.py", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one", cwd=repo)
    state = provenance.git_state(repo)
    assert state == {"commit": _git("rev-parse", "HEAD", cwd=repo), "dirty": False}
    (repo / "a.py").write_text("x = 2\n")
    assert provenance.git_state(repo) == {"commit": state["commit"], "dirty": True}
    # A directory inside the work tree that holds no tracked file is not "that checkout's code".
    (repo / "venv").mkdir()
    assert provenance.git_state(repo / "venv") == {"commit": None, "dirty": None}
    # Changes under an excluded top-level folder (a reference being written) do not make it dirty.
    (repo / "a.py").write_text("x = 1\n")
    (repo / "reference" / "p").mkdir(parents=True)
    (repo / "reference" / "p" / "manifest.json").write_text("{}")
    assert provenance.git_state(repo)["dirty"] is True
    assert provenance.git_state(repo, exclude=("reference",))["dirty"] is False
    (repo / "b.py").write_text("y = 1\n")
    assert provenance.git_state(repo, exclude=("reference",))["dirty"] is True


def test_not_a_git_checkout_gives_none(tmp_path):
    assert provenance.git_state(tmp_path) == {"commit": None, "dirty": None}
    assert provenance.git_state(tmp_path / "missing") == {"commit": None, "dirty": None}


def test_git_missing_gives_none_without_raising(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no git executable anywhere on PATH
    env = provenance.environment()
    assert env["git"] == {"commit": None, "dirty": None}
    assert env["packages"]["numpy"] == metadata.version("numpy")


def test_git_failing_gives_none(monkeypatch, tmp_path):
    fake = tmp_path / "git"
    fake.write_text("#!/bin/sh\necho boom >&2\nexit 128\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert provenance.git_state() == {"commit": None, "dirty": None}


def test_config_digest_is_stable_under_key_order():
    a = {"paper": "chaturvedi2021", "eps": [0.1, 1.0], "grid": {"m": 10, "k": 3}, "tag": None}
    b = {"tag": None, "grid": {"k": 3, "m": 10}, "eps": [0.1, 1.0], "paper": "chaturvedi2021"}
    assert provenance.config_digest(a) == provenance.config_digest(b)
    digest = provenance.config_digest(a)
    assert len(digest) == 64 and int(digest, 16) >= 0
    # numpy scalars and tuples canonicalise like their Python counterparts
    c = {"paper": "chaturvedi2021", "eps": (np.float64(0.1), 1.0), "grid": {"m": np.int64(10), "k": 3}, "tag": None}
    assert provenance.config_digest(c) == digest


def test_config_digest_is_pinned_to_the_canonical_json():
    # Guards the encoding itself: a change would silently re-key every stored digest.
    assert provenance.config_digest({"b": 1, "a": 0.5}) == (
        __import__("hashlib").sha256(b'{"a":{"float":"0.5"},"b":1}').hexdigest()
    )


@pytest.mark.parametrize(
    "changed",
    [
        {"eps": [0.1, 2.0], "grid": {"m": 10, "k": 3}},
        {"eps": [0.1, 1.0], "grid": {"m": 11, "k": 3}},
        {"eps": [1.0, 0.1], "grid": {"m": 10, "k": 3}},  # list order matters
        {"eps": [0.1, 1.0], "grid": {"m": 10.0, "k": 3}},  # 10 and 10.0 are different keys
        {"eps": [0.1, 1.0], "grid": {"m": 10, "k": 3}, "extra": True},
    ],
)
def test_config_digest_changes_when_a_value_changes(changed):
    base = {"eps": [0.1, 1.0], "grid": {"m": 10, "k": 3}}
    assert provenance.config_digest(changed) != provenance.config_digest(base)


def test_config_digest_rejects_values_without_canonical_form():
    with pytest.raises(TypeError):
        provenance.config_digest({"f": object()})
