"""GraphMend's version (part of the cache key, ``cache.build_id``)."""

__version__ = "0.1.0"
