"""The result model: per-consumer records and their CSV files, a step's aggregates, the
statistics they use, and comparison of campaigns; records never import planes."""

# the applications' rows (records/app_step.py), named here so that the local plane names
# its CSV file without loading the module that writes it
APPS_CSV = "apps.csv"
