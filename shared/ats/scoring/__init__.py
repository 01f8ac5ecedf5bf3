"""Requisitions (versioned), applications, explainable ATS scoring and batch rescore."""
