"""The first code to run in a bot's process: set its limits, then run its ``main.py``.

The runner starts ``python3 -E -s -S -B launcher.py BOT_DIR LIB_DIR NAME=VALUE...``
(inside the sandbox, BOT_DIR is /bot and LIB_DIR is /kl). This file is copied next to
``kingbot.py`` in LIB_DIR and must use the standard library only.

Each NAME=VALUE lowers a resource limit, soft and hard, before any of the bot's code
runs, so the bot cannot raise it again: ``as`` (address space, bytes), ``cpu`` (CPU
seconds), ``nproc`` (processes of the bot's user), ``nofile`` (open files), ``fsize``
(bytes a file may grow to), ``core`` (0: no core dumps), ``memlock``; ``nice`` sets
the scheduling priority (a bot cannot raise it back); ``stdio=IN,OUT`` moves the
protocol's pipes from those descriptors onto stdin and stdout; ``path=DIR`` adds DIR
to a Python bot's ``sys.path`` (the python-numpy runtime's packages); ``exec=ARG``, once
per argument, names a command to become instead of running ``main.py`` (every runtime but
Python's: bots.runner.runtimes), with the limits already lowered; ``serve=PIPES_DIR`` runs
the fork server (bots.runner.fork_server, in LIB_DIR) instead, which runs ``main.py`` in
a child forked for each match, as below. Otherwise ``main.py``
runs as ``__main__`` with BOT_DIR first on ``sys.path`` and LIB_DIR after it, so a bot
imports its own modules, and ``import kingbot`` finds the bot's copy of the helper
module if it ships one, else the league's.
"""

import io
import os
import resource
import sys

LIMITS = {
    "as": resource.RLIMIT_AS,
    "cpu": resource.RLIMIT_CPU,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
    "memlock": resource.RLIMIT_MEMLOCK,
}
if hasattr(resource, "RLIMIT_MSGQUEUE"):  # Linux (the sandbox); an author's trial may not be
    LIMITS["msgqueue"] = resource.RLIMIT_MSGQUEUE


def _standard_streams(stderr: bool = False) -> list[io.TextIOWrapper]:
    """New sys.stdin and sys.stdout as Python makes them (UTF-8, lines split at "\\n",
    not seekable) for descriptors 0 and 1, and with ``stderr`` a sys.stderr for
    descriptor 2 (line-buffered, as Python makes it); made, not installed."""
    encoding, errors = sys.stdin.encoding, sys.stdin.errors
    streams = [open(0, encoding=encoding, errors=errors, newline="\n", closefd=False)]  # noqa: SIM115
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    streams.append(open(1, "w", encoding=encoding, errors=errors, newline="\n", closefd=False))  # noqa: SIM115
    if stderr:
        encoding, errors = sys.stderr.encoding, sys.stderr.errors
        streams.append(
            open(  # noqa: SIM115
                2, "w", encoding=encoding, errors=errors, newline="\n", closefd=False, buffering=1
            )
        )
    return streams


def _standard_streams_install(streams: list[io.TextIOWrapper]) -> None:
    """``streams`` (``_standard_streams``) as sys.stdin, sys.stdout and sys.stderr."""
    sys.stdin = sys.__stdin__ = streams[0]  # type: ignore[misc]  # (__stdin__ is "final")
    sys.stdout = sys.__stdout__ = streams[1]  # type: ignore[misc]
    if len(streams) > 2:
        sys.stderr = sys.__stderr__ = streams[2]  # type: ignore[misc]


def main() -> None:
    bot_dir, lib_dir, *limits = sys.argv[1:]
    extra_paths = []
    command = []
    pipes = ""
    for item in limits:
        name, _, value = item.partition("=")
        if name == "path":
            extra_paths.append(value)
            continue
        if name == "exec":
            command.append(value)
            continue
        if name == "serve":
            pipes = value
            continue
        if name == "stdio":
            # the protocol's pipes, held by this process alone (bots.runner.process)
            stdin_fd, stdout_fd = (int(fd) for fd in value.split(","))
            os.dup2(stdin_fd, 0)
            os.dup2(stdout_fd, 1)
            os.close(stdin_fd)
            os.close(stdout_fd)
            # for the pipes now at descriptors 0 and 1 instead of /dev/null
            _standard_streams_install(_standard_streams())
            continue
        number = int(value)
        if name == "nice":
            os.setpriority(os.PRIO_PROCESS, 0, number)
        elif name == "oom":
            with open("/proc/self/oom_score_adj", "w") as adjustment:
                adjustment.write(str(number))
        else:
            resource.setrlimit(LIMITS[name], (number, number))
    if command:
        sys.stdout.flush()
        os.execv(command[0], command)
    if pipes:
        # next to this file, in LIB_DIR (sys.path[0]): bots/runner/fork_server.py
        import fork_server  # type: ignore[import-not-found]

        bots = fork_server.BotLauncher(
            bot_run, lambda: _standard_streams(stderr=True), _standard_streams_install
        )
        fork_server.serve(bot_dir, lib_dir, extra_paths, pipes, bots)
        return
    bot_run(bot_dir, lib_dir, extra_paths)


def bot_run(bot_dir: str, lib_dir: str, extra_paths: list[str]) -> None:
    """Run the bot's ``main.py`` as ``__main__``, its folder first on ``sys.path``."""
    main_path = bot_dir + "/main.py"
    sys.argv = [main_path]
    sys.path[0] = bot_dir
    sys.path.insert(1, lib_dir)
    sys.path.extend(extra_paths)
    module = type(sys)("__main__")
    module.__file__ = main_path
    sys.modules["__main__"] = module
    with open(main_path, "rb") as source:
        code = compile(source.read(), main_path, "exec")
    exec(code, module.__dict__)


if __name__ == "__main__":
    main()
