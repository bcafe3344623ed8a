"""Snakemake entry: a paper's claims, checked against its regenerated tables."""

from privopt.pipeline.claims import claims_frame
from privopt.pipeline.registry import paper
from privopt.io import log_to_file, read_table, write_csv
from privopt.pipeline.tablecheck import verify_checked

log_to_file(snakemake.log[0])
p = snakemake.params
# (the "checked" stamps say the tables are still as the pipeline wrote them; they are not tables, and the
# tables are compared with them by content first: privopt.pipeline.tablecheck)
verify_checked(snakemake.input.checked)
tables = {stem: read_table(path) for stem, path in snakemake.input.items() if stem != "checked"}
write_csv(claims_frame(paper(p.paper).claims.run(tables, p.settings), p.scale), snakemake.output[0])
