"""Tool adapters: render a tool's command or job file and parse its output (fio, sysbench,
pgbench, io-pause); no plane, no campaign."""
