"""senna: the SENNA tagger (Collobert et al. 2011), reimplemented."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`senna.load` imports the runtime on first use only (training never needs it):
    the lazy form of `from senna.api import load`."""
    if name == "load":
        from senna.api import load

        return load
    raise AttributeError(f"module 'senna' has no attribute {name!r}")
