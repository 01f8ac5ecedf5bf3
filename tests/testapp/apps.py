from django.apps import AppConfig


class TestAppConfig(AppConfig):
    name = "tests.testapp"
    label = "ats_testapp"

    def ready(self) -> None:
        # Test-only behaviour at the services' named points (ats.config.checkpoints).
        from ats.config import checkpoints

        from . import checkpoints as receivers

        checkpoints.reached.connect(receivers.pause, dispatch_uid="ats_testapp.pause")
        checkpoints.reached.connect(receivers.erase, dispatch_uid="ats_testapp.erase")
        checkpoints.row_lock_wanted.connect(receivers.row_lock, dispatch_uid="ats_testapp.row_lock")
        _fast_password_hasher_first()


def _fast_password_hasher_first() -> None:
    """Django's salted-MD5 test hasher first, in every process of a test stack (this app is
    loaded by the test process, live web, workers and `ats` subprocesses through
    ATS_EXTRA_APPS): PBKDF2's 0.3-0.5 CPU s per user created or login was minutes of the
    suite's CPU. Here, not in ats.config.settings, so production reads no test switch
    (tests/skeleton/test_no_test_seams.py)."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers

    fast = "django.contrib.auth.hashers.MD5PasswordHasher"
    if settings.PASSWORD_HASHERS[:1] != [fast]:
        settings.PASSWORD_HASHERS = [fast, *settings.PASSWORD_HASHERS]
        get_hashers.cache_clear()  # in case anything hashed before this app was ready
