"""AI assistance behind a circuit breaker: AiRun rows, the human actor checked inside the task."""
