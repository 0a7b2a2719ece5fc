"""Write the engine's words for the translation catalogues (web/engine_words.py).

    python manage.py engine_words            # (re)write the two lists
    python manage.py engine_words --check    # exit 1 when a committed list is out of date

Then ``python manage.py makemessages -l nl -l sv`` and ``-d djangojs`` take them into
locale/*/LC_MESSAGES/ (docs/web.md, *Languages*).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web.engine_words import JS_LIST, PYTHON_LIST, js_list, python_list


class Command(BaseCommand):
    help = "Write the engine's words for the translation catalogues."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="only compare")

    def handle(self, *args: Any, **options: Any) -> None:
        wanted = {PYTHON_LIST: python_list(), JS_LIST: js_list()}
        if options["check"]:
            stale = [
                str(p) for p, text in wanted.items() if not p.exists() or p.read_text() != text
            ]
            if stale:
                raise CommandError(f"out of date: {', '.join(stale)}; run manage.py engine_words")
            return
        for path, text in wanted.items():
            path.write_text(text)
            self.stdout.write(f"wrote {path}")
