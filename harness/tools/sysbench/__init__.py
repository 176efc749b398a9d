"""sysbench: command lines for fileio and OLTP tests, and the parser of its output."""
