"""The words people read, in their language (gettext), one module per subject: the pages,
the API and the league's services import them, the pure domain never does (the modules
and what each says: docs/architecture.md)."""
