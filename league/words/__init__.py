"""The words people read, said in their language (Django's gettext and the catalogues
under locale/), one module per subject; the pages, the API and the league's services
(notices, refusals) import them, the pure domain never does:

- engine_refusals: the engine's refusal of a move (its rule, the action refused);
- score_sheet: a club night's score sheet, its table cards and the refusals of an entry;
- upload_refusals: the bot runtimes' refusals of an upload;
- games_and_times: a game's name, durations, time controls, deadlines and waits.
"""
