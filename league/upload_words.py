"""An upload's refusal in the request's language.

bots.runtimes and bots.bundle are pure (the standard library alone: the runner and the
command line read them too), so they say what is wrong with an upload's entry file in
English (``main: is a 32-bit ELF file; build for x86-64 (64-bit)``); the league says it to
people, so it translates the runtimes' refusals it knows here, by their pattern, as
league.rule_words does the engine's rules. A refusal not known here is told as said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext, gettext_noop


def _fixed(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: gettext(text)


_REFUSALS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(re.escape(english)), _fixed(english))
    for english in (
        # longest first: one refusal may begin as another does
        gettext_noop("is a truncated ELF file (its program headers are cut off)"),
        gettext_noop("is a truncated ELF file"),
        gettext_noop("is not an ELF executable (build a Linux x86-64 executable)"),
        gettext_noop("is a 32-bit ELF file; build for x86-64 (64-bit)"),
        gettext_noop("is a big-endian ELF file; build for x86-64"),
        gettext_noop(
            "is an ELF file that is not an executable (a shared library or an object file?)"
        ),
        gettext_noop("has no META-INF/MANIFEST.MF (build it with `jar --create --main-class`)"),
        gettext_noop("has no Main-Class in its manifest (jar --create --main-class Main ...)"),
        gettext_noop("must be UTF-8 text"),
    )
] + [
    (
        re.compile(r"is built for (.+); the league runs Linux x86-64 executables"),
        lambda m: (
            gettext("is built for %(machine)s; the league runs Linux x86-64 executables")
            % {"machine": m[1]}
        ),
    ),
    (
        re.compile(
            r"asks for the dynamic loader ('[^']*'), which the sandbox does not have;"
            r" link it statically \(gcc -static, or Rust's crt-static\)"
        ),
        lambda m: (
            gettext(
                "asks for the dynamic loader %(loader)s, which the sandbox does not have;"
                " link it statically (gcc -static, or Rust's crt-static)"
            )
            % {"loader": m[1]}
        ),
    ),
    (
        re.compile(r"is not a valid jar \(a jar is a zip file\): (.*)"),
        lambda m: gettext("is not a valid jar (a jar is a zip file): %(why)s") % {"why": m[1]},
    ),
    (
        re.compile(r"names Main-Class (\S+), but (\S+) is not in the jar"),
        lambda m: (
            gettext("names Main-Class %(main)s, but %(file)s is not in the jar")
            % {"main": m[1], "file": m[2]}
        ),
    ),
    (
        re.compile(
            r"the bot has several entry files \((.+)\): keep one, or choose the runtime \((.+)\)"
        ),
        lambda m: (
            gettext(
                "the bot has several entry files (%(entries)s): keep one, or choose the"
                " runtime (%(runtimes)s)"
            )
            % {"entries": m[1], "runtimes": m[2]}
        ),
    ),
    (
        re.compile(r"unknown runtime ('[^']*') \(known: (.+)\)"),
        lambda m: (
            gettext("unknown runtime %(name)s (known: %(known)s)") % {"name": m[1], "known": m[2]}
        ),
    ),
    (
        re.compile(r"has no (\S+) at its top level, which the (\S+) runtime starts from"),
        lambda m: (
            gettext("has no %(entry)s at its top level, which the %(runtime)s runtime starts from")
            % {"entry": m[1], "runtime": m[2]}
        ),
    ),
]


def upload_refusal_in_language(refusal: str) -> str:
    """``refusal`` (an upload's, as bots said it) with the runtimes' words it holds
    translated into the active language; the rest (file names, ids) as it was."""
    for pattern, said in _REFUSALS:
        found = pattern.search(refusal)
        if found is not None:
            return refusal[: found.start()] + said(found) + refusal[found.end() :]
    return refusal
