"""The runner of uploaded bots: their processes, the sandbox, the protocol's clock.

``bots.runner.seat.UploadedSeat`` plays a seat with an uploaded bot; it starts the bot with
``bots.runner.sandbox`` (bubblewrap, a user of its own, rlimits, seccomp) and talks to it
through ``bots.runner.process.BotProcess``. bots.match drives whole matches.
"""
