"""The migrations describe the models: a change to a model without its migration fails here
(several features land in parallel, each with a migration of its own)."""

from io import StringIO

from django.core.management import call_command

import pytest


@pytest.mark.django_db
def test_no_model_change_lacks_its_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        written = out.getvalue()
        pytest.fail(f"makemigrations would write a migration (exit {exit_.code}):\n{written}")
