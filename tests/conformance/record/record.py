"""Record one framework's real OTLP output for the conformance corpus (run by hand).

    python tests/conformance/record/record.py <variant> [--reuse-env]

Reads `agents/<variant>/` (`expected.json`, `requirements.txt` or `package.json`, and
the agent script), installs the framework in a throwaway environment under
/tmp/tsrec/<variant>, starts the scripted model and the OTLP capture server on
loopback, runs the agent once and writes `tests/conformance/recordings/<variant>/`
(`otlp/` request bodies and `truth.json`). Stdlib only: it runs before tracesim is
installed anywhere. CI never records; it replays.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from capture import CaptureServer  # noqa: E402
from model_server import ModelServer  # noqa: E402

RECORDINGS = HERE.parent / "recordings"
ENVS = Path(os.environ.get("TSREC_ENVS", "/tmp/tsrec"))


def _python_env(agent_dir: Path, env_dir: Path, *, reuse: bool) -> list[str]:
    """A venv with the agent's requirements; returns the command prefix to run Python."""
    python = env_dir / "bin" / "python"
    if not (reuse and python.exists()):
        shutil.rmtree(env_dir, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "-r", str(agent_dir / "requirements.txt")],
            check=True,
        )
    return [str(python)]


def _node_env(agent_dir: Path, env_dir: Path, *, reuse: bool) -> Path:
    """A copy of the agent folder with its npm packages installed; returns that folder."""
    if not (reuse and (env_dir / "node_modules").exists()):
        shutil.rmtree(env_dir, ignore_errors=True)
        shutil.copytree(agent_dir, env_dir)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=env_dir, check=True
        )
    else:
        for item in agent_dir.iterdir():
            if item.is_file():
                shutil.copy2(item, env_dir / item.name)
    return env_dir


def _python_versions(python: list[str], packages: list[str]) -> dict[str, str]:
    code = (
        "import json,sys\nfrom importlib.metadata import version\nout={}\n"
        "for p in sys.argv[1:]:\n    try: out[p]=version(p)\n    except Exception: out[p]='not installed'\n"
        "print(json.dumps(out))"
    )
    done = subprocess.run(
        [*python, "-c", code, *packages], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def _node_versions(env_dir: Path, packages: list[str]) -> dict[str, str]:
    out = {}
    for name in packages:
        manifest = env_dir / "node_modules" / name / "package.json"
        out[name] = (
            json.loads(manifest.read_text())["version"] if manifest.exists() else "not installed"
        )
    out["node"] = subprocess.run(
        ["node", "--version"], capture_output=True, text=True
    ).stdout.strip()
    return out


def record(variant: str, *, reuse: bool) -> Path:
    expected = json.loads((HERE / "agents" / variant / "expected.json").read_text())
    # Variants of one agent (telemetry modes chosen by `env`) share its script and environment.
    source = expected.get("agent_from") or variant
    agent_dir = HERE / "agents" / source
    env_dir = ENVS / source
    ENVS.mkdir(parents=True, exist_ok=True)
    language = expected.get("language", "python")
    if language == "python":
        python = _python_env(agent_dir, env_dir, reuse=reuse)
        command = [*python, *(expected.get("command") or ["agent.py"])]
        cwd = agent_dir
    else:
        cwd = _node_env(agent_dir, env_dir, reuse=reuse)
        command = expected.get("command") or ["node", "agent.mjs"]

    out = RECORDINGS / variant
    shutil.rmtree(out / "otlp", ignore_errors=True)
    model = ModelServer(scripts=expected.get("scripts")).start()
    capture = CaptureServer(out).start()
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-local-scripted",
        "OPENAI_BASE_URL": model.base_url,
        "OPENAI_API_BASE": model.base_url,
        "MODEL_BASE_URL": model.base_url,
        # provider SDKs (Anthropic, Gemini, Bedrock) talk to the same scripted model
        "MODEL_ROOT_URL": model.root_url,
        "ANTHROPIC_BASE_URL": model.root_url,
        "ANTHROPIC_API_KEY": "sk-ant-local-scripted",
        "GOOGLE_API_KEY": "local-scripted",
        "GOOGLE_GEMINI_BASE_URL": model.root_url,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": model.root_url,
        "OTEL_EXPORTER_OTLP_ENDPOINT": capture.endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_SERVICE_NAME": variant,
        "OTEL_METRICS_EXPORTER": "none",
        "TSREC_VARIANT": variant,
        **{k: str(v) for k, v in (expected.get("env") or {}).items()},
    }
    try:
        done = subprocess.run(command, cwd=cwd, env=env, timeout=600)
    finally:
        capture.stop()
        model.stop()
    if done.returncode != 0 and not expected.get("agent_may_fail"):
        raise SystemExit(f"record: the agent exited {done.returncode}; nothing kept as truth")

    packages = expected.get("packages") or []
    versions = (
        _python_versions(python, packages)
        if language == "python"
        else _node_versions(cwd, packages)
    )
    truth = {
        "variant": variant,
        "framework": expected["framework"],
        "language": language,
        "versions": versions,
        "recorded_with": f"python tests/conformance/record/record.py {variant}",
        "conversation_id": expected.get("conversation_id"),
        "tool_calls": expected["tool_calls"],
        **model.totals(),
        "notes": expected.get("notes", ""),
    }
    for key in ("expected_gaps", "expected_unexplained", "tokens_absent"):
        if key in expected:
            truth[key] = expected[key]
    if expected.get("tokens_absent"):
        truth["input_tokens"] = truth["output_tokens"] = None
    (out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(
        f"record: {variant}: {capture.received['traces']} trace and {capture.received['logs']} log "
        f"requests, {truth['model_calls']} model calls -> {out}"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--reuse-env", action="store_true", help="keep an existing environment")
    args = parser.parse_args()
    for variant in args.variants:
        record(variant, reuse=args.reuse_env)


if __name__ == "__main__":
    main()
