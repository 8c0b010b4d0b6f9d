"""Where users meet the tagger: spaCy, AllenNLP-style JSON, corpus jobs on Dask, and the
server.  Each integration reads annotations through `senna.integrations.view` only, so a
change of the document data model touches that one module."""
