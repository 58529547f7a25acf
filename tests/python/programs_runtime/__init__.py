"""Small programs for runtime-aware ``graphmend.compile`` (tests/python/test_runtime_aware.py).

Mending reads source, so each program is a real file; the tests name lines by the
``# SITE:`` markers, never by number.
"""
