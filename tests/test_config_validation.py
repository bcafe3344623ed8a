"""Values that passed the schemas and broke later, now refused at validation or by the cost guard before any
job is planned (issue 38): NaN and infinity, counts that make planning itself exhaust the memory, a job
whose cost model ignored the key that sizes it, a scale name too long for a folder, an all-digit hash read
as a number.  Library-level (privopt.pipeline.config.load_config, privopt.pipeline.costguard), as the
workflow calls them (workflow/rules/common.smk: check_config)."""

from __future__ import annotations

import time

import pytest
import yaml

from privopt.pipeline import cost as run_cost
from privopt.pipeline import costguard
from privopt.pipeline.config import ConfigSources, load_config
from privopt.pipeline.errors import ConfigError
from privopt.pipeline.registry import papers
from workflow_runs import CONFIG

GUARD = {"enabled": True, "max_mem_mb": 64_000, "max_job_hours": 24}


def _refused(tmp_path, text: str, overrides=None) -> tuple[str, str]:
    mine = tmp_path / "mine.yaml"
    mine.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config([mine], overrides)
    return str(err.value), str(mine)


@pytest.mark.parametrize("text, key", [
    # eps: .nan passed `exclusiveMinimum: 0` (nan <= 0 is false) and every run job then failed unnamed
    ("chaturvedi2021:\n  eps: .nan\n", "chaturvedi2021.eps"),
    ("chaturvedi2021:\n  eps: .inf\n", "chaturvedi2021.eps"),
    # inside a list
    ("smith2013:\n  st2:\n    eps: [0.5, -.inf]\n", "smith2013.st2.eps[1]"),
    # max_job_hours: .nan switched the time limit off (nan is truthy, and no estimate is > nan)
    ("cost_guard: {max_job_hours: .nan}\n", "cost_guard.max_job_hours"),
])
def test_nan_and_infinity_are_refused_naming_the_key_and_the_file(tmp_path, text, key):
    message, mine = _refused(tmp_path, text)
    assert f"config key {key} (" in message and f"set in {mine})" in message, message
    assert "NaN and infinity are refused" in message, message


def test_nan_from_the_command_line_names_the_command_line(tmp_path):
    message, _ = _refused(tmp_path, "", {"chaturvedi2021": {"delta_exponent": float("nan")}})
    assert "config key chaturvedi2021.delta_exponent (paper chaturvedi2021; set in --config on the command line)" \
        in message, message


def test_an_all_digit_hash_is_told_to_be_quoted(tmp_path):
    """YAML reads 64 unquoted digits as an int; the message said only "is not of type 'string'"."""
    digits = "1" * 64
    assert isinstance(yaml.safe_load(f"uber_sha256: {digits}\n")["uber_sha256"], int)
    message, mine = _refused(tmp_path, f"uber_sha256: {digits}\n")
    assert f"config key uber_sha256 (workflow setting; set in {mine})" in message, message
    assert "write it in quotes" in message, message
    # quoted, it is a valid hash
    quoted = tmp_path / "quoted.yaml"
    quoted.write_text(f'uber_sha256: "{digits}"\n')
    assert load_config([quoted])["uber_sha256"] == digits


def test_a_scale_name_too_long_for_a_folder_says_how_long_it_may_be(tmp_path):
    """A 300-character scale name reached the file system: 'File name too long'."""
    message, mine = _refused(tmp_path, f"scale: {'s' * 300}\n")
    assert f"config key scale (workflow setting; set in {mine})" in message, message
    assert "is 300 characters long, more than the 64 allowed" in message, message
    assert "s" * 100 not in message  # the value is quoted, not dumped whole


# ----------------------------------------------------------------------------- the size of the plan


def test_a_count_that_would_exhaust_planning_is_refused_at_once_naming_the_key(tmp_path):
    """n_runs: 1e9 made Snakemake build 2*10^7 seed blocks (48 s, 7.6 GB) before any job was priced."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("chaturvedi2021:\n  fig1:\n    n_runs: 1e9\n")
    config = load_config([mine])  # a valid config: every key within its bounds
    start = time.perf_counter()
    with pytest.raises(ConfigError) as err:
        costguard.check_plan(config, papers(), origin=ConfigSources([mine]).origin)
    elapsed = time.perf_counter() - start
    message = str(err.value)
    assert "more than cost_guard.max_run_jobs = 20,000" in message, message
    assert "chaturvedi2021.fig1 alone plans 60,000,000" in message, message  # 6 points x 10^9 / 100 per job
    assert f"chaturvedi2021.fig1.n_runs = 1000000000 (set in {mine}; doubled: x2" in message, message
    # counted, not enumerated: about a millisecond; the bound leaves room for a loaded machine
    assert elapsed < 2.0, elapsed
    # the user's way on: a higher limit (or none)
    assert costguard.check_plan({**config, "cost_guard": {**config["cost_guard"], "max_run_jobs": None}},
                                papers()) > 6 * 10**7  # Figure 1's 6·10^7 and the rest of the quick scale's


@pytest.mark.parametrize("files", [[], ["paper.yaml"], ["smoke.yaml"]])
def test_the_shipped_scales_plan_within_the_limit(files):
    config = load_config([CONFIG / f for f in files])
    count = costguard.check_plan(config, papers())
    expected = sum(len(list(p.run_jobs(config[k]))) for k, p in papers().items())
    assert count == expected  # the arithmetic count is the jobs Snakemake plans


# ----------------------------------------------------------------------------- the jobs that are not run jobs


def test_an_audit_sample_no_machine_can_hold_is_refused_before_planning_naming_the_key_and_the_file(tmp_path):
    """privacy_audit.samples: 1e12 passed the schema (an integer >= 100) and no audit job was priced: each paper's
    audit job would have tried to draw 10^12 outputs per input of every audit."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("privacy_audit:\n  samples: 1e12\n")
    config = load_config([mine])
    with pytest.raises(ConfigError) as err:
        costguard.check_audits(config, papers(), origin=ConfigSources([mine]).origin)
    message = str(err.value)
    assert "audit job " in message and "_audit (1,000,000,000,000 samples per input" in message, message
    assert "TB of memory" in message, message
    assert f"privacy_audit.samples = 1000000000000 (set in {mine})" in message, message
    # the time limit too: Chaturvedi et al.'s audits at 10^6 samples each compute for hours
    mine.write_text("privacy_audit:\n  samples: 1e6\n")
    with pytest.raises(ConfigError, match=r"audit job chaturvedi2021_audit .* compute for .* more than "
                                          r"cost_guard.max_job_hours = 1"):
        costguard.check_audits({**load_config([mine]), "cost_guard": {**GUARD, "max_job_hours": 1}}, papers())


@pytest.mark.parametrize("files", [[], ["paper.yaml"], ["smoke.yaml"]])
def test_the_shipped_audit_samples_are_the_declared_ones_and_a_number_is_priced_by_it(files):
    config = load_config([CONFIG / f for f in files])
    priced = costguard.check_audits(config, papers())  # within the limits
    # "quick" / "paper": each audit's own declared samples, measured; a number (the smoke scale's) is priced
    assert (priced == {}) == isinstance(config["privacy_audit"]["samples"], str)
    small = costguard.check_audits({**config, "privacy_audit": {**config["privacy_audit"], "samples": 1000}}, papers())
    assert set(small) == {k for k, p in papers().items() if p.audits}
    for key, (seconds, mb) in small.items():  # the job's resources, from a model linear in the samples
        data_mb = run_cost.audit_cost(key, 1000)[1]
        assert (seconds, mb) == (run_cost.audit_cost(key, 1000)[0], run_cost.mem_mb(data_mb))
        assert run_cost.audit_cost(key, 2000) == pytest.approx((2 * seconds, 2 * data_mb))


def test_the_audit_cost_model_measures_every_declared_audit():
    """An audit added without its constants would be priced as a guess: benchmarks/audit_cost.py measures it."""
    from privopt.pipeline.protocol import resolve

    declared = {key: {a.name: a for ref in p.audits for a in resolve(ref)()} for key, p in papers().items() if p.audits}
    assert {key: set(audits) for key, audits in declared.items()} == \
        {key: set(audits) for key, audits in run_cost.AUDIT_COST.items()}
    for key, audits in declared.items():
        for name, audit in audits.items():
            _, per_sample = run_cost.AUDIT_COST[key][name]
            # at least the outputs it holds: two inputs of int64 codes or float rows
            assert per_sample >= 2 * 8 * len(audit.labels or (0,)), (key, name)


# ----------------------------------------------------------------------------- the job's estimate


def _privacy_job(config: dict) -> dict:
    paper = papers()["perezsalazar2021"]
    exp = paper.experiment("privacy")
    section = config["perezsalazar2021"]
    point = exp.points(section)[0]
    return dict(rule="perezsalazar2021_runs_privacy", key="perezsalazar2021", exp=exp, section=section, point=point,
                block="0-0", n_seeds=1, seconds=run_cost.job_seconds(exp, section, point, 1),
                mem_mb=run_cost.mem_mb(run_cost.job_data_mb(exp, section, point, 1)))


def test_the_certified_grid_is_priced_by_its_points(tmp_path):
    """cert.points: 1e9 was priced at the fixed 1 GB of a job without a memory model, then failed allocating
    7.45 GiB; the job's memory and time now follow the grid's rows."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("perezsalazar2021:\n  privacy:\n    cert: {points: 1e9}\n")
    costguard.check_job(**_privacy_job(load_config([])), guard=GUARD, local=True)  # the default grid goes on
    with pytest.raises(ConfigError) as err:
        costguard.check_job(**_privacy_job(load_config([mine])), guard=GUARD, local=True,
                            origin=ConfigSources([mine]).origin)
    message = str(err.value)
    assert "run job perezsalazar2021_runs_privacy" in message and "TB of memory" in message, message
    assert f"perezsalazar2021.privacy.cert.points = 1000000000 (set in {mine}; doubled: x2" in message, message


@pytest.mark.parametrize("estimate", [{"seconds": float("inf")}, {"seconds": float("nan")}])
def test_an_estimate_that_is_not_a_finite_number_is_refused(estimate):
    """A cost model that overflows gave inf or nan seconds, and `nan > limit` is false: the job went on."""
    job = {**_privacy_job(load_config([])), "seconds": None, "mem_mb": None, **estimate}
    with pytest.raises(ConfigError, match="not a finite number"):
        costguard.check_job(**job, guard=GUARD, local=True)
    costguard.check_job(**job, guard={**GUARD, "enabled": False}, local=True)


def test_a_nested_command_line_value_reads_null_and_booleans_as_a_config_file_does():
    """Snakemake reads a nested --config value with YAML's BaseLoader, which leaves every scalar a string:
    ``--config "shariff2018={exp2: {n_rounds: null}}"`` (the full horizon) was refused as "'null' is not of
    type 'integer', 'null'"; numbers were already read as numbers.  A string the schema wants stays a string."""
    from snakemake.cli import parse_config

    over = parse_config(["shariff2018={exp2: {n_rounds: null, runs: 7}}"])
    assert over == {"shariff2018": {"exp2": {"n_rounds": "null", "runs": "7"}}}
    exp2 = load_config([CONFIG / "paper.yaml", CONFIG / "shariff-reference.yaml"], over)["shariff2018"]["exp2"]
    assert exp2["n_rounds"] is None and exp2["runs"] == 7
    flag = load_config([], parse_config(["cost_guard={enabled: false}"]))["cost_guard"]["enabled"]
    assert flag is False
    # where the schema wants a string, the word stays a word (and a wrong word is still refused, naming the key)
    with pytest.raises(ConfigError, match=r"shariff2018\.exp2\.wishart_gamma_rule"):
        load_config([], parse_config(["shariff2018={exp2: {wishart_gamma_rule: null}}"]))
