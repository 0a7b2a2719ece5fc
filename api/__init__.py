"""The REST API (docs/api.md): thin views over league.services and league.selectors."""
