"""Saint Malo table companion: rules engine, game store, tracker and the ``companion`` command."""

__version__ = "0.1.0"
