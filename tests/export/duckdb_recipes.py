"""Runs the DuckDB recipes of docs/cli.md (tests/export/queries/*.sql) in the directory that
holds an export named `fleet`, and prints each query's rows as one JSON document:
{"query name": [[column values...], ...]}. Used by tests/it/export_engines.rs."""
import datetime
import json
import pathlib
import sys

import duckdb

queries = pathlib.Path(__file__).resolve().parent / "queries"
con = duckdb.connect()


def plain(value):
    """A cell as JSON: times as epoch seconds, decimals as numbers."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return int(value.timestamp())
    if isinstance(value, (int, float, str, type(None))):
        return value
    return float(value)


result = {}
for sql in sorted(queries.glob("*.sql")):
    rows = con.sql(sql.read_text()).fetchall()
    result[sql.stem] = [[plain(v) for v in row] for row in rows]
json.dump(result, sys.stdout, sort_keys=True)
