"""pgbench: command lines for init and run, and the parser of its output."""
