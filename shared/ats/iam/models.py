from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    RECRUITER = "recruiter", "Recruiter"
    HIRING_MANAGER = "hiring_manager", "Hiring manager"
    ADMIN = "admin", "Admin"
    # Platform engineers: the ops console and job actions, no candidate data.
    OPERATOR = "operator", "Operator"
    # On call but not acting: the same console, no action buttons, 403 on every action.
    OPERATOR_READONLY = "operator_readonly", "Operator (read-only)"


class Membership(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ats_membership")
    role = models.CharField(max_length=32, choices=Role.choices)

    class Meta:
        db_table = "iam_membership"


class LoginAttempt(models.Model):
    """One sign-in attempt, kept in the database so throttling holds across web replicas
    (no Redis needed) and failed attempts are visible to admins."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    username = models.CharField(max_length=150, db_index=True)  # as typed, lower-cased
    ip = models.GenericIPAddressField(null=True, db_index=True)
    succeeded = models.BooleanField(default=False)

    class Meta:
        db_table = "iam_login_attempt"
        indexes = [models.Index(fields=["username", "at"]), models.Index(fields=["ip", "at"])]
