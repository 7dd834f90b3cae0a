"""Sessions' working directories: where each session's files live, what a
run created or changed, and the files a request brings in."""

import base64
import os
import re

#: Sessions' working directories live here, one each.
SESSIONS_ROOT = "/home/pyodide/sessions"
#: At most this many files are listed in a result.
MAX_LISTED_FILES = 1000


def checked_path(path: str) -> str:
    """``path`` if it is relative and stays inside the working directory."""
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith("/") or ".." in parts:
        raise ValueError(f"file path {path!r} must be relative and stay in the working directory")
    return path


def enter(directory: str) -> None:
    """Makes ``directory`` the current one, creating it if it is missing.

    It exists on every run but a session's first: ``makedirs`` first would
    cost each run two failing ``mkdir`` calls and their stats."""
    try:
        os.chdir(directory)
    except FileNotFoundError:
        os.makedirs(directory)
        os.chdir(directory)


def write_inputs(files: list) -> None:
    """Puts the request's files in the current directory, refusing paths that leave it."""
    for item in files:
        path = checked_path(item["path"])
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(item["content_base64"]))


def listing() -> dict:
    """Size and modification time of every file under the current directory,
    as ``os.walk`` would find them: ``__pycache__`` left out, a directory that
    cannot be read skipped, linked directories not entered. Scanned with
    ``os.scandir`` directly, which costs a run less than ``os.walk``'s generators."""
    seen = {}
    scan(".", "", seen)
    return seen


def scan(directory: str, prefix: str, seen: dict) -> bool:
    """Adds the files under ``directory`` to ``seen``, their paths starting
    with ``prefix``; says whether ``directory`` may hold anything, listed or
    not (an empty directory, a link to nothing)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return True
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__" and not entry.is_symlink():
                scan(entry.path, f"{prefix}{entry.name}/", seen)
        else:
            try:
                info = entry.stat()
            except OSError:
                continue  # a link to nothing: no file to list or to read
            seen[prefix + entry.name] = (info.st_size, info.st_mtime_ns)
    return bool(entries)


def artifacts(before: dict, after: dict, inline_limit: int) -> list:
    """Files created or changed since ``before``, with their bytes when small enough."""
    found = []
    for path in sorted(after):
        if before.get(path) == after[path]:
            continue
        size = after[path][0]
        content = None
        if size <= inline_limit:
            with open(path, "rb") as handle:
                content = base64.b64encode(handle.read()).decode("ascii")
        found.append({"path": path, "size": size, "mime": guess_mime(path), "content_base64": content})
    return found


def listed(files: dict) -> list:
    """``FileEntry``s of a listing, at most ``MAX_LISTED_FILES``."""
    return [{"path": path, "size": size} for path, (size, _) in sorted(files.items())[:MAX_LISTED_FILES]]


def guess_mime(path: str) -> str:
    # Imported only once a run has written a file: reading its tables is a
    # cost the first run after start-up would pay even when it wrote none.
    import mimetypes

    return mimetypes.guess_type(path)[0] or "application/octet-stream"


class Directories:
    """The sessions' directories under ``root``: each session's own, and
    fresh runs' throwaway ones; and each directory's files as its last run
    left them, which the next run compares against instead of walking the
    directory again before it starts. So a change made between two runs (by
    another session's code, say) is reported with the next run's files."""

    def __init__(self, root: str = SESSIONS_ROOT):
        self.root = root
        self.files_after: dict[str, dict] = {}
        # Fresh runs' directories that are empty and free, for the next fresh
        # run to take instead of making and deleting one each time.
        self._idle_fresh: list[str] = []
        self._fresh_made = 0
        self._by_session: dict[str, str] = {}

    def of_session(self, name: str) -> str:
        """The session's working directory: its name made safe as one path segment."""
        directory = self._by_session.get(name)
        if directory is None:
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "_"
            directory = self._by_session[name] = f"{self.root}/{safe}"
        return directory

    def take_fresh(self) -> str:
        """An empty directory for a fresh run. Its name starts with a dot,
        which no session's directory does (see :meth:`of_session`)."""
        if self._idle_fresh:
            return self._idle_fresh.pop()
        self._fresh_made += 1
        return f"{self.root}/.fresh-{self._fresh_made}"

    def free_fresh(self, directory: str, empty: bool) -> None:
        """Ends a fresh run in ``directory``: left ``empty``, it waits for the next
        fresh run, else it is deleted. The current directory moves out of it, so
        what runs between runs (a callback the code scheduled) cannot write into it."""
        os.chdir(self.root)
        if empty:
            self._idle_fresh.append(directory)
        else:
            import shutil  # imported when first needed: start-up imports only what every run uses

            shutil.rmtree(directory)

    def read_file(self, session: str, path: str) -> str:
        """A file of a session's working directory, base64: for artifacts too big to inline."""
        full = os.path.join(self.of_session(session), checked_path(path))
        if not os.path.isfile(full):
            # Named as the caller named it: the sessions' own paths are the runner's business.
            raise FileNotFoundError(f"no such file in session {session!r}: {path}")
        with open(full, "rb") as handle:
            return base64.b64encode(handle.read()).decode("ascii")
