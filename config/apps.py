from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """The project as an app only for its management commands (``preflight``, ``runserver``)."""

    name = "config"
    verbose_name = "King League project"
