from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web pages: accounts, the replay viewer, the table, standings and bot pages."""

    name = "web"
    verbose_name = "Web pages"
