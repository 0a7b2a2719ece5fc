"""The web pages. Views are thin: they read the request, call a selector or service, render."""
