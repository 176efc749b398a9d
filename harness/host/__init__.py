"""This machine: child processes that can always be stopped, host and disk counters and
their sampler, what the machine is, and the database servers volperf runs itself."""
