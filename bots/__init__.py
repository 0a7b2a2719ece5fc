"""Bots: the bot protocol, the sandboxed runner, built-in bots and their models (to come)."""
