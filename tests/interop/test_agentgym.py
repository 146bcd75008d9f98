"""AgentGym's environment-server API both ways: the ``agentgym:`` client against a mock written from
AgentGym's server code, and ``envs serve`` <-> client round trips equal to in-process runs."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import ToolCall
from robustcall.envs import AGENTGYM_FAMILIES, ActionCodec, AgentGymEnv, MazeEnv, TextCraftEnv, make_env
from robustcall.faults import FaultyEnv, load_profile
from robustcall.interface import MAPS, InterfaceEnv

uvicorn = pytest.importorskip("uvicorn", reason="the web extra (uvicorn, starlette) serves the environments")


def test_codec_reads_back_what_it_writes() -> None:
    craft = ActionCodec(AGENTGYM_FAMILIES["textcraft"], TextCraftEnv().tools())
    calls = [
        ToolCall(name="get", arguments={"count": 4, "item": "oak log"}),
        ToolCall(name="craft", arguments={"target": "4 oak planks", "ingredients": "1 oak log"}),
        ToolCall(name="inventory", arguments={}),
    ]
    texts = [craft.text(c) for c in calls]
    assert texts == ["get 4 oak log", "craft 4 oak planks using 1 oak log", "inventory"]  # AgentGym's TextCraft
    assert [craft.call(t) for t in texts] == calls
    maze = ActionCodec(AGENTGYM_FAMILIES["maze"], MazeEnv().tools())
    assert maze.text(ToolCall(name="move_up", arguments={})) == "move up"  # LMRL-Gym's maze actions
    assert maze.call("move left") == ToolCall(name="move_left", arguments={}) and maze.call("fly") is None


class _TextCraftMock(BaseHTTPRequestHandler):
    """AgentGym's agentenv_textcraft server (server.py + env_wrapper.py): routes and bodies as there;
    the game is a stub that crafts the goal from one oak log."""

    seen: ClassVar[list[tuple[str, Any]]] = []

    def _send(self, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        type(self).seen.append(("GET " + self.path, None))
        self._send("This is environment TextCraft.")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        type(self).seen.append(("POST " + self.path, body))
        if self.path == "/create":
            self._send({"id": 0, "observation": "Crafting commands:\n...", "done": False, "reward": 0})
        elif self.path == "/reset":
            recipes = "craft 4 oak planks using 1 oak log"
            ob = f"Crafting commands:\n{recipes}\n\nGoal: craft oak planks. (task {body['data_idx']})"
            self._send({"id": body["id"], "observation": ob, "done": False, "reward": 0})
        elif self.path == "/step":
            action = body["action"]
            if action == "get 1 oak log":
                self._send({"observation": "Got 1 oak log", "reward": 0, "done": False})
            elif action == "craft 4 oak planks using 1 oak log":
                self._send({"observation": "Crafted 4 minecraft:oak_planks", "reward": 1, "done": True})
            else:
                self._send({"observation": f"Could not execute {action}", "reward": 0, "done": False})
        else:
            self._send({"error": "not found"})

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def textcraft_mock() -> Iterator[str]:
    _TextCraftMock.seen.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TextCraftMock)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_client_speaks_agentgym_textcraft_under_pipe_and_faults(textcraft_mock: str) -> None:
    env = InterfaceEnv(AgentGymEnv("textcraft", textcraft_mock), MAPS["textcraft"], "synonym")
    start = env.reset("3")
    assert "task 3" in start.instruction and start.observation == ""  # the one reset text, shown once
    shown = dict(MAPS["textcraft"].synonyms)
    step = env.step(ToolCall(name=shown["get"], arguments={"count": 1, "item": "oak log"}))
    assert step.observation == "Got 1 oak log" and not step.done
    legacy = env.step(ToolCall(name="get", arguments={"count": 1, "item": "oak log"}))  # strict mode
    assert legacy.observation.startswith("Invalid Action: get .") and legacy.error
    done = env.step(ToolCall(name=shown["craft"], arguments={"target": "4 oak planks", "ingredients": "1 oak log"}))
    assert done.done and env.score() == 1.0
    assert _TextCraftMock.seen == [
        ("GET /", None),
        ("POST /create", {}),
        ("POST /reset", {"id": 0, "data_idx": 3}),
        ("POST /step", {"id": 0, "action": "get 1 oak log"}),  # translated back before the server sees it
        ("POST /step", {"id": 0, "action": "craft 4 oak planks using 1 oak log"}),
    ]
    faulty = FaultyEnv(AgentGymEnv("textcraft", textcraft_mock), load_profile("transient").with_delta(1.0))
    faulty.reset("0")
    before = len(_TextCraftMock.seen)
    hit = faulty.step(ToolCall(name="get", arguments={"count": 1, "item": "oak log"}))
    assert hit.observation.startswith("HTTP 500")  # the injected fault, not the server's answer
    assert [s for s, _ in _TextCraftMock.seen[before:]] == []  # a failed call never reached the server


def test_unreachable_server_is_one_line_and_exit_3(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        app,
        [
            "pipe",
            "run",
            "--env",
            "agentgym:maze@http://127.0.0.1:9",
            "--model",
            "scripted:expert",
            "--out",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 3, r.output
    assert "AgentGym server http://127.0.0.1:9/" in r.output and "Traceback" not in r.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start ``envs serve``'s app for an environment in a thread; stops at the end of the test."""
    from robustcall.interop import agentgym_app

    servers: list[Any] = []

    def start(make: Any, family: str, interface: str = "origin") -> str:
        port = _free_port()
        server = uvicorn.Server(
            uvicorn.Config(agentgym_app(make, family, interface), host="127.0.0.1", port=port, log_level="error")
        )
        threading.Thread(target=server.run, daemon=True).start()
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        servers.append(server)
        return f"http://127.0.0.1:{port}"

    yield start
    for server in servers:
        server.should_exit = True


def _trajectories(out: Path, spec: str = "") -> str:
    """The run's trajectories. For an ``agentgym:`` run, ``spec`` (which episode ids and the config
    record, with the interface map a non-registered environment name gets) is written back as the
    in-process name and the map dropped: every other byte must be identical."""
    text = (out / "trajectories.jsonl").read_text()
    if not spec:
        return text
    lines = []
    for line in text.splitlines():
        record = json.loads(line.replace(spec, spec.removeprefix("agentgym:").partition("@")[0]))
        record["config"].pop("interface_map", None)
        lines.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
    return "".join(lines)


@pytest.mark.parametrize("level", ["origin", "synonym", "dual"])
def test_round_trip_is_byte_identical_to_in_process(serve: Any, tmp_path: Path, level: str) -> None:
    url = serve(MazeEnv, "maze")
    runner = CliRunner()
    common = ["--level", level, "--model", "scripted:expert", "--max-steps", "60"]
    local = runner.invoke(app, ["pipe", "run", "--env", "maze", *common, "--out", str(tmp_path / "local")])
    remote = runner.invoke(
        app, ["pipe", "run", "--env", f"agentgym:maze@{url}", *common, "--out", str(tmp_path / "ag")]
    )
    assert local.exit_code == 0 and remote.exit_code == 0, local.output + remote.output
    assert _trajectories(tmp_path / "ag", f"agentgym:maze@{url}") == _trajectories(tmp_path / "local", "maze")
    lines = [json.loads(x) for x in _trajectories(tmp_path / "ag").splitlines()]
    orders = 2 if level == "dual" else 1  # dual runs both counterbalanced orders
    assert len(lines) == orders * len(MazeEnv().task_ids())
    assert all(x["success"] for x in lines)  # the expert solves every task


def test_fault_run_through_the_server_is_byte_identical(serve: Any, tmp_path: Path) -> None:
    url = serve(TextCraftEnv, "textcraft")
    runner = CliRunner()
    common = ["--model", "scripted:expert", "--limit", "4", "--max-steps", "40", "--delta", "0.3"]
    local = runner.invoke(app, ["faults", "run", "--env", "textcraft", *common, "--out", str(tmp_path / "local")])
    remote = runner.invoke(
        app, ["faults", "run", "--env", f"agentgym:textcraft@{url}", *common, "--out", str(tmp_path / "ag")]
    )
    assert local.exit_code == 0 and remote.exit_code == 0, local.output + remote.output
    assert _trajectories(tmp_path / "ag", f"agentgym:textcraft@{url}") == _trajectories(tmp_path / "local", "textcraft")


def test_served_pipe_level_and_faults_reach_an_agentgym_client(serve: Any, tmp_path: Path) -> None:
    """``envs serve --level symbol``: a plain AgentGym client sees z1..z4 and the expert still solves it."""
    url = serve(lambda: InterfaceEnv(make_env("maze"), MAPS["maze"], "symbol"), "maze", "symbol")
    client = AgentGymEnv("maze", url)
    assert client.name == "maze[symbol]"  # renamed server-side: not the family's map any more
    start = client.reset(client.task_ids()[0])
    assert sorted(t.name for t in start.tools) == ["z1", "z2", "z3", "z4"]
    legacy = client.step(ToolCall(name="move_up", arguments={}))
    assert legacy.error and legacy.observation.startswith("Invalid Action: move_up . Use z")
    for _ in range(60):
        action = client.expert_action()
        if action is None:
            break
        client.step(action)
    assert client.score() == 1.0


@pytest.mark.parametrize("policy", ["expert", "random"])
def test_scripted_policies_refuse_agentgyms_own_server_in_one_line(
    textcraft_mock: str, tmp_path: Path, policy: str
) -> None:
    """They play the expert actions only robustcall's server sends; on AgentGym's they played one
    "Done." per task (0/5, exit 0)."""
    spec = f"agentgym:textcraft@{textcraft_mock}"
    r = CliRunner().invoke(app, ["pipe", "run", "--env", spec, "--model", f"scripted:{policy}", "--limit", "5",
                                 "--out", str(tmp_path / policy)])  # fmt: skip
    assert r.exit_code == 1, r.output
    assert "AgentGym's own server sends no expert actions" in r.output and "Traceback" not in r.output
    assert len([x for x in r.output.splitlines() if x.strip()]) <= 3  # one message (wrapped at 80 columns)


# AgentGym's clients (agentenv/agentenv/envs/textcraft.py TextCraftEnvClient, lmrlgym.py MazeEnvClient and
# WordleEnvClient), their requests re-done here as they send them: `requests.post(base/path, json=data)`
# with `data["id"] = env_id`, `requests.get(base/path?id=env_id)`, `assert res.status_code == 200`.


def _http(method: str, url: str, data: dict[str, Any] | None = None, *, body: bool = True) -> Any:
    import urllib.request

    raw = json.dumps(data).encode() if body else None
    headers = {"Content-Type": "application/json"} if body else {}
    req = urllib.request.Request(url, data=raw, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 200
        return json.loads(resp.read())


class _AgentGymClient:
    """The calls one AgentGym env client makes, on one server-side environment."""

    def __init__(self, base: str, create_body: dict[str, Any] | None) -> None:
        self.base = base
        ok = _http("POST", f"{base}/create", create_body, body=create_body is not None)
        self.env_id = ok["id"]
        self.reward = 0.0

    def post(self, path: str, data: dict[str, Any]) -> Any:
        data["id"] = self.env_id
        return _http("POST", f"{self.base}/{path}", data)

    def get(self, path: str) -> Any:
        return _http("GET", f"{self.base}/{path}?id={self.env_id}", body=False)

    def step(self, action: str) -> dict[str, Any]:
        response = self.post("step", {"action": action})
        if "error" not in response:
            self.reward += response["reward"]  # the LMRL-Gym clients sum the step rewards
        return dict(response)


def _model_says(action: str) -> str:
    """A model's answer in the clients' requested form (what their `step` receives)."""
    return f"Thought:\nI will do it.\n\nAction:\n{action}"


def test_agentgym_textcraft_client_plays_envs_serve(serve: Any) -> None:
    """TextCraftEnvClient: create (its dir_info body), reset, step with its action clean-up, close."""
    base = serve(TextCraftEnv, "textcraft")
    client = _AgentGymClient(base, {"minecraft_dir": "agentenv_textcraft/", "commands": None, "goal": None})
    assert isinstance(client.env_id, int)
    for idx in (0, 3):
        start = client.post("reset", {"data_idx": idx})
        assert "Goal" in start["observation"] or start["observation"]
        expert = start["robustcall"]["expert"]
        for _ in range(60):
            said = _model_says(expert)
            action = re.findall(r"Action:\s*(.*?)(?=\n|$)", said, re.DOTALL)[-1]  # TextCraftEnvClient.step
            action = " ".join(re.sub(r"[^A-Za-z0-9, ]+", "", action).split()).strip()
            response = client.step(action)
            assert set(response) >= {"observation", "reward", "done"}
            if response["done"]:
                break
            expert = response["robustcall"]["expert"]
        assert response["done"] and response["reward"] == 1.0  # solved through AgentGym's own calls
    assert client.post("close", {}) == {"id": client.env_id, "closed": True}  # TextCraftEnvClient.close
    assert client.step("inventory") == {"error": f"The task with environment {client.env_id} has been deleted."}
    again = _AgentGymClient(base, {"minecraft_dir": "agentenv_textcraft/", "commands": None, "goal": None})
    assert again.env_id == client.env_id + 1  # ids stay unique after a close
    assert _http("POST", f"{base}/close", {"id": client.env_id}) == {
        "error": f"The task with environment {client.env_id} has been deleted."
    }


def test_agentgym_maze_client_plays_envs_serve(serve: Any) -> None:
    """MazeEnvClient: create with no body, reset {"game"}, steps `move <dir>`, rewards summed; and the
    LMRL-Gym server's `GET /maze/available_actions`."""
    base = serve(MazeEnv, "maze") + "/maze"
    assert sorted(_http("GET", f"{base}/available_actions", body=False)) == [
        "move down", "move left", "move right", "move up"
    ]  # fmt: skip
    client = _AgentGymClient(base, None)
    start = client.post("reset", {"game": 2})
    assert "Reach the exit at row" in start["observation"]  # the goal: the client shows only this text
    expert = start["robustcall"]["expert"]
    for _ in range(60):
        action = _model_says(expert).split("Action:")[1].strip()  # MazeEnvClient.step
        response = client.step(action)
        assert "error" not in response
        if response["done"]:
            break
        expert = response["robustcall"]["expert"]
    assert response["done"] and client.reward == 1.0


def test_agentgym_wordle_client_plays_envs_serve(serve: Any, tmp_path: Path) -> None:
    """WordleEnvClient: create, `GET /wordle/filtered_vocab` in its constructor, reset {"seed"},
    guesses as spaced letters (it turns a bare `crane` into `c r a n e`)."""
    from robustcall.envs import WordleEnv

    words = ["crane", "shire", "plumb", "frown", "tiger", "zebra"]
    (tmp_path / "answers.txt").write_text("\n".join(words) + "\n")
    (tmp_path / "guesses.txt").write_text("adieu\nsoare\n")
    base = serve(lambda: WordleEnv(tmp_path / "answers.txt", tmp_path / "guesses.txt"), "wordle") + "/wordle"
    client = _AgentGymClient(base, None)
    vocab = client.get("filtered_vocab")
    assert vocab == sorted(words)  # the short list, which the client puts into its prompt (not every guess)
    for seed in range(len(words)):
        client.reward = 0.0
        start = client.post("reset", {"seed": seed})
        expert = start["robustcall"]["expert"]
        assert re.fullmatch(r"[a-z]( [a-z]){4}", expert)  # LMRL-Gym's spelling of a guess
        for turn in range(6):
            action = _model_says(expert.replace(" ", "") if turn % 2 else expert).split("Action:")[1].strip()
            if len(action) == 5 and action.isalpha():  # WordleEnvClient.step's clean-up
                action = " ".join(action)
            response = client.step(action)
            assert "error" not in response and "not a valid" not in response["observation"]
            if response["done"]:
                break
            expert = response["robustcall"]["expert"]
        assert response["done"] and client.reward == 1.0


def test_the_first_user_turn_holds_agentgyms_reset_text_once(textcraft_mock: str, tmp_path: Path) -> None:
    """AgentGym's TextCraft answers `/reset` with one `observation` (commands and goal), no
    `task_description`: the agent's first turn shows it once (it was the instruction and the observation)."""
    spec = f"agentgym:textcraft@{textcraft_mock}"
    r = CliRunner().invoke(app, ["pipe", "run", "--env", spec, "--model", "scripted:never_call", "--limit", "2",
                                 "--out", str(tmp_path)])  # fmt: skip
    assert r.exit_code == 0, r.output
    for n, line in enumerate((tmp_path / "trajectories.jsonl").read_text().splitlines()):
        first = next(m["content"] for m in json.loads(line)["messages"] if m["role"] == "user")
        assert first == f"Crafting commands:\ncraft 4 oak planks using 1 oak log\n\nGoal: craft oak planks. (task {n})"


def test_agentgym_babyai_and_sciworld_clients_read_what_they_need(serve: Any) -> None:
    """BabyAIEnvClient reads `reward`, `score` and `done` of `/reset` and `/step` (score: the reward, as
    AgentGym's BabyAI server sends it); SciworldEnvClient shows `task_description` + `observation` and
    reads `score` (0-100)."""
    pytest.importorskip("minigrid", reason="the babyai extra")
    base = serve(lambda: make_env("babyai"), "babyai")
    client = _AgentGymClient(base, None)
    start = client.post("reset", {"data_idx": 0})
    assert {"observation", "reward", "score", "done"} <= set(start)
    assert "You see:" in start["observation"] and start["task_description"] in start["observation"]
    expert = start["robustcall"]["expert"]
    for _ in range(80):
        response = client.step(_model_says(expert).split("Action:")[1].strip())  # BabyAIEnvClient.step
        assert {"observation", "reward", "score", "done"} <= set(response)
        if response["done"]:
            break
        expert = response["robustcall"]["expert"]
    assert response["done"] and 0 < response["score"] == response["reward"] <= 1  # solved, minigrid's reward

    base = serve(lambda: make_env("sciworld"), "sciworld")
    client = _AgentGymClient(base, None)
    start = client.post("reset", {"data_idx": 0})
    shown = start["task_description"] + "\n" + start["observation"]  # SciworldEnvClient.reset
    assert "ScienceWorld" in shown and "This room is called" in shown
    response = client.step(_model_says("look around").split("Action:")[1].strip())
    assert {"observation", "reward", "score", "done"} <= set(response)
    assert response["score"] == 100 * response["reward"]
