"""Test-only Django app: tasks that exercise the job machinery inside real workers."""
