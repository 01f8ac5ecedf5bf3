"""Facade of the self-identification module: one function returns a person's answers -
`selfid_personal_rows`, for the subject-access export the person receives."""

from ats.selfid.fairness import SUPPRESS_UNDER, below_four_fifths, fisher_exact_p, group_label
from ats.selfid.models import RaceEthnicity, Sex
from ats.selfid.services import (
    NotAllowed,
    fairness_latest,
    fairness_report_run,
    fairness_status,
    selfid_answered,
    selfid_erase,
    selfid_personal_rows,
    selfid_record,
    selfid_token,
    selfid_token_candidate,
)

__all__ = [
    "SUPPRESS_UNDER",
    "NotAllowed",
    "RaceEthnicity",
    "Sex",
    "below_four_fifths",
    "fairness_latest",
    "fairness_report_run",
    "fairness_status",
    "fisher_exact_p",
    "group_label",
    "selfid_answered",
    "selfid_erase",
    "selfid_personal_rows",
    "selfid_record",
    "selfid_token",
    "selfid_token_candidate",
]
