"""The campaign's data, below everything else of volperf: the spec, its plan of steps, the
campaign directory on disk, and redaction of secrets."""
