"""The public suite of small programs: one graph-break pattern each (see README.md here)."""
