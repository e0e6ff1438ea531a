"""Interoperability test: the official MCP Python SDK's stdio client drives `remaind mcp`.

Run by `cargo xtask mcp-interop` (and `cargo xtask ci`), which installs the pinned SDK into
target/mcp-venv. Usage: client.py REMAIND_BINARY WORK_DIR

Covers both lifecycles of the SDK: the `initialize` handshake (2025-11-25) and the current
revision's `server/discover` (2026-07-28), and malformed requests the SDK cannot send (raw
frames on the server's stdin: each with an id must get a reply at that id). Prints a
cargo-style `test result:` line.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
import traceback
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

TOOLS = ["record", "search", "timeline", "get_events", "resume", "status", "monitor", "compact",
         "memory_tree", "memory_get", "memory_propose", "open_loops"]

passed = 0


def check(cond: bool, what: str) -> None:
    global passed
    if not cond:
        raise AssertionError(what)
    passed += 1
    print(f"ok   {what}", flush=True)


async def tool_ok(session: ClientSession, name: str, args: dict) -> dict:
    # call_tool validates structured content against the tool's output schema.
    result = await session.call_tool(name, args)
    text = result.content[0].text if result.content else ""
    check(not result.is_error, f"{name}({args}) succeeds: {text[:200]}")
    check(isinstance(result.structured_content, dict), f"{name} returns structured content")
    return result.structured_content


async def tool_err(session: ClientSession, name: str, args: dict, field: str) -> None:
    result = await session.call_tool(name, args)
    check(result.is_error, f"{name}({args}) is a tool error")
    text = result.content[0].text
    check(field in text, f"{name} error names `{field}`: {text}")


async def rpc_err(coro, what: str) -> None:
    try:
        await coro
    except MCPError as e:
        check(True, f"{what}: JSON-RPC error {e.error.code}: {e.error.message[:120]}")
        return
    raise AssertionError(f"{what}: expected a JSON-RPC error")


async def handshake_session(binary: str, ctx: Path) -> None:
    params = StdioServerParameters(command=binary, args=["--dir", str(ctx), "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "remaind", "initialize: server is remaind")
            check(init.protocol_version == "2025-11-25", f"initialize: {init.protocol_version}")
            check(bool(init.instructions) and "record" in init.instructions, "instructions")
            caps = init.capabilities
            check(caps.tools is not None and caps.resources is not None and caps.prompts is not None,
                  "capabilities: tools, resources, prompts")

            tools = (await session.list_tools()).tools
            check([t.name for t in tools] == TOOLS, f"tools/list: {[t.name for t in tools]}")
            for t in tools:
                check(t.input_schema.get("type") == "object", f"{t.name}: input schema is an object")
                check(isinstance(t.output_schema, dict) and t.output_schema.get("type") == "object",
                      f"{t.name}: output schema is an object")
                check(bool(t.description), f"{t.name}: has a description")
            record = next(t for t in tools if t.name == "record")
            check("kind" in record.input_schema.get("required", []), "record: `kind` is required")

            # record: every kind a model records, with links.
            user = subprocess.run([binary, "--dir", str(ctx), "log", "--kind", "user_message",
                                   "--actor", "user", "--text", "Ship the CSV importer"],
                                  check=True, capture_output=True, text=True).stdout.strip()
            check(user == "e1", "a hook-style `remaind log` before the session")
            d = await tool_ok(session, "record", {"kind": "decision",
                                                  "text": "Parse CSV with the csv crate", "refs": [user]})
            check(d["id"] == "e2" and d["kind"] == "decision", f"record decision: {d}")
            c = await tool_ok(session, "record", {"kind": "constraint", "text": "Never touch migrations/"})
            n = await tool_ok(session, "record", {"kind": "next_step", "text": "Write importer tests"})
            b = await tool_ok(session, "record", {"kind": "blocker", "text": "CI runner is down"})
            await tool_ok(session, "record", {"kind": "result", "text": "CI runner back",
                                              "resolves": [b["id"]]})
            await tool_ok(session, "record", {"kind": "correction",
                                              "text": "Never touch migrations/ or seeds/",
                                              "supersedes": [c["id"]]})
            await tool_ok(session, "record", {"kind": "remember", "text": "Always run cargo fmt"})
            await tool_ok(session, "record", {"kind": "note", "text": "Importer lives in src/import.rs"})
            await tool_ok(session, "record", {"kind": "file_change", "text": "src/import.rs created",
                                              "tool": {"name": "editor", "input": {"path": "src/import.rs"}}})
            s = await tool_ok(session, "record", {"kind": "note",
                                                  "text": "token is ghp_R8fK2qLx9mZ4vT7wB3nJc6HdP1sYaE5gUo0i"})
            check(s["redactions"] >= 1, f"record redacts a secret: {s}")
            await tool_err(session, "record", {"kind": "decison", "text": "x"}, "kind")
            await tool_err(session, "record", {"kind": "note", "text": "x", "importance": 9}, "importance")
            await tool_err(session, "record", {"kind": "correction", "text": "x"}, "supersedes")
            await tool_err(session, "record", {"kind": "note", "text": "x", "refs": ["e999"]}, "refs")
            await tool_err(session, "record", {"kind": "note", "colour": "red"}, "colour")

            # search → timeline → get_events
            hits = await tool_ok(session, "search", {"query": "csv crate"})
            check(hits["hits"][0]["id"] == d["id"], f"search finds the decision: {hits}")
            cur = await tool_ok(session, "search", {"query": "migrations", "current_only": True})
            check([h["id"] for h in cur["hits"]] != [c["id"]] and all(h["status"] == "current" for h in cur["hits"]),
                  "search current_only drops the superseded constraint")
            page = await tool_ok(session, "search", {"query": "importer OR csv OR ci", "limit": 1,
                                                     "kinds": ["decision", "note", "next_step", "result", "blocker"]})
            check(len(page["hits"]) <= 1, "search limit")
            old = await tool_ok(session, "search", {"query": "csv", "until": "2000-01-01"})
            check(old["hits"] == [], "search until 2000 finds nothing")
            await tool_err(session, "search", {"query": ""}, "query")
            await tool_err(session, "search", {"query": "x", "kinds": ["nope"]}, "kinds")
            await tool_err(session, "search", {"query": "x", "since": "yesterday"}, "since")
            await tool_err(session, "search", {"query": "x", "limit": 0}, "limit")
            tl = await tool_ok(session, "timeline", {"anchor": d["id"], "before": 1, "after": 1})
            check([e["id"] for e in tl["events"]] == ["e1", "e2", "e3"], f"timeline: {tl}")
            tl = await tool_ok(session, "timeline", {"query": "runner back", "before": 1, "after": 0})
            check(tl["events"][-1]["kind"] == "result", f"timeline by query: {tl}")
            await tool_err(session, "timeline", {"anchor": "e9999"}, "anchor")
            await tool_err(session, "timeline", {}, "anchor")
            ev = await tool_ok(session, "get_events", {"ids": [d["id"], "e9999"]})
            check(ev["events"][0]["text"] == "Parse CSV with the csv crate", "get_events by id")
            check(ev["missing"] == ["e9999"], "get_events reports missing ids")
            sl = await tool_ok(session, "get_events", {"from": 2, "limit": 3})
            check([e["seq"] for e in sl["events"]] == [2, 3, 4], "get_events slice from")
            sl = await tool_ok(session, "get_events", {"kinds": ["decision"], "limit": 5})
            check([e["kind"] for e in sl["events"]] == ["decision"], "get_events filtered by kind")
            await tool_err(session, "get_events", {"ids": ["e1"], "from": 1}, "ids")
            await tool_err(session, "get_events", {"ids": ["x1"]}, "ids")

            # lifecycle tools
            st = await tool_ok(session, "status", {})
            check(st["head_seq"] >= 11 and st["through_seq"] is None, f"status before compact: {st['head_seq']}")
            await tool_err(session, "status", {"verbose": True}, "verbose")
            mo = await tool_ok(session, "monitor", {"used": 190000, "window": 200000})
            check(mo["band"] != "normal" and mo["action"] != "none", f"monitor: {mo}")
            await tool_err(session, "monitor", {"used": 1, "window": 0}, "window")
            dry = await tool_ok(session, "compact", {"dry_run": True})
            check(dry["accepted"] and not dry["written"], f"compact dry run: {dry}")
            bad = await tool_ok(session, "compact", {"state": {"goal": "x"}, "handover": "# h\n"})
            check(not bad["accepted"] and bad["failures"], f"compact rejects a bad candidate: {bad['failures'][:1]}")
            await tool_err(session, "compact", {"state": {"goal": "x"}}, "handover")
            cp = await tool_ok(session, "compact", {})
            check(cp["accepted"] and cp["written"] and cp["event"], f"compact: {cp}")
            rs = await tool_ok(session, "resume", {"budget": 6000})
            check("Parse CSV with the csv crate" in rs["packet"], "resume packet holds the decision")
            check(isinstance(rs["gate"]["proceed"], bool), f"resume gate: {rs['gate']}")
            await tool_err(session, "resume", {"budget": 0}, "budget")
            await tool_err(session, "resume", {"budget": "lots"}, "budget")

            # memory and open loops
            pr = await tool_ok(session, "memory_propose", {"title": "CSV parsing", "text": "Parse CSV with the csv crate, never by hand."})
            check(pr["status"] == "proposed" and pr["id"].startswith("csv-parsing--"), f"memory_propose: {pr}")
            await tool_err(session, "memory_propose", {"title": "", "text": "x"}, "title")
            await tool_err(session, "memory_propose", {"title": "T", "text": "x", "cites": ["nine"]}, "cites")
            await tool_err(session, "memory_propose", {"title": "T", "text": "x", "cites": ["e9999"]}, "cites")
            pc = await tool_ok(session, "memory_propose", {"title": "CSV crate", "text": "Use the csv crate.", "cites": [d["id"]]})
            check(pc["status"] == "proposed", f"memory_propose with cites: {pc['id']}")
            tr = await tool_ok(session, "memory_tree", {"budget": 2000})
            check(isinstance(tr["nodes"], list) and tr["tokens"] <= 2000, f"memory_tree: {len(tr['nodes'])} nodes")
            await tool_err(session, "memory_tree", {"budget": 0}, "budget")
            tq = await tool_ok(session, "memory_tree", {"budget": 2000, "query": "ACCEPTED memories"})
            check(len(tq["nodes"]) >= 1 and all(n["temperature"] == 0 for n in tq["nodes"]),
                  f"memory_tree query: {len(tq['nodes'])} nodes")
            tq2 = await tool_ok(session, "memory_tree", {"budget": 2000, "query": "accepted memories"})
            check(tq2["nodes"][0]["temperature"] > 0.9, "memory_tree: a match warms the node")
            await tool_err(session, "memory_tree", {"query": "  "}, "query")
            if tr["nodes"]:
                node = await tool_ok(session, "memory_get", {"id": tr["nodes"][0]["id"]})
                check(node["text"] != "", f"memory_get: {node['node_type']}")
            await tool_err(session, "memory_get", {"id": "000000000000"}, "000000000000")
            lo = await tool_ok(session, "open_loops", {})
            check(isinstance(lo["loops"], list), f"open_loops: {len(lo['loops'])}")
            await tool_err(session, "open_loops", {"limit": 0}, "limit")

            # resources
            listed = (await session.list_resources()).resources
            uris = sorted(str(r.uri) for r in listed)
            check(uris == ["remaind://handover", "remaind://resume-packet", "remaind://state"],
                  f"resources/list: {uris}")
            templates = (await session.list_resource_templates()).resource_templates
            check([t.uri_template for t in templates] == ["remaind://events/{id}"], "resource templates")
            for uri, needle in [("remaind://handover", f"[{d['id']}]"), ("remaind://state", d["id"]),
                                ("remaind://resume-packet", "Parse CSV"), (f"remaind://events/{d['id']}", "csv crate")]:
                contents = (await session.read_resource(uri)).contents
                check(needle in contents[0].text, f"read {uri}")
            await rpc_err(session.read_resource("remaind://events/e9999"), "read a missing event")
            await rpc_err(session.read_resource("remaind://nothing"), "read an unknown resource")

            # prompt
            prompts = (await session.list_prompts()).prompts
            check([p.name for p in prompts] == ["remaind-usage"], "prompts/list")
            prompt = await session.get_prompt("remaind-usage")
            check("supersedes" in prompt.messages[0].content.text, "prompts/get")
            await rpc_err(session.get_prompt("nope"), "get an unknown prompt")
            await rpc_err(session.call_tool("no_such_tool", {}), "call an unknown tool")


async def discover_session(binary: str, ctx: Path) -> None:
    """The current revision (2026-07-28): no handshake, per-request metadata."""
    params = StdioServerParameters(command=binary, args=["--dir", str(ctx), "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            found = await session.discover()
            check("2026-07-28" in found.supported_versions, f"discover: {found.supported_versions}")
            tools = (await session.list_tools()).tools
            check(len(tools) == len(TOOLS), "tools/list on 2026-07-28")
            r = await tool_ok(session, "record", {"kind": "note", "text": "recorded on 2026-07-28"})
            hits = await tool_ok(session, "search", {"query": "recorded 2026"})
            check(hits["hits"][0]["id"] == r["id"], "search on 2026-07-28")
            await tool_err(session, "record", {"kind": "nope"}, "kind")


class RawServer:
    """`remaind mcp` on raw pipes: frames the SDK would never send, replies read with a deadline."""

    def __init__(self, binary: str, ctx: Path) -> None:
        self.proc = subprocess.Popen([binary, "--dir", str(ctx), "mcp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, frame: bytes) -> None:
        self.proc.stdin.write(frame + b"\n")
        self.proc.stdin.flush()

    def reply_to(self, rid, deadline: float = 10.0) -> dict:
        end = time.monotonic() + deadline
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("id") == rid:
                    return msg
            left = end - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                raise AssertionError(f"no reply to id {rid!r} within {deadline}s")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise AssertionError(f"the server closed stdout before answering id {rid!r}")
            self.buf += chunk

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def malformed_session(binary: str, ctx: Path) -> None:
    """Every request with an id gets a JSON-RPC reply, whatever its bytes; the session goes on."""
    srv = RawServer(binary, ctx)
    try:
        srv.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "interop-raw", "version": "0"}}}).encode())
        check(srv.reply_to(0)["result"]["serverInfo"]["name"] == "remaind", "raw: initialize")
        srv.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        deep = ('{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"record",'
                '"arguments":{"kind":"note","text":"x","data":{"d":' + "[" * 200 + "1" + "]" * 200 + "}}}}")
        cases = [
            ("nesting 200 deep", deep.encode(), 101, -32700),
            ("a lone surrogate", b'{"jsonrpc":"2.0","id":"s-102","method":"tools/call","params":'
                                 b'{"name":"record","arguments":{"kind":"note","text":"half \\ud83d"}}}',
             "s-102", -32700),
            ("1e999", b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"record","arguments":'
                      b'{"kind":"note","text":"x","data":{"n":1e999}}},"id":103}', 103, -32700),
            ("a frame over 16 MiB", b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"record",'
                                    b'"arguments":{"kind":"note","text":"' + b"x" * (17 << 20) +
                                    b'"}},"id":104}', 104, -32600),
            ("JSON that is not JSON-RPC", b'{"id":105,"params":[]}', 105, -32600),
        ]
        for what, frame, rid, code in cases:
            srv.send(frame)
            reply = srv.reply_to(rid)
            err = reply.get("error") or {}
            check(err.get("code") == code, f"raw: {what} gets error {code} at id {rid!r}: "
                                           f"{str(err.get('message'))[:100]}")
            srv.send(b'{"jsonrpc":"2.0","id":"ping","method":"ping"}')
            check("result" in srv.reply_to("ping"), f"raw: the session goes on after {what}")
        srv.send(b'{"jsonrpc":"2.0","id":106,"method":"tools/call","params":{"name":"record",'
                 b'"arguments":{"kind":"note","kind":"remember","text":"x"}}}')
        result = srv.reply_to(106)["result"]
        text = result["content"][0]["text"]
        check(result.get("isError") is True and "`kind` appears twice" in text,
              f"raw: a repeated argument key is a tool error: {text}")
    finally:
        srv.close()


async def main(binary: str, work: Path) -> None:
    ctx = work / ".context"
    subprocess.run([binary, "--dir", str(ctx), "init"], check=True, capture_output=True)
    await handshake_session(binary, ctx)
    await discover_session(binary, ctx)
    malformed_session(binary, ctx)
    verify = subprocess.run([binary, "--dir", str(ctx), "verify"], capture_output=True, text=True)
    check(verify.returncode == 0, f"remaind verify after both sessions: {verify.stdout.strip()}")


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv[1], Path(sys.argv[2]))
    except BaseException:
        traceback.print_exc()
        print(f"test result: FAILED. {passed} passed; 1 failed; 0 ignored", flush=True)
        sys.exit(1)
    print(f"test result: ok. {passed} passed; 0 failed; 0 ignored", flush=True)
