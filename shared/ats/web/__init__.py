"""The recruiter-facing web app, the job status API, ops views and /metrics."""
