"""`kdojo users …`: accounts from the command line.

    kdojo users create-admin --email E [--name N] [--password-stdin]
    kdojo users list [--role learner|instructor|admin]
    kdojo users set-role --email E --role ROLE
    kdojo users reset-password --email E [--hours H] [--base-url URL]   # prints a one-time link
    kdojo users reset-password --email E --set [--password-stdin]       # sets the password
    kdojo users invite [--uses N] [--days D] [--note TEXT]              # prints a sign-up invite code
    kdojo users invites
    kdojo users revoke-invite ID

Usage errors print one line to stderr and exit 2; a failed action exits 1.
Every change is written to the audit log as done by "cli".
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from app.commands.common import CommandFailed, Parser, UsageError, database, load_settings, run
from app.models import ROLES


def _read_password(from_stdin: bool, command: str = "create-admin") -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise UsageError(f"kdojo users {command}: no terminal to ask for a password; use --password-stdin")
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


def reset_password(args: argparse.Namespace) -> int:
    from app.security import passwords
    from app.services import account_recovery, admin_audit, admin_users
    from app.services.errors import ServiceError

    if args.password_stdin and not args.set:
        raise UsageError("kdojo users reset-password: --password-stdin goes with --set")
    if not args.set:
        with database() as session:
            user = admin_users.by_email(session, args.email)
            token, row = account_recovery.create_reset(session, admin_audit.CLI, user, args.hours)
        base = (args.base_url or _default_base_url()).rstrip("/")
        print(f"one-time link for {user.email}, valid until {row.expires_at:%Y-%m-%d %H:%M} UTC "
              f"(earlier links stop working):")
        print(f"{base}{account_recovery.reset_link(token)}")
        return 0
    password = _read_password(args.password_stdin, "reset-password")
    try:
        passwords.check_strength(password, args.email)
    except ServiceError as exc:
        raise CommandFailed(exc.detail) from None
    password_hash = passwords.hash_password(password)
    with database() as session:
        user = admin_users.by_email(session, args.email)
        ended = account_recovery.set_password(session, admin_audit.CLI, user, password_hash)
    print(f"set the password of {user.email}; {ended} session(s) ended")
    return 0


def _default_base_url() -> str:
    settings = load_settings()
    return f"http://{settings.host}:{settings.port}"


def invite(args: argparse.Namespace) -> int:
    from app.services import admin_audit, invites

    with database() as session:
        code, row = invites.create(session, admin_audit.CLI, args.uses, args.days, args.note or "")
    print(f"invite code (for {row.max_uses} sign-up(s) until {row.expires_at:%Y-%m-%d %H:%M} UTC, id {row.id}):")
    print(code)
    return 0


def list_invites(args: argparse.Namespace) -> int:
    from app.services import invites

    with database() as session:
        rows = [invites.view(row) for row in invites.list_invites(session)]
    for item in rows:
        state = "live" if item["live"] else "revoked" if item["revoked"] else "spent or expired"
        print(f"{item['id']:>5}  {item['prefix']}…  {item['uses']}/{item['max_uses']} used  "
              f"until {item['expires_at'][:16]}  {state}  {item['note']}")
    return 0


def revoke_invite(args: argparse.Namespace) -> int:
    from app.services import admin_audit, invites

    with database() as session:
        row = invites.revoke(session, admin_audit.CLI, args.id)
    print(f"invite {row.id} ({row.prefix}…) revoked")
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
    _build_recovery(sub)


def _build_recovery(sub: Any) -> None:
    from app.services import account_recovery, invites

    p = sub.add_parser("reset-password", help="print a one-time password-reset link, or --set the password")
    p.add_argument("--email", required=True)
    p.add_argument("--set", action="store_true", help="set the password now (asked twice, or --password-stdin)")
    p.add_argument("--password-stdin", action="store_true", help="with --set: read it from one line of stdin")
    p.add_argument("--hours", type=int, default=account_recovery.RESET_HOURS, help="how long the link works")
    p.add_argument("--base-url", help="the site's address for the link (default: http://KDOJO_HOST:KDOJO_PORT)")
    p.set_defaults(func=reset_password)
    p = sub.add_parser("invite", help="make a sign-up invite code (KDOJO_SIGNUP=invite)")
    p.add_argument("--uses", type=int, default=1, help="how many accounts it may create")
    p.add_argument("--days", type=int, default=invites.DEFAULT_DAYS, help="how long it works")
    p.add_argument("--note", default="", help="what it is for (shown in lists)")
    p.set_defaults(func=invite)
    p = sub.add_parser("invites", help="list invite codes (their first characters only)")
    p.set_defaults(func=list_invites)
    p = sub.add_parser("revoke-invite", help="stop an invite code working")
    p.add_argument("id", type=int)
    p.set_defaults(func=revoke_invite)


def main(argv: list[str]) -> int:
    return run("kdojo users", build, argv)
