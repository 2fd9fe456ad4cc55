"""The recipes' aggregates as a Spark job: the same Parquet, read by Spark's own reader.

Locally:      python3 spark_job.py fleet            (local[2])
On a cluster: spark-submit spark_job.py s3://bucket/rdma/fleet

Prints {"query name": [[column values...], ...]} like duckdb_recipes.py, so that the test
(tests/it/export_engines.rs) can compare the engines row for row."""
import datetime
import json
import os
import sys
import time

# Spark hands timestamps to Python as naive local times: make local UTC.
os.environ["TZ"] = "UTC"
time.tzset()

from pyspark.sql import SparkSession

root = sys.argv[1].rstrip("/")
builder = SparkSession.builder.appName("rdmadump-recipes")
if "spark.master" not in SparkSession.builder._options and len(sys.argv) < 3:
    builder = builder.master("local[2]")
spark = builder.config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
for dataset in ("packets", "connections", "events"):
    # Spark discovers the capture_date=... partitions itself.
    spark.read.parquet(f"{root}/{dataset}").createOrReplaceTempView(dataset)

queries = {
    "icrc_bad_by_source": """
        SELECT coalesce(ip_src, grh_sgid, concat('lid ', lrh_slid)) AS src, count(*) AS icrc_bad
        FROM packets WHERE icrc_status = 'bad'
        GROUP BY 1 ORDER BY icrc_bad DESC, src""",
    "icrc_bad_per_qp": """
        SELECT capture, bth_dest_qp, count(*) AS icrc_bad
        FROM packets WHERE icrc_status = 'bad'
        GROUP BY capture, bth_dest_qp ORDER BY icrc_bad DESC, capture, bth_dest_qp""",
    "top_qps_by_retransmissions": """
        SELECT capture, src, dst, dest_qp, retransmitted, go_back_n
        FROM connections WHERE record = 'connection' AND retransmitted > 0
        ORDER BY retransmitted DESC, capture, dest_qp LIMIT 20""",
    "storms_by_priority": """
        SELECT priority, date_trunc('hour', ts) AS hour, count(*) AS storms,
               sum(duration_ns) / 1e6 AS paused_ms
        FROM events WHERE kind = 'pfc_storm'
        GROUP BY priority, date_trunc('hour', ts) ORDER BY storms DESC, priority""",
}


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
for name, sql in queries.items():
    rows = spark.sql(sql).collect()
    result[name] = [[plain(v) for v in row] for row in rows]
spark.stop()
json.dump(result, sys.stdout, sort_keys=True)
