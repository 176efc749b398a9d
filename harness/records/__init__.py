"""The result model: per-consumer records and their CSV files, a step's aggregates, the
statistics they use, and comparison of campaigns; records never import planes."""
