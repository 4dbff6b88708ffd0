"""How a database URL may be shown: the one masking rule for replay, the runs store and logs.

Plain text, no SQLAlchemy, so the core and every adapter can use it. A password can sit in the
userinfo (`mysql+pymysql://user:pw@host/db`) or in the query (`?password=pw`, `&passwd=pw`,
as some drivers accept); both become `***` (as httpx masks it in `_config.py`).
"""

import re

UNPARSEABLE = "<unparseable database URL>"

# SQLAlchemy's grammar (`make_url`), so the part masked is the password it would send:
# scheme://[user[:password]@]rest, the user without ':' or '/', the password up to the first '@'.
_URL = re.compile(r"^(?P<scheme>[\w+]+)://(?:(?P<user>[^:/]*)(?::(?P<password>[^@]*))?@)?"
                  r"(?P<rest>.*)$", re.DOTALL)
_SECRET_PARAM = re.compile(r"(?i)([?&][^=&#]*pass(?:word|wd)=)[^&#]*")


def mask_url(url: object) -> str:
    """`url` (text, or a SQLAlchemy `URL`) with every password replaced by `***`.

    Text that is not a URL is never echoed: it may be a password pasted in the wrong place."""
    match = _URL.match(str(url).strip())  # str(URL) already hides its password; masked again
    if match is None:
        return UNPARSEABLE
    user = match["user"]
    userinfo = "" if user is None else f"{user}{':***' if match['password'] is not None else ''}@"
    rest = _SECRET_PARAM.sub(r"\1***", match["rest"])
    return f"{match['scheme']}://{userinfo}{rest}"
