"""How a database URL may be shown: the one masking rule for replay, the runs store and logs.

Plain text, no SQLAlchemy, so the core and every adapter can use it. A password can sit in the
userinfo (`mysql+pymysql://user:pw@host/db`) or in the query: PyMySQL takes `password` and
`passwd`, libpq `password` and `sslpassword`, PyMySQL `ssl_key_password`, and SQLAlchemy decodes
`%XX` in query keys (`pass%77ord`). So every query value is masked except those of keys known to
carry no secret (`charset`, `connect_timeout`, ...): an unknown key may be a driver's password.
Masked values become `***` (as httpx masks it in `_config.py`).
"""

import re
from urllib.parse import unquote, unquote_plus

UNPARSEABLE = "<unparseable database URL>"

# SQLAlchemy's grammar (`make_url`), so the part masked is the password it would send:
# scheme://[user[:password]@]host[:port][/database][?query], the user without ':' or '/', the
# password up to the first '@', the host up to '/', ':' or '?', the query after the first '?'.
_URL = re.compile(r"^(?P<scheme>[\w+]+)://(?:(?P<user>[^:/]*)(?::(?P<password>[^@]*))?@)?"
                  r"(?P<rest>.*)$", re.DOTALL)
_HOST_PORT = re.compile(r"^(?:\[[^/?]+\]|[^/:?]+)?(?::(?P<port>[^/?]*))?")

# Query keys whose values are shown: connection settings of PyMySQL, libpq and pysqlite that
# hold no secret. Everything else is masked.
SHOWN_QUERY_KEYS = frozenset({
    "charset", "collation", "connect_timeout", "read_timeout", "write_timeout", "autocommit",
    "local_infile", "unix_socket", "binary_prefix", "program_name", "client_flag", "sql_mode",
    "ssl_ca", "ssl_cert", "ssl_disabled", "ssl_verify_cert", "ssl_verify_identity",
    "ssl_check_hostname",
    "sslmode", "sslrootcert", "sslcert", "application_name", "target_session_attrs", "options",
    "timeout", "mode", "cache", "uri", "check_same_thread", "isolation_level", "driver",
    "host", "port", "user", "username", "database", "db", "dbname",
})


def mask_url(url: object) -> str:
    """`url` (text, or a SQLAlchemy `URL`) with every password replaced by `***`.

    Text that is not a URL is never echoed: it may be a password pasted in the wrong place."""
    match = _URL.match(str(url).strip())  # str(URL) already hides its password; masked again
    if match is None:
        return UNPARSEABLE
    user, rest = match["user"], match["rest"]
    userinfo = ""
    if user is not None:
        userinfo = f"{user}:***@" if match["password"] is not None else f"{user}@"
        at = _last_at_in_host(rest)
        if at >= 0:
            userinfo = f"{user}:***@" if user else "***@"
            rest = rest[at + 1:]
    location, sep, query = rest.partition("?")
    if sep:
        query = "&".join(_mask_pair(pair) for pair in query.split("&"))
    return f"{match['scheme']}://{userinfo}{location}{sep}{query}"


def _last_at_in_host(rest: str) -> int:
    """Where the last '@' before the path or query is (-1: none). In `user:p@ss@host` SQLAlchemy
    sends `p` and calls `ss@host` the host; the user meant `p@ss`, so none of it is shown."""
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    return rest.rfind("@", 0, end)


def _mask_pair(pair: str) -> str:
    key, sep, _value = pair.partition("=")
    if not sep or unquote_plus(key).strip().lower() in SHOWN_QUERY_KEYS:
        return pair
    return f"{key}=***"


def secrets_in(url: object) -> tuple[str, ...]:
    """Every value `mask_url` hides in `url` (text or a SQLAlchemy `URL`), decoded as the driver
    receives it, longest first: to scrub from a driver's error message, which may quote them."""
    render = getattr(url, "render_as_string", None)  # a URL's str() has hidden its password
    match = _URL.match((render(hide_password=False) if render else str(url)).strip())
    if match is None:
        return ()
    found = []
    rest = match["rest"]
    if match["password"] is not None:
        found.append(unquote(match["password"]))
        at = _last_at_in_host(rest)
        if at >= 0:
            found.append(unquote(f"{match['password']}@{rest[:at]}"))
    _location, _sep, query = rest.partition("?")
    for pair in query.split("&") if query else ():
        key, sep, value = pair.partition("=")
        if sep and value and unquote_plus(key).strip().lower() not in SHOWN_QUERY_KEYS:
            found.append(unquote_plus(value))
    return tuple(sorted({s for s in found if s}, key=len, reverse=True))


def scrub(message: str, url: object) -> str:
    """`message` on one line with every secret of `url` replaced by `***` where it stands as a
    token of its own (a one-letter password must not turn every `p` of the message into `***`)."""
    one_line = " ".join(message.split())
    for secret in secrets_in(url):
        one_line = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", "***", one_line)
    return one_line


def url_problem(url: str) -> str | None:
    """Why database URL `url` cannot be used as it is written (None when it can): a port that is
    not a number from 1 to 65535, or an '@' in the password (SQLAlchemy would send the part
    before it and take the rest for the host)."""
    match = _URL.match(url.strip())
    if match is None:
        return None
    if match["password"] is not None and _last_at_in_host(match["rest"]) >= 0:
        return (f"database URL {mask_url(url)}: the password holds an '@'; write it as %40 "
                "(and other reserved characters as %XX)")
    port = _HOST_PORT.match(match["rest"])
    text = port["port"] if port else None
    if text and (not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 65535):
        return f"database URL {mask_url(url)}: port {text[:20]!r} is not a number from 1 to 65535"
    return None
