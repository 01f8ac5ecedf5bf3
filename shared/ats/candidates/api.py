"""Facade of the candidates module."""

from ats.candidates.models import Candidate
from ats.candidates.services import candidate_create_from_document

__all__ = ["Candidate", "candidate_create_from_document"]
