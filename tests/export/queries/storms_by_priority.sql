SELECT priority, date_trunc('hour', ts) AS hour, count(*) AS storms,
       sum(duration_ns) / 1e6 AS paused_ms
FROM read_parquet('fleet/events/**/*.parquet', hive_partitioning = true)
WHERE kind = 'pfc_storm'
GROUP BY priority, hour
ORDER BY storms DESC, priority;
