SELECT coalesce(ip_src, grh_sgid, 'lid ' || lrh_slid) AS src, count(*) AS icrc_bad
FROM read_parquet('fleet/packets/**/*.parquet', hive_partitioning = true)
WHERE icrc_status = 'bad'
GROUP BY src
ORDER BY icrc_bad DESC, src;
