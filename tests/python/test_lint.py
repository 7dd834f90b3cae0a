"""The security lint (``warnings`` in a result and a check): each rule, its
place, and its fix where one is mechanical."""

import json

import pytest
from harness import UnderTest, assert_shape, run

SQL_SETUP = (
    "import sqlite3\ncon = sqlite3.connect(':memory:')\ncur = con.cursor()\n"
    "cur.execute('CREATE TABLE users (name TEXT, age INT)')\n"
    "cur.execute(\"INSERT INTO users VALUES ('bob', 30)\")\nname, age = 'bob', 20\n"
)


def warnings_of(code: str, **fields) -> list:
    return run(code, **fields).get("warnings", [])


def checked(code: str) -> dict:
    report = json.loads(UnderTest.runner.check(code))
    assert_shape(report, "CheckReport")
    return report


@pytest.mark.usefixtures("sandbox")
class TestSql:
    @pytest.mark.parametrize(
        "query, fixed",
        [
            (
                "f\"SELECT * FROM users WHERE name = '{name}' AND age > {age}\"",
                'cur.execute("SELECT * FROM users WHERE name = ? AND age > ?", (name, age))',
            ),
            (
                '"SELECT * FROM users WHERE name = \'" + name + "\'"',
                'cur.execute("SELECT * FROM users WHERE name = ?", (name,))',
            ),
            ('"SELECT * FROM users WHERE age > %d" % age', 'cur.execute("SELECT * FROM users WHERE age > ?", (age,))'),
            (
                "\"SELECT * FROM users WHERE name = '{}'\".format(name)",
                'cur.execute("SELECT * FROM users WHERE name = ?", (name,))',
            ),
        ],
    )
    def test_a_query_built_from_strings_is_flagged_and_parameterized(self, query, fixed):
        code = SQL_SETUP + f"cur.execute({query})\ncur.fetchall()"
        result = run(code)
        assert result["status"] == "ok" and result["value"]["json"] == [["bob", 30]]
        (warning,) = result["warnings"]
        assert (warning["rule"], warning["line"], warning["column"]) == ("sql-built-from-strings", 7, 1)
        assert "injection" in warning["message"]
        assert fixed in warning["fix"]["code"]
        assert warning["fix"]["verified"] is True

    def test_a_query_in_a_variable_gets_its_parameters_at_the_call(self):
        code = SQL_SETUP + 'q = "SELECT age FROM users WHERE name = \'" + name + "\'"\ncur.execute(q)\ncur.fetchall()'
        (warning,) = warnings_of(code)
        assert 'q = "SELECT age FROM users WHERE name = ?"\ncur.execute(q, (name,))' in warning["fix"]["code"]
        assert warning["fix"]["verified"] is True

    def test_a_table_name_from_a_value_is_flagged_without_a_fix(self):
        (warning,) = warnings_of(SQL_SETUP + "table = 'users'\ncur.execute(f'SELECT * FROM {table}')")
        assert warning["rule"] == "sql-built-from-strings" and "fix" not in warning

    def test_a_parameterized_query_is_not_flagged(self):
        assert warnings_of(SQL_SETUP + "cur.execute('SELECT * FROM users WHERE name = ?', (name,))") == []


@pytest.mark.usefixtures("sandbox")
class TestOtherRules:
    def test_eval_of_input_with_a_literal_eval_fix(self):
        (warning,) = warnings_of("text = '[1, 2]'\nvalue = eval(text)\nvalue")
        assert (warning["rule"], warning["line"], warning["column"], warning["end_column"]) == (
            "eval-of-input",
            2,
            9,
            19,
        )
        assert warning["fix"]["code"] == "import ast\ntext = '[1, 2]'\nvalue = ast.literal_eval(text)\nvalue"
        assert warning["fix"]["verified"] is True

    def test_exec_of_a_string_is_flagged_without_a_fix(self):
        (warning,) = warnings_of("code = 'x = 1'\nexec(code)")
        assert warning["rule"] == "eval-of-input" and "fix" not in warning

    def test_eval_of_a_constant_is_not_flagged(self):
        assert warnings_of("eval('1 + 1')") == []

    def test_pickle_loads_is_flagged(self):
        (warning,) = warnings_of("import pickle\nblob = pickle.dumps(1)\npickle.loads(blob)")
        assert warning["rule"] == "unsafe-deserialization" and "fix" not in warning

    def test_pickle_of_data_the_program_just_made_is_not(self):
        assert warnings_of("import pickle\npickle.loads(pickle.dumps(1))") == []

    def test_yaml_load_without_a_safe_loader_becomes_safe_load(self):
        report = checked("import yaml\nconfig = yaml.load(text)")
        (warning,) = report["warnings"]
        assert warning["rule"] == "unsafe-deserialization"
        assert "yaml.safe_load(text)" in warning["fix"]["code"]

    def test_yaml_with_a_safe_loader_is_not_flagged(self):
        assert "warnings" not in checked("import yaml\nyaml.load(text, Loader=yaml.SafeLoader)")

    def test_random_for_a_token_becomes_secrets(self):
        code = (
            "import random, string\ntoken = ''.join(random.choice(string.ascii_letters) for _ in range(16))\nlen(token)"
        )
        (warning,) = warnings_of(code)
        assert warning["rule"] == "weak-random-for-secret"
        assert "secrets.choice(string.ascii_letters)" in warning["fix"]["code"]
        assert warning["fix"]["verified"] is True

    def test_random_for_anything_else_is_not_flagged(self):
        assert warnings_of("import random\nrandom.seed(1)\nroll = random.randint(1, 6)") == []

    def test_md5_of_a_password_is_flagged(self):
        code = (
            "import hashlib\ndef hash_password(p):\n    return hashlib.md5(p.encode()).hexdigest()\nhash_password('x')"
        )
        (warning,) = warnings_of(code)
        assert (warning["rule"], warning["line"]) == ("weak-hash-for-password", 3)

    def test_md5_of_a_file_is_not(self):
        assert warnings_of("import hashlib\ndigest = hashlib.md5(b'data').hexdigest()") == []

    def test_warnings_come_with_an_error_too(self):
        result = run("x = eval(input_text)")
        assert result["status"] == "error" and result["warnings"][0]["rule"] == "eval-of-input"


@pytest.mark.usefixtures("runner")
class TestCheck:
    def test_a_syntax_error_comes_with_a_fix_that_is_not_run(self):
        report = checked("def double(x)\n    return x * 2")
        fix = report["syntax_error"]["fix"]
        assert (fix["summary"], fix["verified"]) == ("add ':' after `def double(x)`", False)
        assert fix["outcome"]["status"] == "not_run"

    def test_a_check_names_dangerous_code_with_fixes_not_run(self):
        (warning,) = checked(SQL_SETUP + "cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")")["warnings"]
        assert warning["rule"] == "sql-built-from-strings"
        assert warning["fix"]["verified"] is False and warning["fix"]["outcome"]["status"] == "not_run"

    def test_clean_code_has_no_warnings(self):
        assert "warnings" not in checked("import json\njson.dumps(1)")
