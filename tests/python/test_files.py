"""Files: the working directory as a run sees it (``_snapshot``, ``_scan``),
what a run created or changed (``_artifacts``, ``_guess_mime``), the
request's files (``_checked_path``, ``_write_inputs``) and session folders."""

import base64
import os

import pytest
from harness import UnderTest, assert_shape, files, run


def write(path: str, data: bytes = b"x") -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


class TestSnapshot:
    def test_every_file_below_with_its_size(self, here):
        write("a.txt", b"abc")
        write("data/b.csv", b"1,2\n")
        write("data/deep/c.bin", b"")
        seen = files.listing()
        assert {path: size for path, (size, _) in seen.items()} == {"a.txt": 3, "data/b.csv": 4, "data/deep/c.bin": 0}
        assert seen["a.txt"][1] == os.stat("a.txt").st_mtime_ns

    def test_pycache_and_linked_folders_are_not_entered(self, here):
        write("__pycache__/m.cpython.pyc")
        write("real/f.txt")
        os.symlink("real", "link")
        assert sorted(files.listing()) == ["real/f.txt"]

    def test_a_link_to_a_file_is_listed_and_a_link_to_nothing_is_not(self, here):
        write("f.txt", b"12")
        os.symlink("f.txt", "alias")
        os.symlink("missing", "dangling")
        assert {path: size for path, (size, _) in files.listing().items()} == {"f.txt": 2, "alias": 2}

    def test_a_folder_that_cannot_be_listed_is_skipped(self, here):
        seen = {}
        assert files.scan("no-such-folder", "", seen), "it may hold something"
        assert seen == {}

    def test_the_scan_says_whether_anything_is_there_listed_or_not(self, here):
        assert not files.scan(".", "", {})
        os.mkdir("empty")
        seen = {}
        assert files.scan(".", "", seen)
        assert seen == {}


class TestArtifacts:
    def test_created_and_changed_files_in_path_order_small_ones_inline(self, here):
        write("same.txt", b"kept")
        write("changed.txt", b"old")
        before = files.listing()
        write("changed.txt", b"newer")
        write("new/plot.png", b"\x89PNG")
        write("big.csv", b"x" * 11)
        found = files.artifacts(before, files.listing(), inline_limit=10)
        for artifact in found:
            assert_shape(artifact, "Artifact")
        assert [(a["path"], a["size"], a["mime"]) for a in found] == [
            ("big.csv", 11, "text/csv"),
            ("changed.txt", 5, "text/plain"),
            ("new/plot.png", 4, "image/png"),
        ]
        assert found[0]["content_base64"] is None  # over the limit: read it with read_file
        assert base64.b64decode(found[1]["content_base64"]) == b"newer"
        assert base64.b64decode(found[2]["content_base64"]) == b"\x89PNG"

    def test_nothing_when_nothing_changed(self, here):
        write("a.txt")
        snapshot = files.listing()
        assert files.artifacts(snapshot, files.listing(), inline_limit=10) == []

    def test_a_file_of_no_known_kind_is_bytes(self):
        assert files.guess_mime("model.weights") == "application/octet-stream"
        assert files.guess_mime("Makefile") == "application/octet-stream"
        assert files.guess_mime("page.html") == "text/html"


class TestInputs:
    @pytest.mark.parametrize("path", ["", "/etc/passwd", "../up.txt", "a/../../b", "a\\..\\b"])
    def test_paths_that_leave_the_folder_are_refused(self, path):
        with pytest.raises(ValueError, match="must be relative"):
            files.checked_path(path)

    @pytest.mark.parametrize("path", ["a.txt", "data/b.csv", "./c", "d..e"])
    def test_relative_paths_are_kept_as_they_are(self, path):
        assert files.checked_path(path) == path

    def test_the_requests_files_are_written_with_their_folders(self, here):
        inputs = [
            {"path": "in.txt", "content_base64": base64.b64encode(b"hello").decode()},
            {"path": "data/x.bin", "content_base64": base64.b64encode(b"\x00\x01").decode()},
        ]
        files.write_inputs(inputs)
        assert (here / "in.txt").read_bytes() == b"hello"
        assert (here / "data" / "x.bin").read_bytes() == b"\x00\x01"

    def test_a_file_that_would_leave_the_folder_is_not_written(self, here):
        with pytest.raises(ValueError):
            files.write_inputs([{"path": "../out.txt", "content_base64": ""}])
        assert not (here.parent / "out.txt").exists()


class TestSessionFolders:
    @pytest.mark.parametrize(
        "name, segment",
        [("main", "main"), ("a/b c", "a_b_c"), ("..", "_"), (".hidden", "hidden"), ("", "_"), ("naïve", "na_ve")],
    )
    def test_a_session_name_becomes_one_safe_path_segment(self, name, segment):
        assert files.Directories().of_session(name) == f"{files.SESSIONS_ROOT}/{segment}"

    @pytest.mark.usefixtures("sandbox")
    def test_a_run_lists_its_files_and_reports_what_changed_since_the_last(self, sandbox):
        first = run("open('a.txt', 'w').write('one')")
        assert first["files"] == [{"path": "a.txt", "size": 3}]
        assert [a["path"] for a in first["artifacts"]] == ["a.txt"]
        second = run("open('b.txt', 'w').write('two!')")
        assert second["files"] == [{"path": "a.txt", "size": 3}, {"path": "b.txt", "size": 4}]
        assert [a["path"] for a in second["artifacts"]] == ["b.txt"]
        assert (sandbox / "test" / "b.txt").read_text() == "two!"

    @pytest.mark.usefixtures("sandbox")
    def test_the_requests_files_are_there_when_the_code_runs(self):
        files = [{"path": "in/data.txt", "content_base64": base64.b64encode(b"42").decode()}]
        result = run("int(open('in/data.txt').read())", files=files)
        assert result["value"]["json"] == 42
        assert result["artifacts"] == []  # the request's own files are no artifacts

    @pytest.mark.usefixtures("sandbox")
    def test_a_dangling_link_left_by_a_run_breaks_no_run(self):
        first = run("import os\nos.symlink('nowhere', 'link')\nopen('f', 'w').write('x')")
        assert (first["status"], first["files"]) == ("ok", [{"path": "f", "size": 1}])
        assert run("1")["status"] == "ok"

    @pytest.mark.usefixtures("sandbox")
    def test_read_file_gives_a_sessions_file(self):
        run("x = 1\nopen('out.bin', 'wb').write(bytes(range(3)))")
        assert base64.b64decode(UnderTest.runner.read_file("test", "out.bin")) == bytes(range(3))
        with pytest.raises(ValueError):
            UnderTest.runner.read_file("test", "../other/secret")
