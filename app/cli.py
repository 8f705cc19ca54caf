"""The `kdojo` console script: a dispatcher that loads only the sub-command it runs.

`kdojo judge` and `kdojo exercises` live in `kernels.cli`, so judging from the
command line never imports the web stack.
"""

from __future__ import annotations

import importlib
import os
import sys

# sub-command -> module with `main(argv: list[str]) -> int`
COMMANDS: dict[str, tuple[str, str]] = {
    "judge": ("kernels.cli", "judge a CUDA source against an exercise"),
    "exercises": ("kernels.cli", "list exercise ids"),
    "serve": ("app.commands.serve", "migrate, load lessons, run the web app and its worker"),
    "worker": ("app.commands.worker", "run a judge worker for a scale-out deployment"),
    "migrate": ("app.commands.migrate", "bring the database schema to the latest revision (once, under a lock)"),
    "lessons": ("app.commands.lessons", "validate or scaffold lessons"),
    "users": ("app.commands.users", "manage accounts (create-admin, …)"),
    "tokens": ("app.commands.tokens", "manage API tokens"),
    "backup": ("app.commands.backup", "copy the database while the server runs"),
    "restore": ("app.commands.restore", "replace the database with a backup (server stopped)"),
    "sandbox": ("kernels.doctor", "`sandbox check`: which judge containment layers are active here"),
}


def usage() -> str:
    lines = ["usage: kdojo COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name = args[0]
    if name not in COMMANDS:
        print(f"kdojo: unknown command {name!r} (try `kdojo --help`)", file=sys.stderr)
        return 2
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        print(f"kdojo: `{name}` is not available in this installation ({exc})", file=sys.stderr)
        return 2
    # kernels.cli takes the sub-command name itself (it serves two commands)
    sub_argv = args if module_name == "kernels.cli" else args[1:]
    try:
        code = int(module.main(sub_argv) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return quiet_broken_pipe()


def quiet_broken_pipe() -> int:
    """The reader went away (`kdojo judge … | head`): no traceback. Python would
    flush stdout again at exit and fail once more, so point it at /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
