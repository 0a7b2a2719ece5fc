"""People's accounts: signing up and in (the lock a stranger cannot use), the email address
and its verification, the sessions and the named API tokens, and who may see a person's
games. The pages (web/) and the API (api/) use it; it uses the league's models
(league/models/accounts.py) and never the reverse: config, api, web -> accounts -> league
-> bots -> engine (docs/architecture.md)."""
