from django.apps import AppConfig


class ChannelsConfig(AppConfig):
    name = "ats.channels"
    label = "channels"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ats.channels import api as channels_api
        from ats.jobs import api as jobs_api

        # A poll that runs out of attempts marks the channel degraded (ats.jobs.handlers).
        jobs_api.register_exhaustion_handler("mail.poll_channel", channels_api.channel_poll_exhausted)
