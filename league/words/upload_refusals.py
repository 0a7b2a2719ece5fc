"""An upload's refusal in the request's language.

bots.runtimes and bots.bundle are pure (the standard library alone: the runner and the
command line read them too), so they say what is wrong with an upload's entry file in
English (``main: is a 32-bit ELF file; build for x86-64 (64-bit)``); the league says it to
people, so it translates the runtimes' refusals it knows here, by their pattern, as
league.words.engine_refusals does the engine's rules. A refusal not known here is told as said.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from league.domain.phrasebook import Phrasebook

_REFUSALS = Phrasebook(
    [
        # longest first: one refusal may begin as another does
        gettext_noop("is a truncated ELF file (its program headers are cut off)"),
        gettext_noop("is a truncated ELF file"),
        gettext_noop("is not an ELF executable (build a Linux x86-64 executable)"),
        gettext_noop("is a 32-bit ELF file; build for x86-64 (64-bit)"),
        gettext_noop("is a big-endian ELF file; build for x86-64"),
        gettext_noop("is an ELF file that is not an executable (an object file?)"),
        gettext_noop(
            "is a shared library (gcc -shared), not an executable; build an executable"
            " (gcc -static, or Rust's crt-static)"
        ),
        gettext_noop("has no META-INF/MANIFEST.MF (build it with `jar --create --main-class`)"),
        gettext_noop("has no Main-Class in its manifest (jar --create --main-class Main ...)"),
        gettext_noop("must be UTF-8 text"),
        gettext_noop("is built for %(machine)s; the league runs Linux x86-64 executables"),
        gettext_noop(
            "asks for the dynamic loader %(loader)s, which the sandbox does not have;"
            " link it statically (gcc -static, or Rust's crt-static)"
        ),
        gettext_noop("is not a valid jar (a jar is a zip file): %(why)s"),
        gettext_noop("names Main-Class %(main)s, but %(file)s is not in the jar"),
        gettext_noop(
            "the bot has several entry files (%(entries)s): keep one, or choose the"
            " runtime (%(runtimes)s)"
        ),
        gettext_noop("unknown runtime %(name)s (known: %(known)s)"),
        gettext_noop(
            "has no %(entry)s at its top level, which the %(runtime)s runtime starts from"
        ),
    ],
    blanks={
        "machine": r".+",
        "loader": r"'[^']*'",
        "why": r".*",
        "main": r"\S+",
        "file": r"\S+",
        "entries": r".+",
        "runtimes": r".+",
        "name": r"'[^']*'",
        "known": r".+",
        "entry": r"\S+",
        "runtime": r"\S+",
    },
)
"""The runtimes' refusals known here, each sentence as the catalogue has it."""


def upload_refusal_in_language(refusal: str) -> str:
    """``refusal`` (an upload's, as bots said it) with the runtimes' words it holds
    translated into the active language; the rest (file names, ids) as it was."""
    said = _REFUSALS.say_within(refusal, gettext)
    if said is None:
        return refusal
    return refusal[: said.start] + said.words + refusal[said.end :]
