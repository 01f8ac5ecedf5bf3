"""The metrics collector and its exporter: database-derived figures read from every module."""
