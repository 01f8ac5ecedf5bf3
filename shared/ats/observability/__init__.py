"""Metrics, alerting inputs, structured logs and health checks (issue 12, docs/observability.md)."""
