"""The Triton language's judge tests (#29). Not named `triton`: every test folder is a
top-level package under pytest, and that name would shadow Triton itself."""
