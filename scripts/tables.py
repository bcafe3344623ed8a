"""Snakemake entry: the run files of one experiment -> its tables, and a provenance record of them."""

import logging

from privopt.pipeline.registry import paper
from privopt.io import concat_tables, log_to_file, write_json, write_table
from privopt.pipeline.provenance import config_digest, environment, file_sha256

log_to_file(snakemake.log[0])
p = snakemake.params
experiment = paper(p.paper).experiment(p.experiment)
frames = {name: concat_tables(files) for name, files in snakemake.input.items()}
tables = experiment.make_tables(frames, p.settings)
for spec, path in zip(experiment.table_files, snakemake.output.tables):
    write_table(tables[spec.stem], path, spec.float_format)
# What made these tables: the code (digest of the library modules the runs and tables use, git
# commit), the package versions, the settings the tables read and, per parameter point, the settings
# its runs read, the checks of the data the runs read (data set → check: the content key that names the data's
# folder and these tables' namespace); and the sha256 of each table (every rule that reads a table checks it).
write_json({"paper": p.paper, "experiment": p.experiment, "scale": p.scale, "data": p.data,
            "tables": list(snakemake.output.tables),
            "sha256": {path: file_sha256(path) for path in snakemake.output.tables},
            "settings": p.settings, "settings_digest": config_digest(p.settings), "runs": p.runs,
            "code_digest": {"runs": p.run_code, "tables": p.code}, "environment": environment()},
           snakemake.output.provenance)
logging.getLogger("tables").info("%s %s: %s", p.paper, p.experiment,
                                 {name: len(t) for name, t in tables.items()})
