SELECT capture, bth_dest_qp, count(*) AS icrc_bad
FROM read_parquet('fleet/packets/**/*.parquet', hive_partitioning = true)
WHERE icrc_status = 'bad'
GROUP BY capture, bth_dest_qp
ORDER BY icrc_bad DESC, capture, bth_dest_qp;
