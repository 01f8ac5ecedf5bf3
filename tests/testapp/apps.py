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
