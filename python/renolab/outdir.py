"""Output directories: one run's files at a time, one writer at a time.

A run directory holds the files of one run, never two (``renolab run A --out d`` then
``renolab run B --out d`` must not leave A's ``cwnd.csv`` beside B's ``summary.json``).
``summary.json`` lists every file its run wrote (``files``); before a run writes, the files
an earlier renolab run listed there are removed, with renolab's temporary files and the
default figure directory ``plots/`` of ``renolab plot``. A directory holding anything else
is refused (:class:`DirectoryNotEmpty`) unless the caller forces it (``--force``): then the
run writes beside what is there, still removing the earlier run's files.

While a run, an emulation or a sweep writes into a directory it holds the directory's lock
(``flock``); a second one is refused at once (:class:`DirectoryInUse`) instead of mixing its
files with the first's (or computing the same sweep runs twice).

Nothing listed in a ``summary.json`` is trusted beyond the names renolab writes: a path
outside the directory, or a name renolab never writes, is not removed.

A study's directory (``renolab reproduce``) follows the same rules: ``reproduce.json`` lists
the files the reproduction wrote, which the next one removes first (:func:`study_directory`).

Reading a run directory back (:func:`check_one_run`, for ``Result.load``), its files must be
the ones its ``summary.json`` lists: a CSV of the size and SHA-256 recorded there, a Parquet
trace carrying the run's id (:func:`run_id`); else :class:`RunDirectoryError`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

from renolab._files import TEMP_PREFIX

PathLike = Union[str, "os.PathLike[str]"]

__all__ = [
    "DirectoryInUse",
    "DirectoryNotEmpty",
    "RunDirectoryError",
    "check_one_run",
    "locked",
    "run_directory",
    "run_id",
    "studies_directory",
    "study_directory",
    "trace_states",
]

#: The file whose lock stands for the directory's where a directory cannot be locked
#: itself (some network file systems).
LOCK_FILE = f"{TEMP_PREFIX}lock"
#: Directories of pcap files and of ``renolab plot``'s figures (its default --out).
PCAP_DIR = "pcap"
PLOTS_DIR = "plots"

# What renolab writes in a run directory, by name: what an earlier renolab's summary.json
# (one without a list of files) may be taken to have written, and all a list may name.
_TABLES = ("flows.csv", "links.csv", "stations.csv", "summary.json", "ns2.tr", "panic.json")
_TRACE_FILE = re.compile(r"^(cwnd|seq|rtt|queue|drops|hops|cc)\.(parquet|csv)$")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
_FIGURE = re.compile(r"^(cwnd|seq|throughput|queue|cc|summary)\.(png|svg|pdf)$")


class DirectoryInUse(BlockingIOError):
    """Another renolab command is writing into the directory (it holds its lock)."""


class DirectoryNotEmpty(FileExistsError):
    """The directory holds files renolab did not write (pass ``force=True`` / ``--force``
    to write beside them)."""


def _is_ours(relative: str) -> bool:
    """True if *relative* is a path renolab writes in a run directory."""
    parts = relative.split("/")
    if len(parts) == 1:
        return parts[0] in _TABLES or bool(_TRACE_FILE.match(parts[0]))
    if len(parts) == 2 and parts[0] == PCAP_DIR:
        name, _, suffix = parts[1].rpartition(".")
        return suffix == "pcap" and bool(_NAME.match(name))
    return False


def _renolab_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in *path* if renolab wrote it (a regular file of at most 1 GiB, an
    object with ``renolab_version``), else None."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode) or path.stat().st_size > 1 << 30:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "renolab_version" in data else None


def _renolab_summary(directory: Path) -> dict[str, Any] | None:
    """The directory's ``summary.json`` if renolab wrote it, else None."""
    return _renolab_json(directory / "summary.json")


def _renolab_panic(path: Path) -> bool:
    """True if *path* is the ``panic.json`` of a renolab run (``renolab run``'s report of an
    internal error, written without a summary)."""
    return _renolab_json(path) is not None


def earlier_files(directory: Path) -> tuple[list[Path], list[str]]:
    """What an earlier renolab run left in *directory* (to remove), and the names of the
    entries renolab did not write."""
    summary = _renolab_summary(directory)
    listed: set[str] = set()
    legacy = False  # a run of a renolab that did not list its files: renolab's names are its
    if summary is not None:
        files = summary.get("files")
        legacy = not isinstance(files, (dict, list))
        listed = {"summary.json"} | ({f for f in files if isinstance(f, str) and _is_ours(f)} if not legacy else set())

    def earlier(relative: str) -> bool:
        return relative in listed or (legacy and _is_ours(relative))

    ours: list[Path] = []
    foreign: list[str] = []
    for entry in sorted(directory.iterdir()):
        name = entry.name
        if name == LOCK_FILE:
            continue
        if name.startswith(TEMP_PREFIX):
            ours.append(entry)  # a temporary file or trace directory of a run that was killed
        elif name in (PCAP_DIR, PLOTS_DIR) and _is_dir(entry):
            for inner in sorted(entry.iterdir()):
                relative = f"{name}/{inner.name}"
                if _is_dir(inner):
                    foreign.append(relative)
                elif earlier(relative) if name == PCAP_DIR else _FIGURE.match(inner.name):
                    ours.append(inner)
                else:
                    foreign.append(relative)
        elif _is_dir(entry):
            foreign.append(name)
        elif earlier(name) or (name == "panic.json" and _renolab_panic(entry)):
            ours.append(entry)
        else:
            foreign.append(name)
    return ours, foreign


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _remove(path: Path) -> None:
    """Remove *path*: a file or a symbolic link (the link itself, never its target), or a
    directory renolab made (its temporary trace directory) with what is in it."""
    try:
        if _is_dir(path):
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _refuse_foreign(directory: Path, foreign: Sequence[str], writer: str, force: str) -> None:
    """:class:`DirectoryNotEmpty` naming the first entries of *foreign* that *writer* did
    not write, and *force*, the way to write beside them."""
    shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    raise DirectoryNotEmpty(
        errno.EEXIST,
        f"holds files {writer} did not write ({shown}); choose a new or empty directory, "
        f"or pass {force} to write beside them",
        str(directory),
    )


def clear(directory: Path, *, force: bool = False) -> list[Path]:
    """Remove what an earlier renolab run left in *directory*; refuse a directory holding
    anything else unless *force*. Returns what was removed."""
    ours, foreign = earlier_files(directory)
    if foreign and not force:
        _refuse_foreign(directory, foreign, "a renolab run", "--force (force=True)")
    for path in ours:
        _remove(path)
    for sub in (PCAP_DIR, PLOTS_DIR):
        with contextlib.suppress(OSError):
            (directory / sub).rmdir()  # only if empty
    return ours


def checked_path(path: PathLike, option: str = "--out") -> Path:
    """*path* as a Path; an empty one is refused (it would mean the current directory)."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ValueError(f"{option}: an empty path; give the directory to write into")
    return Path(path)


@contextlib.contextmanager
def locked(directory: Path, what: str = "command") -> Iterator[Path]:
    """Hold *directory*'s lock (created if missing) for the block; :class:`DirectoryInUse`
    at once if another process holds it."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            _lock(fd, directory, what, "its lock")
        except DirectoryInUse:
            raise
        except OSError:  # a file system whose directories cannot be locked: a lock file
            os.close(fd)
            fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            _lock(fd, directory, what, LOCK_FILE)
        yield directory
    finally:
        os.close(fd)


def _lock(fd: int, directory: Path, what: str, held: str) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock to take
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise DirectoryInUse(
            errno.EWOULDBLOCK,
            f"another renolab {what} is writing into this directory (it holds {held}); "
            "wait for it to finish, or choose another --out",
            str(directory),
        ) from None


@contextlib.contextmanager
def run_directory(path: PathLike, *, force: bool = False) -> Iterator[Path]:
    """The run directory *path*, created if missing, locked, and cleared of an earlier
    run's files (:func:`clear`) for the block."""
    directory = checked_path(path)
    directory.mkdir(parents=True, exist_ok=True)
    with locked(directory, "run"):
        clear(directory, force=force)
        yield directory


# -- a study's directory (renolab reproduce) -----------------------------------------------

#: The list of the files ``renolab reproduce`` wrote into a study's directory.
STUDY_FILES = "reproduce.json"
#: Where a study writes its scenario files.
SCENARIOS_DIR = "scenarios"
# What a study writes, by name (a list may name nothing else): its report, figures and
# tables at the top, its scenarios in scenarios/.
_STUDY_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}\.(md|html|png|svg|pdf|csv)$")
_STUDY_SCENARIO = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}\.toml$")


def _is_study_file(relative: str) -> bool:
    """True if *relative* is a path ``renolab reproduce`` writes in a study's directory."""
    parts = relative.split("/")
    if len(parts) == 1:
        return bool(_STUDY_FILE.match(parts[0]))
    return len(parts) == 2 and parts[0] == SCENARIOS_DIR and bool(_STUDY_SCENARIO.match(parts[1]))


def _study_listed(directory: Path) -> set[str] | None:
    """The files an earlier ``renolab reproduce`` listed in *directory*'s
    :data:`STUDY_FILES` (those it could have written), or None without a list."""
    listing = _renolab_json(directory / STUDY_FILES)
    if listing is None or not isinstance(listing.get("files"), list):
        return None
    return {f for f in listing["files"] if isinstance(f, str) and _is_study_file(f)}


def earlier_study_files(directory: Path) -> tuple[list[Path], list[str]]:
    """What an earlier ``renolab reproduce`` left in *directory* (the files its list names,
    and the list), and the names of the entries it did not write."""
    listed = _study_listed(directory)
    ours: list[Path] = []
    foreign: list[str] = []
    for entry in sorted(directory.iterdir()):
        name = entry.name
        if name == LOCK_FILE:
            continue
        if name == STUDY_FILES and listed is not None:
            ours.append(entry)
        elif name == SCENARIOS_DIR and _is_dir(entry) and listed:
            for inner in sorted(entry.iterdir()):
                relative = f"{name}/{inner.name}"
                if relative in listed and not _is_dir(inner):
                    ours.append(inner)
                else:
                    foreign.append(relative)
        elif listed and name in listed and not _is_dir(entry):
            ours.append(entry)
        else:
            foreign.append(name)
    return ours, foreign


def _study_files_now(directory: Path) -> dict[str, tuple[int, int, int]]:
    """The files of *directory* a study may have written, by relative path: their inode,
    size and modification time (what tells a file written anew)."""
    found: dict[str, tuple[int, int, int]] = {}
    candidates = list(directory.iterdir())
    scenarios = directory / SCENARIOS_DIR
    if _is_dir(scenarios):
        candidates += list(scenarios.iterdir())
    for path in candidates:
        relative = path.relative_to(directory).as_posix()
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and _is_study_file(relative):
            found[relative] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return found


@contextlib.contextmanager
def study_directory(path: PathLike, *, force: bool = False) -> Iterator[Path]:
    """A study's directory for ``renolab reproduce`` (the rules of a run directory): *path*,
    created if missing and locked for the block; the files an earlier reproduction listed
    in :data:`STUDY_FILES` are removed first, and a directory holding anything else is
    refused (:class:`DirectoryNotEmpty`) unless *force*. After the block (finished or not),
    :data:`STUDY_FILES` lists the files written in it."""
    from renolab import __version__
    from renolab._files import write_atomic

    directory = checked_path(path)
    directory.mkdir(parents=True, exist_ok=True)
    with locked(directory, "reproduce"):
        ours, foreign = earlier_study_files(directory)
        if foreign and not force:
            _refuse_foreign(directory, foreign, "renolab reproduce", "--force")
        for earlier in ours:
            _remove(earlier)
        with contextlib.suppress(OSError):
            (directory / SCENARIOS_DIR).rmdir()  # only if empty
        before = _study_files_now(directory)
        try:
            yield directory
        finally:
            now = _study_files_now(directory)
            written = sorted(name for name, info in now.items() if before.get(name) != info)
            listing = {"renolab_version": __version__, "files": written}
            write_atomic(directory / STUDY_FILES, json.dumps(listing, indent=2) + "\n", durable=False)


def studies_directory(path: PathLike, studies: Sequence[str], *, force: bool = False) -> Path:
    """The directory of ``renolab reproduce all``, created if missing: one directory per
    study in *studies* (each a :func:`study_directory`); anything else in it, or in a
    study's directory, is refused (:class:`DirectoryNotEmpty`) unless *force*."""
    directory = checked_path(path)
    directory.mkdir(parents=True, exist_ok=True)
    foreign: list[str] = []
    for entry in sorted(directory.iterdir()):
        if entry.name in studies and _is_dir(entry):
            # Checked now, not after the studies before it have run.
            foreign += [f"{entry.name}/{name}" for name in earlier_study_files(entry)[1]]
        elif entry.name != LOCK_FILE:
            foreign.append(entry.name)
    if foreign and not force:
        _refuse_foreign(directory, foreign, "renolab reproduce", "--force")
    return directory


def real_subdirectory(directory: Path, name: str) -> Path:
    """``directory/name`` as a real directory: a file or a symbolic link in its place is
    removed first (never followed)."""
    path = directory / name
    with contextlib.suppress(FileNotFoundError):
        if not _is_dir(path):
            path.unlink()
    path.mkdir(exist_ok=True)
    return path


# -- one run's files ---------------------------------------------------------------------


class RunDirectoryError(ValueError):
    """A run directory whose files are not one run's (or not as that run wrote them)."""


def run_id(summary: Mapping[str, Any], traces: Sequence[str], unique: bool) -> str:
    """The run's id: a digest of what determines its files (version, scenario, seed, how
    far it ran, the traces recorded), so that the same run gives the same files byte for
    byte; random for a run that cannot be repeated (*unique*)."""
    import hashlib

    if unique:
        return os.urandom(8).hex()
    canonical = json.dumps(
        {
            "renolab_version": summary.get("renolab_version"),
            "scenario": summary.get("scenario"),
            "seed": summary.get("seed"),
            "events": summary.get("events"),
            "sim_time_s": summary.get("sim_time_s"),
            "stop_reason": summary.get("stop_reason"),
            "traces": sorted(traces),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def trace_states(recorded: Sequence[str], failures: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per trace (and ``pcap`` if it failed): ``complete``, ``truncated_at_s``, ``error``."""
    states = {}
    for name in [*recorded, *(n for n in failures if n not in recorded)]:
        failure = failures.get(name)
        states[name] = {
            "complete": failure is None,
            "truncated_at_s": None if failure is None else failure.get("truncated_at_s"),
            "error": None if failure is None else failure.get("error"),
        }
    return states


#: Files above this size have their size, not their SHA-256, checked when a run is loaded.
_HASH_CHECKED_BYTES = 256 << 20


def check_one_run(root: Path, summary: Mapping[str, Any], found: Mapping[str, list[Path]]) -> dict[str, Path]:
    """The trace files of *root*'s run, by trace name, after checking that the tables and
    traces are the files its ``summary.json`` lists (nothing is checked for a directory
    written before runs listed their files)."""
    listed = summary.get("files")
    run_id = summary.get("run_id")
    if not isinstance(listed, dict) or not isinstance(run_id, str):
        return {name: paths[0] for name, paths in found.items()}

    def mixed(name: str, why: str) -> RunDirectoryError:
        return RunDirectoryError(
            f"{root}: {name} {why}, so the directory mixes runs; run again into a new directory "
            "(renolab run clears an earlier run's files)"
        )

    def check(path: Path) -> None:
        info = listed.get(path.name)
        if not isinstance(info, dict):
            raise mixed(path.name, f"is not one of the files run {run_id} wrote (summary.json lists them)")
        size = path.stat().st_size
        if info.get("bytes") is not None and size != info["bytes"]:
            raise mixed(path.name, f"has {size} bytes where run {run_id} wrote {info['bytes']}")
        if info.get("sha256") and size <= _HASH_CHECKED_BYTES:
            import hashlib

            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            if digest.hexdigest() != info["sha256"]:
                raise mixed(path.name, f"is not the file run {run_id} wrote (its SHA-256 differs)")
        if path.suffix == ".parquet":
            from renolab.traces.files import parquet_run_id

            try:
                carried = parquet_run_id(path)
            except Exception:  # noqa: BLE001 - an unreadable file
                carried = None
            if carried != run_id:
                raise mixed(path.name, f"carries run id {carried} where summary.json has {run_id}")

    for table in ("flows.csv", "links.csv", "stations.csv"):
        if (root / table).is_file():
            check(root / table)
    files = {}
    for name, paths in found.items():
        for path in paths:
            check(path)
        files[name] = paths[0]
    return files
