"""`senna serve`: the tagger behind an HTTP API with a page (extra `serve`)."""
