"""Files read as data and files written safely.

Reading: a scenario or sweep file comes from a stranger (docs/extending.md). It must be a
regular file (a FIFO would hang the reader, ``/dev/zero`` never ends) of at most
:data:`MAX_INPUT_BYTES`, in UTF-8, and its TOML is bounded before the parser sees it:
nesting at most :data:`MAX_TOML_DEPTH` brackets deep, dotted keys of at most
:data:`MAX_KEY_PARTS` parts (Python's TOML parser recurses on nesting, and takes memory
quadratic in the parts of a dotted key). Every failure is a one-line
:class:`renolab.ScenarioError` naming the file.

Writing: an output directory may hold what someone else planted there. A file is written
under a new temporary name in its directory (created exclusively, so nothing there is
followed) and renamed over its final name at the end, which replaces a symbolic link
instead of writing through it; an interrupted write leaves the old file or none, never half
of one under the final name (:func:`new_file`, :func:`write_atomic`).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Union

from renolab._core import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

PathLike = Union[str, "os.PathLike[str]"]

__all__ = [
    "MAX_INPUT_BYTES",
    "MAX_KEY_PARTS",
    "MAX_TOML_DEPTH",
    "TEMP_PREFIX",
    "check_depth",
    "new_file",
    "new_path",
    "parse_toml",
    "publish",
    "read_text",
    "temporary_beside",
    "write_atomic",
]

#: Largest scenario or sweep file read: 64 MiB (a drop list of millions of segments fits).
MAX_INPUT_BYTES = 64 << 20
#: Deepest nesting of arrays and tables in a TOML file, and of a scenario's data.
MAX_TOML_DEPTH = 64
#: Most parts of a dotted key (``a.b.c`` has 3).
MAX_KEY_PARTS = 64
#: Temporary files and directories renolab makes in an output directory start with this.
TEMP_PREFIX = ".renolab-"

_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _kind_of(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n} bytes" + (f" ({n / (1 << 20):g} MiB)" if n % (1 << 20) == 0 and n else "")


def read_text(path: PathLike, what: str = "scenario") -> str:
    """The UTF-8 text of the *what* file *path*: a regular file of at most
    :data:`MAX_INPUT_BYTES`; :class:`ScenarioError` (``path: why``) otherwise, also for a
    missing or unreadable file."""
    if not isinstance(path, (str, os.PathLike)):
        raise ScenarioError(f"{what} file: expected a path, got {type(path).__name__}")
    source = os.fspath(path)
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    try:
        # Non-blocking: opening a FIFO without a writer would wait for one forever.
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ScenarioError(f"{source}: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL
        raise ScenarioError(f"{what} file: {exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ScenarioError(f"{source}: is {_kind_of(info.st_mode)}; a {what} is read from a regular file")
    if info.st_size > MAX_INPUT_BYTES:
        os.close(fd)
        raise ScenarioError(f"{source}: {_size(info.st_size)}, more than the {_size(MAX_INPUT_BYTES)} a {what} file may have")
    with os.fdopen(fd, "rb") as f:
        try:
            raw = f.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise ScenarioError(f"{source}: {exc.strerror or exc}") from None
    if len(raw) > MAX_INPUT_BYTES:  # it grew while being read
        raise ScenarioError(f"{source}: more than the {_size(MAX_INPUT_BYTES)} a {what} file may have")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{source}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None


# -- TOML, bounded ----------------------------------------------------------------------------

# What the shape check skips: strings (multi-line first) and comments.
_SKIP = {
    '"""': re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*(?:""""{0,2})?', re.S),
    "'''": re.compile(r"'''(?:[^']|'(?!''))*(?:''''{0,2})?", re.S),
    '"': re.compile(r'"(?:[^"\\\n]|\\.)*"?'),
    "'": re.compile(r"'[^'\n]*'?"),
    "#": re.compile(r"#[^\n]*"),
}
_TOKEN = re.compile(r"""\"\"\"|'''|["'#\[\]{}.\n=,]""")
# The same without the tokens that end a key (newline, '=', ','), looked for while no dot
# has been counted: they would only set the count to 0 again (most lines have no dot).
_TOKEN_BUT_ENDS = re.compile(r"""\"\"\"|'''|["'#\[\]{}.]""")


def _check_toml_shape(text: str, source: str) -> None:
    """Refuses nesting deeper than :data:`MAX_TOML_DEPTH` and dotted keys of more than
    :data:`MAX_KEY_PARTS` parts, before the parser meets them (one pass, strings and
    comments skipped)."""
    depth, dots, pos = 0, 0, 0
    while True:
        match = (_TOKEN if dots else _TOKEN_BUT_ENDS).search(text, pos)
        if match is None:
            return
        token, pos = match.group(), match.end()
        skip = _SKIP.get(token)
        if skip is not None:
            pos = skip.match(text, match.start()).end()
        elif token in "[{":
            depth += 1
            dots = 0
            if depth > MAX_TOML_DEPTH:
                raise ScenarioError(
                    f"{_where(source, text, match.start())}: invalid TOML: nested more than {MAX_TOML_DEPTH} levels deep"
                )
        elif token in "]}":
            depth = max(depth - 1, 0)
            dots = 0
        elif token == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                raise ScenarioError(
                    f"{_where(source, text, match.start())}: invalid TOML: a dotted key of more than {MAX_KEY_PARTS} parts"
                )
        else:  # newline, '=' or ',': a new key (or value) starts
            dots = 0


def _where(source: str, text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{source}:{line}:{column}"


def parse_toml(text: str, source: str = "<string>") -> dict[str, Any]:
    """Parse TOML *text*, bounded (see the module documentation). Any failure is a
    :class:`ScenarioError` starting with ``source`` (and ``:line:column`` when known)."""
    if not isinstance(text, str):
        raise ScenarioError(f"{source}: expected TOML text (a str), got {type(text).__name__}")
    _check_toml_shape(text, source)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _POSITION.search(message)
        if match:
            return _raise(f"{source}:{match.group(1)}:{match.group(2)}: invalid TOML: {message[: match.start()]}")
        return _raise(f"{source}: invalid TOML: {message}")
    except ValueError as exc:  # an integer of more digits than Python converts
        if "integer string conversion" in str(exc):
            return _raise(f"{source}: invalid TOML: a whole number of more than {_max_digits()} digits")
        return _raise(f"{source}: invalid TOML: {exc}")
    except (RecursionError, MemoryError) as exc:
        return _raise(f"{source}: invalid TOML: too large or too deep to read ({type(exc).__name__})")


def _max_digits() -> int:
    return getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300


def _raise(message: str) -> Any:
    raise ScenarioError(message) from None


_SCALARS = frozenset({str, int, float, bool, type(None)})


def check_depth(data: Any, where: str = "scenario", limit: int = MAX_TOML_DEPTH) -> None:
    """Refuses data nested deeper than *limit* (lists and mappings) or holding itself,
    without recursion: what copies, serialises and validates it next recurses."""
    from collections.abc import Mapping

    stack: list[tuple[Any, int, bool]] = [(data, 0, False)]
    on_path: set[int] = set()  # the containers holding the one being looked at
    while stack:
        item, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(item))
            continue
        if isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth >= limit:
            raise ScenarioError(f"{where}: nested more than {limit} levels deep")
        if id(item) in on_path:
            raise ScenarioError(f"{where}: holds itself (a table or list inside itself)")
        on_path.add(id(item))
        stack.append((item, depth, True))
        # Plain scalars (most of a scenario) can be neither too deep nor a container: not
        # pushed at all; the containers are looked at in the same order as before.
        stack.extend((child, depth + 1, False) for child in children if type(child) not in _SCALARS)


# -- writing safely ---------------------------------------------------------------------------


def temporary_beside(path: PathLike) -> Path:
    """A new, empty file in *path*'s directory, named after it with :data:`TEMP_PREFIX`
    (created exclusively: nothing of that name is followed)."""
    final = Path(path)
    fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f"{TEMP_PREFIX}{final.name}.", suffix=".part")
    os.close(fd)
    return Path(tmp)


def publish(tmp: PathLike, path: PathLike) -> None:
    """Give the finished temporary file *tmp* the usual permissions and rename it over
    *path* (a symbolic link there is replaced, not followed)."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


@contextlib.contextmanager
def new_path(path: PathLike) -> Iterator[Path]:
    """A temporary file beside *path* (:func:`temporary_beside`) for writers that open a path
    themselves (pyarrow, matplotlib); renamed over *path* when the block ends, removed if it
    fails."""
    tmp = temporary_beside(path)
    try:
        yield tmp
        publish(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


@contextlib.contextmanager
def new_file(path: PathLike, mode: str = "w", **open_args: Any) -> Iterator[IO[Any]]:
    """:func:`new_path`, opened in *mode*."""
    with new_path(path) as tmp, open(tmp, mode, **open_args) as f:
        yield f


def write_atomic(path: PathLike, text: str | bytes, *, durable: bool = True) -> None:
    """Write *text* to *path* through :func:`new_file`, fsync'ed first if *durable*."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    with new_file(path, "wb") as f:
        f.write(data)
        if durable:
            f.flush()
            os.fsync(f.fileno())


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        try:  # Linux says it without changing it (os.umask would, for a moment, in every thread)
            status = Path("/proc/self/status").read_text()
            _UMASK = int(re.search(r"^Umask:\s*([0-7]+)", status, re.M).group(1), 8)  # type: ignore[union-attr]
        except (OSError, AttributeError, ValueError):
            _UMASK = os.umask(0o022)
            os.umask(_UMASK)
    return _UMASK


_UMASK: int | None = None
