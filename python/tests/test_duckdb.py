"""DuckDB scans the reader in place, with the answer it gives over the export."""

import duckdb

import rdmadump
from conftest import fixture, run_cli

QUERY = (
    "SELECT bth_dest_qp, icrc_status, count(*) AS n FROM {} "
    "GROUP BY ALL ORDER BY ALL"
)


def test_a_query_in_place_equals_the_query_over_the_export(tmp_path):
    name = fixture("roce_v2_crc_cases.pcap")
    run_cli("export", "-o", str(tmp_path), name)
    over_export = duckdb.sql(
        QUERY.format(f"read_parquet('{tmp_path}/packets/**/*.parquet')")
    ).fetchall()
    r = rdmadump.packets(name)
    in_place = duckdb.sql(QUERY.format("r")).fetchall()
    assert in_place == over_export
    assert in_place, "the query finds rows"
