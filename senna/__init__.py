"""senna: the SENNA tagger (Collobert et al. 2011), reimplemented."""

__version__ = "0.1.0"
