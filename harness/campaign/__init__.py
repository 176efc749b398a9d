"""The spine: run a campaign step by step, rebuild its records from raw output, clean up
what it created, the profiles, and the environment snapshot."""
