"""The recruiter-facing web app, the job status API and ops views (metrics: ats.observability)."""
