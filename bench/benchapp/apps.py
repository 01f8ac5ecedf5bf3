import os

from django.apps import AppConfig


class BenchAppConfig(AppConfig):
    """Bench-only app (ATS_EXTRA_APPS=bench.benchapp): the no-op tasks of bench/e2e_bench.py
    and, with ATS_HOP_PROFILE_DIR set, bench/hop_profile.py's statement counter."""

    name = "bench.benchapp"
    label = "ats_benchapp"

    def ready(self) -> None:
        directory = os.environ.get("ATS_HOP_PROFILE_DIR")
        if directory:
            from bench.benchapp import hop_profile

            hop_profile.install(directory)
