"""Database URLs are shown masked whatever form carries the password, and a URL that cannot be
used as written (a port that is not one, an '@' in the password) is refused in one line."""

from urllib.parse import quote, quote_plus

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sqlalchemy import make_url

from advisor.urls import UNPARSEABLE, mask_url, scrub, secrets_in, url_problem

MASKED = [
    ("mysql+pymysql://advisor:s3cret@db:3306/app", "mysql+pymysql://advisor:***@db:3306/app"),
    ("mysql+pymysql://advisor@db/app?password=s3cret", "mysql+pymysql://advisor@db/app?password=***"),
    ("mysql://db/app?passwd=s3cret&charset=utf8", "mysql://db/app?passwd=***&charset=utf8"),
    ("mysql://db/app?PassWord=s3cret", "mysql://db/app?PassWord=***"),
    # SQLAlchemy decodes %XX in query keys: this is `password` to PyMySQL
    ("mysql://db/app?pass%77ord=s3cret", "mysql://db/app?pass%77ord=***"),
    ("mysql://db/app?ssl_key_password=s3cret", "mysql://db/app?ssl_key_password=***"),
    ("postgresql://u@db/app?sslpassword=s3cret", "postgresql://u@db/app?sslpassword=***"),
    # an unknown key may be some driver's password: masked; known settings are shown
    ("mysql://db/app?token=s3cret&connect_timeout=5", "mysql://db/app?token=***&connect_timeout=5"),
    # '#' is no fragment to SQLAlchemy: it is part of the password
    ("mysql://db/app?password=s3c#ret", "mysql://db/app?password=***"),
    ("mysql://db/app?password=a&password=b", "mysql://db/app?password=***&password=***"),
    ("mysql://advisor:s3/c?ret@db/app", "mysql://advisor:***@db/app"),
    ("mysql://advisor:p@ss@db/app", "mysql://advisor:***@db/app"),
    ("sqlite:////var/lib/runs.sqlite3", "sqlite:////var/lib/runs.sqlite3"),
    ("not a url s3cret", UNPARSEABLE),
]


@pytest.mark.parametrize(("url", "shown"), MASKED)
def test_every_form_of_password_is_masked(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_a_sqlalchemy_url_is_masked_with_its_query() -> None:
    """str(URL) hides only the userinfo password; the query one is masked too."""
    url = make_url("mysql+pymysql://advisor:s3cret@db/app?password=t0ken&charset=utf8")
    assert mask_url(url) == "mysql+pymysql://advisor:***@db/app?charset=utf8&password=***"
    assert secrets_in(url) == ("s3cret", "t0ken")


def test_scrub_removes_every_secret_from_a_driver_message() -> None:
    """Secrets as the driver received them (decoded) are replaced where they stand alone."""
    url = "mysql+pymysql://u:p%40ss@db/app?passwd=SE%26CRET"
    message = "Access denied for 'u' using password 'p@ss' (or SE&CRET)\n  at db"
    assert scrub(message, url) == "Access denied for 'u' using password '***' (or ***) at db"


def test_a_short_password_does_not_garble_the_message() -> None:
    assert scrub("could not parse the packet: p", "mysql://u:p@db/app") == \
        "could not parse the packet: ***"
    assert scrub("Can't connect: ping failed", "mysql://u:p@db/app") == \
        "Can't connect: ping failed"


@pytest.mark.parametrize(("url", "problem"), [
    ("mysql+pymysql://u:pw@127.0.0.1:notaport/db",
     "database URL mysql+pymysql://u:***@127.0.0.1:notaport/db: port 'notaport' is not a "
     "number from 1 to 65535"),
    ("mysql://h:0/db", "port '0' is not a number from 1 to 65535"),
    ("mysql://[::1]:99999/db", "port '99999' is not a number from 1 to 65535"),
    ("mysql://h:\u0663\u0663/db", "port '\u0663\u0663' is not a number"),  # Arabic-Indic digits
    ("mysql://u:p@ss@h/db", "the password holds an '@'; write it as %40"),
])
def test_urls_that_cannot_be_used_as_written(url: str, problem: str) -> None:
    found = url_problem(url)
    assert found is not None
    assert problem in found
    assert "pw" not in found.replace("pymysql", "")
    assert "ss@" not in found


@pytest.mark.parametrize("url", ["mysql://u:pw@h:3306/db", "mysql://h/db", "sqlite:///x.db",
                                 "mysql://u@x:pw@h:1/db", "mysql://[::1]:65535/db?port=x"])
def test_usable_urls_have_no_problem(url: str) -> None:
    assert url_problem(url) is None


PASSWORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                    min_size=6, max_size=30)


def test_password_inside_the_user_name_is_masked_in_its_place() -> None:
    """A password that is part of the user name ("adviso" in "advisor", found by the property
    below) is hidden where it is the password; the user name stays as it is."""
    shown = mask_url("mysql+pymysql://advisor:adviso@db.example:3306/app?charset=utf8")
    assert shown == "mysql+pymysql://advisor:***@db.example:3306/app?charset=utf8"


@given(password=PASSWORDS, form=st.sampled_from(["userinfo", "password", "passwd", "encoded-key",
                                                 "unknown-key"]))
def test_no_password_survives_masking(password: str, form: str) -> None:
    """Whatever the password and wherever it sits, neither it nor its encoding is shown, and it
    is among the secrets scrubbed from messages; SQLAlchemy agrees it is there."""
    base = "mysql+pymysql://advisor{}@db.example:3306/app{}"

    def in_url(quoted: str, plus: str) -> str:  # the URL with the password, encoded, in place
        return {
            "userinfo": base.format(":" + quoted, "?charset=utf8"),
            "password": base.format("", "?charset=utf8&password=" + plus),
            "passwd": base.format("", "?passwd=" + plus),
            "encoded-key": base.format("", "?pass%77ord=" + plus),
            "unknown-key": base.format("", "?auth_token=" + plus),
        }[form]

    url = in_url(quote(password, safe=""), quote_plus(password))
    parsed = make_url(url)
    assert password in (parsed.password, *parsed.query.values())
    shown = mask_url(url)
    # Not a password that shows whatever the URL's password is: one inside the rest of the URL
    # (the user name "advisor" holds "adviso") or in the mask's own text. The same URL with
    # another password tells (replacing the password's text in the URL would also replace it
    # where it is part of the user name).
    control = mask_url(in_url("x", "x"))
    assume(all(s not in control for s in (password, quote(password, safe=""),
                                           quote_plus(password))))
    assert password not in shown
    assert quote(password, safe="") not in shown
    assert quote_plus(password) not in shown
    assert password in secrets_in(url)


@pytest.mark.parametrize("url", ["mysql+pymysql://u:s3cret@h:3306/db",
                                 "mysql+pymysql://u@h:3306/db?password=s3cret",
                                 "mysql://u@h:3306/db?charset=utf8&passwd=s3cret"])
def test_sysbench_gets_the_password_from_any_form_and_only_in_its_environment(url: str) -> None:
    """sysbench reads MYSQL_PWD; the password never reaches its command line (`ps` shows it)."""
    from workloads.real.sysbench import oltp_connection

    args, env = oltp_connection(url)
    assert env == {"MYSQL_PWD": "s3cret"}
    assert not any("s3cret" in a for a in args)
