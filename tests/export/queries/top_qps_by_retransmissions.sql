SELECT capture, src, dst, dest_qp, retransmitted, go_back_n
FROM read_parquet('fleet/connections/**/*.parquet', hive_partitioning = true)
WHERE record = 'connection' AND retransmitted > 0
ORDER BY retransmitted DESC, capture, dest_qp
LIMIT 20;
