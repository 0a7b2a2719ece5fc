"""The league's reads, one module per area, as the writes are in league/services/. They never
write and never import the services (tests/test_layers.py); views call them and make no
query of their own (docs/architecture.md).

``bots`` (bots, versions, who may read a bot's or a seat's private data), ``clubs``,
``competitors`` (and who may be entered), ``tournaments`` (rounds, entrants, records),
``matches`` (a seat's owner, a record and an analysis as a viewer may see them),
``replays`` (a match's state from its stored events), ``standings``, ``ratings``,
``tables`` (the lobby, a seat's view, the chat), ``my_games``, ``profiles``,
``club_nights``, ``ladders``, ``notifications``.
"""
