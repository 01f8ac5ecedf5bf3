from django.apps import AppConfig


class BenchAppConfig(AppConfig):
    """Bench-only app (ATS_EXTRA_APPS=bench.benchapp): the no-op tasks of bench/e2e_bench.py."""

    name = "bench.benchapp"
    label = "ats_benchapp"
