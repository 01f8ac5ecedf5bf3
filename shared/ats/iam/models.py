from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    RECRUITER = "recruiter", "Recruiter"
    HIRING_MANAGER = "hiring_manager", "Hiring manager"
    ADMIN = "admin", "Admin"


class Membership(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ats_membership")
    role = models.CharField(max_length=32, choices=Role.choices)

    class Meta:
        db_table = "iam_membership"
