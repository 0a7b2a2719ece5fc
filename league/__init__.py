"""The league domain: clubs, tournaments, matches, standings and ratings (models, services,
selectors, tasks). The Django project that runs it is ``config/``."""
