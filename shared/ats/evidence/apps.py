from django.apps import AppConfig


class EvidenceConfig(AppConfig):
    name = "ats.evidence"
    label = "evidence"
