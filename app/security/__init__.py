"""Passwords, server-side sessions, CSRF and rate limits."""
