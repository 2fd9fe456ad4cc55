"""Times rdmadump.spark.export in Spark local mode over the captures of a folder, best of
RUNS, with the session started before the clock (a fleet's cluster is up before its job),
and prints `job_s start_s`: the job's best time and what starting the session took.

    python3 benches/spark_export.py FOLDER OUT RUNS [MASTER]
"""

import shutil
import sys
import time

import rdmadump.spark
from pyspark.sql import SparkSession


def main() -> None:
    folder, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    master = sys.argv[4] if len(sys.argv) > 4 else "local[2]"
    started = time.perf_counter()
    spark = (
        SparkSession.builder.master(master)
        .appName("rdmadump bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    start_s = time.perf_counter() - started
    best = None
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        began = time.perf_counter()
        captures = rdmadump.spark.export(spark, [folder], out)
        bad = captures.where("status <> 'complete'").count()
        took = time.perf_counter() - began
        if bad:
            sys.exit(f"{bad} captures did not export completely")
        best = took if best is None else min(best, took)
    spark.stop()
    print(f"{best:.3f} {start_s:.3f}")


if __name__ == "__main__":
    main()
