"""Voluntary self-identification, stored apart (issue 27 item 3, docs/compliance.md).

Its own tables, read only by this module: recruiters, hiring managers, operators, the
scoring code and the exports never see a person's answer; the fairness report reads it
only to count (ats.selfid.fairness). Erased with the person (ats.retention).
"""

from __future__ import annotations

from django.db import models


class Sex(models.TextChoices):
    FEMALE = "female", "Female"
    MALE = "male", "Male"
    ANOTHER = "another", "Another sex or gender"
    PREFER_NOT_TO_SAY = "prefer_not_to_say", "Prefer not to say"


class RaceEthnicity(models.TextChoices):
    """The EEO-1 / NYC LL144 categories."""

    HISPANIC_LATINO = "hispanic_latino", "Hispanic or Latino"
    WHITE = "white", "White"
    BLACK = "black", "Black or African American"
    ASIAN = "asian", "Asian"
    NATIVE_HAWAIIAN_PACIFIC_ISLANDER = "native_hawaiian_pacific_islander", "Native Hawaiian or Pacific Islander"
    AMERICAN_INDIAN_ALASKA_NATIVE = "american_indian_alaska_native", "American Indian or Alaska Native"
    TWO_OR_MORE = "two_or_more", "Two or more races"
    PREFER_NOT_TO_SAY = "prefer_not_to_say", "Prefer not to say"


UNDISCLOSED = "prefer_not_to_say"


class SelfIdentification(models.Model):
    """One person's answers (the latest; a new answer replaces the old one)."""

    candidate_id = models.BigIntegerField(unique=True)
    sex = models.CharField(max_length=32, choices=Sex.choices, default=Sex.PREFER_NOT_TO_SAY)
    race_ethnicity = models.CharField(
        max_length=40, choices=RaceEthnicity.choices, default=RaceEthnicity.PREFER_NOT_TO_SAY
    )
    source = models.CharField(max_length=16)  # candidate_form | admin_survey
    entered_by = models.CharField(max_length=128)  # iam actor label, or "candidate"
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "selfid_response"


class FairnessReport(models.Model):
    """A stored fairness report (the weekly job's, or a run from the admin page/CLI):
    aggregates only, never a person."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    requisition_id = models.BigIntegerField(null=True)
    since = models.DateField(null=True)
    report = models.JSONField()
    below_four_fifths = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "selfid_fairness_report"
