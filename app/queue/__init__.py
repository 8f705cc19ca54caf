"""The judging queue: Huey (SQLite embedded, Redis for scale-out), tasks, reaper."""
