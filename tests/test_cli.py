"""The command line: dealing and the main job."""

from typer.testing import CliRunner

from prefstats.cli import app

runner = CliRunner()


def test_deal_prints_hands_and_talon():
    result = runner.invoke(app, ["deal", "-n", "2", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "first hand" in result.output and "talon" in result.output
    assert "seed 1" in result.output


def test_deal_is_reproducible_from_printed_seed():
    first = runner.invoke(app, ["deal", "-n", "1", "--seed", "5"])
    second = runner.invoke(app, ["deal", "-n", "1", "--seed", "5"])
    assert first.output == second.output


def test_deal_rejects_bad_count():
    result = runner.invoke(app, ["deal", "-n", "0"])
    assert result.exit_code != 0


def test_demo_simulates_and_reports(tmp_path):
    args = ["demo", "--hands", "3000", "--pulkas", "20", "--pool-target", "5", "--seed", "3",
            "--data", str(tmp_path / "data"), "--out", str(tmp_path / "reports"), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "exact" in result.output and "aces in hand" in result.output
    folder = tmp_path / "reports" / "sochi"
    assert (folder / "index.html").exists() and (folder / "guide.md").exists()
    assert "pulkas" in (folder / "report.md").read_text()
    other = ["demo", "--hands", "2000", *args[3:]]  # other arguments: refused, then --force
    refused = runner.invoke(app, other)
    assert refused.exit_code == 2 and "--force" in refused.output
    assert "Traceback" not in refused.output
    forced = runner.invoke(app, [*other[:3], "--pulkas", "0", *other[5:], "--force"])
    assert forced.exit_code == 0, forced.output
