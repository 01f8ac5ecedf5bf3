"""Facade of the self-identification module: no function here returns a person's answer."""

from ats.selfid.fairness import SUPPRESS_UNDER, below_four_fifths, fisher_exact_p, group_label
from ats.selfid.models import RaceEthnicity, Sex
from ats.selfid.services import (
    NotAllowed,
    fairness_latest,
    fairness_report_run,
    fairness_status,
    selfid_answered,
    selfid_erase,
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
    "selfid_record",
    "selfid_token",
    "selfid_token_candidate",
]
