"""The benchmark harness's shared parts: running and timing commands (`processes`), the servers the
cases measure (`servers`), the media they measure on (`media`) and the results table (`report`)."""
