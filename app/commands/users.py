"""`kdojo users …`: accounts from the command line.

    kdojo users create-admin --email E [--name N] [--password-stdin]
    kdojo users list [--role learner|instructor|admin]
    kdojo users set-role --email E --role ROLE

Usage errors print one line to stderr and exit 2; a failed action exits 1.
Every change is written to the audit log as done by "cli".
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from app.commands.common import CommandFailed, Parser, UsageError, database, run
from app.models import ROLES


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise UsageError("kdojo users create-admin: no terminal to ask for a password; use --password-stdin")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password (again): "):
        raise CommandFailed("the passwords differ")
    return first


def create_admin(args: argparse.Namespace) -> int:
    from app.services import admin_audit, admin_users

    password = _read_password(args.password_stdin)
    with database() as session:
        existing = session.scalar(_user_query(args.email))
        if existing is None:
            user = admin_users.create_admin(session, admin_audit.CLI, args.email, password, args.name or "")
            print(f"created admin {user.email} (id {user.id})")
        else:
            user = admin_users.create_admin(session, admin_audit.CLI, args.email, password)
            print(f"{user.email} (id {user.id}) is now an admin; the password was not changed")
    return 0


def list_users(args: argparse.Namespace) -> int:
    from app.services import admin_users

    with database() as session:
        page = admin_users.list_users(session, args.role, None, 1, 100_000)
    for user in page["items"]:
        state = " (disabled)" if user["disabled"] else ""
        print(f"{user['id']:>5}  {user['role']:<10}  {user['email']}{state}")
    return 0


def set_role(args: argparse.Namespace) -> int:
    from app.services import admin_audit, admin_users

    with database() as session:
        user = admin_users.by_email(session, args.email)
        admin_users.set_role(session, admin_audit.CLI, user.id, args.role, args.reason or "")
        print(f"{user.email} is now {args.role}")
    return 0


def _user_query(email: str) -> Any:
    from sqlalchemy import select

    from app.models import User
    from app.services.accounts import normalize_email

    return select(User).where(User.email == normalize_email(email))


def build(parser: Parser) -> None:
    sub = parser.add_subparsers(metavar="SUBCOMMAND")
    p = sub.add_parser("create-admin", help="create an admin account, or make an account admin")
    p.add_argument("--email", required=True)
    p.add_argument("--name", help="display name (default: the e-mail's local part)")
    p.add_argument("--password-stdin", action="store_true", help="read the password from one line of stdin")
    p.set_defaults(func=create_admin)
    p = sub.add_parser("list", help="list accounts")
    p.add_argument("--role", choices=ROLES)
    p.set_defaults(func=list_users)
    p = sub.add_parser("set-role", help="make an account learner, instructor or admin")
    p.add_argument("--email", required=True)
    p.add_argument("--role", required=True, choices=ROLES)
    p.add_argument("--reason", default="")
    p.set_defaults(func=set_role)


def main(argv: list[str]) -> int:
    return run("kdojo users", build, argv)
