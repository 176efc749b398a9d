"""Campaigns become Sphinx pages: tables, plots, warnings and comparisons."""
