"""The Triton language: its sandbox, its compile step and its GPU launches (#29)."""
