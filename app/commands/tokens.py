"""`kdojo tokens …`: API tokens for scripts (docs/admin-api.md).

    kdojo tokens create --user EMAIL --scopes grading:read,grading:write [--days 90] [--name N]
    kdojo tokens list
    kdojo tokens revoke ID

`create` prints the token once, on stdout; only its SHA-256 is stored.
"""

from __future__ import annotations

import argparse

from app.commands.common import Parser, UsageError, database, run


def create(args: argparse.Namespace) -> int:
    from app.services import admin_audit, admin_tokens, admin_users
    from app.services.errors import Invalid

    try:
        scopes = admin_tokens.parse_scopes(args.scopes)
    except Invalid as exc:
        raise UsageError(f"kdojo tokens create: --scopes: {exc.detail}") from None
    with database() as session:
        owner = admin_users.by_email(session, args.user)
        new = admin_tokens.create(session, owner, scopes, args.days, args.name or "")
        admin_audit.record(session, admin_audit.CLI, "token.create", "token", new.row.id, "",
                           user=owner.email, scopes=scopes, days=args.days)
        token_id, expires = new.row.id, new.row.expires_at
    print(new.token)
    print(f"# token {token_id} for {owner.email}, scopes {','.join(scopes)}, expires {expires:%Y-%m-%d %H:%M} UTC;"
          " it is shown only this once", flush=True)
    return 0


def list_tokens(_args: argparse.Namespace) -> int:
    from app.services import admin_tokens

    with database() as session:
        views = [admin_tokens.view(row, email) for row, email in admin_tokens.list_tokens(session)]
    for v in views:
        print(f"{v['id']:>5}  {v['state']:<8} {v['prefix']:<16} {v['user']:<30} {','.join(v['scopes']):<50} "
              f"expires {v['expires_at']}  last used {v['last_used_at'] or 'never'}  {v['name']}")
    return 0


def revoke(args: argparse.Namespace) -> int:
    from app.services import admin_audit, admin_tokens

    with database() as session:
        admin_tokens.revoke(session, args.id)
        admin_audit.record(session, admin_audit.CLI, "token.revoke", "token", args.id)
    print(f"token {args.id} revoked")
    return 0


def _days(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build(parser: Parser) -> None:
    sub = parser.add_subparsers(metavar="SUBCOMMAND")
    p = sub.add_parser("create", help="create a token (printed once)")
    p.add_argument("--user", required=True, help="the e-mail of the account the token acts as")
    p.add_argument("--scopes", required=True, help="comma-separated: grading:read, grading:write, "
                                                   "users:admin, content:admin")
    p.add_argument("--days", type=_days, default=90, help="days until it expires (default 90)")
    p.add_argument("--name", help="what it is for")
    p.set_defaults(func=create)
    sub.add_parser("list", help="list tokens (never the tokens themselves)").set_defaults(func=list_tokens)
    p = sub.add_parser("revoke", help="revoke a token by id")
    p.add_argument("id", type=int)
    p.set_defaults(func=revoke)


def main(argv: list[str]) -> int:
    return run("kdojo tokens", build, argv)
