import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkConversation } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  parseSessions,
  readSessions,
  resolveDataDir,
  SessionFormatError,
  splitSession,
  splitTurns,
} from "../src/index.js";

const miniSwe = {
  trajectory_format: "mini-swe-agent-1",
  instance_id: "demo__demo-1",
  info: { exit_status: "Submitted", config: { model: { model_name: "m" } } },
  messages: [
    { role: "system", content: "You are a shell agent." },
    { role: "user", content: "<pr_description>Fix foo</pr_description>" },
    {
      role: "assistant",
      content: "THOUGHT: look around.\n\n```bash\nls -la\n```",
      extra: { response: { usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, completion_tokens_details: { reasoning_tokens: 7 } } } },
    },
    { role: "user", content: "<returncode>0</returncode>\n<output>\nfoo.py\n</output>" },
    { role: "assistant", content: "THOUGHT: two actions\n```bash\nls\n```\n```bash\npwd\n```", extra: {} },
    { role: "user", content: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions." },
    { role: "assistant", content: "THOUGHT: done.\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```", extra: { response: { usage: { prompt_tokens: 300, completion_tokens: 5 } } } },
    { role: "user", content: "diff --git a/foo.py b/foo.py" },
  ],
};

describe("mini-swe-agent converter", () => {
  const [session] = parseSessions(JSON.stringify(miniSwe), { path: "demo.traj.json" });
  it("turns bash blocks into tool calls and the next user message into the tool result", () => {
    expect(session!.format).toBe("mini-swe-agent");
    expect(session!.id).toBe("demo__demo-1");
    const m = session!.messages;
    expect(m[2]).toMatchObject({ role: "assistant", content: "THOUGHT: look around." });
    const call = (m[2] as { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> }).tool_calls[0]!;
    expect(call.function.name).toBe("bash");
    expect(JSON.parse(call.function.arguments)).toEqual({ command: "ls -la" });
    expect(m[3]).toEqual({ role: "tool", tool_call_id: call.id, content: miniSwe.messages[3]!.content });
    expect(checkConversation(m)).toEqual([]);
  });
  it("keeps a format error as plain assistant text plus a user reply", () => {
    expect(session!.messages[4]).toEqual({ role: "assistant", content: miniSwe.messages[4]!.content });
    expect(session!.messages[5]!.role).toBe("user");
  });
  it("turns the final submission into the last tool result", () => {
    expect(session!.messages.at(-1)).toMatchObject({ role: "tool", content: "diff --git a/foo.py b/foo.py" });
  });
  it("records usage per assistant message, null where there is none", () => {
    expect(session!.usage).toEqual([
      { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, reasoning_tokens: 7 },
      null,
      { prompt_tokens: 300, completion_tokens: 5, total_tokens: 305 },
    ]);
    expect(session!.tools?.[0]).toMatchObject({ type: "function", function: { name: "bash" } });
  });
});

describe("SWE-agent converter", () => {
  const traj = {
    environment: "main",
    trajectory: [],
    info: { exit_status: "submitted" },
    history: [
      { role: "system", content: "sys", agent: "main", message_type: "system_prompt" },
      { role: "user", content: "issue", agent: "main", message_type: "observation" },
      { role: "assistant", content: "run it", thought: "run it", action: "ls", agent: "main", message_type: "action",
        tool_calls: [{ id: "call_a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
      { role: "tool", content: [{ type: "text", text: "out" }], agent: "main", message_type: "observation", tool_call_ids: ["call_a"] },
      { role: "assistant", content: "again", agent: "main", message_type: "action",
        tool_calls: [{ id: "call_a", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } }] },
      { role: "tool", content: "/testbed", agent: "main", message_type: "observation", tool_call_ids: ["call_a"] },
    ],
  };
  const [session] = parseSessions(JSON.stringify(traj), { path: "x.traj" });
  it("maps tool_call_ids to tool_call_id and drops SWE-agent keys", () => {
    expect(session!.format).toBe("swe-agent");
    expect(session!.messages[3]).toEqual({ role: "tool", tool_call_id: "call_a", content: [{ type: "text", text: "out" }] });
    expect(session!.messages[2]).not.toHaveProperty("thought");
    expect(checkConversation(session!.messages)).toEqual([]);
  });
  it("renames a reused call id together with its result and says so", () => {
    const second = session!.messages[4] as { tool_calls: Array<{ id: string }> };
    expect(second.tool_calls[0]!.id).toBe("call_a~2");
    expect(session!.messages[5]).toMatchObject({ tool_call_id: "call_a~2" });
    expect(session!.repairs).toHaveLength(1);
  });
  it("infers tool schemas from the calls", () => {
    expect(session!.tools).toEqual([
      expect.objectContaining({ function: expect.objectContaining({ name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }) }),
    ]);
  });
});

describe("OpenHands converter", () => {
  const sample = [
    {
      instance_id: "proj__proj-1_0", run_id: "r", resolved: true, test_result: {},
      tools: [{ type: "function", function: { name: "execute_bash", parameters: { type: "object" } } }],
      messages: [
        { role: "system", content: "sys", tool_calls: null, tool_call_id: null, name: null, function_call: null },
        { role: "user", content: "task", tool_calls: null, tool_call_id: null, name: null, function_call: null },
        { role: "assistant", content: null, tool_call_id: null, name: null, function_call: null,
          tool_calls: [
            { id: "c1", type: "function", index: null, function: { name: "execute_bash", arguments: "{\"command\":\"ls\"}" } },
            { id: "c2", type: "function", index: null, function: { name: "execute_bash", arguments: "{\"command\":\"pwd\"}" } },
          ] },
        { role: "tool", content: "OBSERVATION:\na", tool_call_id: "c1", name: "execute_bash", tool_calls: null, function_call: null },
        { role: "tool", content: "OBSERVATION:\nb", tool_call_id: "c2", name: "execute_bash", tool_calls: null, function_call: null },
      ],
    },
  ];
  it("drops nulls and keeps parallel calls and tools", () => {
    const [s] = parseSessions(JSON.stringify(sample));
    expect(s!.format).toBe("openhands");
    expect(s!.messages[0]).toEqual({ role: "system", content: "sys" });
    expect(s!.messages[2]).toEqual({
      role: "assistant",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "execute_bash", arguments: "{\"command\":\"ls\"}" } },
        { id: "c2", type: "function", function: { name: "execute_bash", arguments: "{\"command\":\"pwd\"}" } },
      ],
    });
    expect(s!.tools).toEqual(sample[0]!.tools);
    expect(s!.meta).toMatchObject({ resolved: true, runId: "r" });
    expect(checkConversation(s!.messages)).toEqual([]);
  });
});

describe("tau-bench converter", () => {
  it("keeps traj and names the run", () => {
    const runs = [{ task_id: 4, trial: 2, reward: 1, info: { task: { user_id: "u" } }, traj: [
      { role: "system", content: "policy" },
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "k", type: "function", function: { name: "get_user_details", arguments: "{\"user_id\":\"u\"}" } }] },
      { role: "tool", tool_call_id: "k", name: "get_user_details", content: "{}" },
    ] }];
    const [s] = parseSessions(JSON.stringify(runs));
    expect(s!.id).toBe("task-4-trial-2");
    expect(s!.messages).toEqual(runs[0]!.traj);
    expect(s!.meta).toMatchObject({ reward: 1, taskId: 4, trial: 2 });
  });
});

describe("LoCoMo converter", () => {
  it("alternates speakers as user/assistant with names and dia_id metadata", () => {
    const data = [{ sample_id: "conv-x", qa: [{ question: "q?", answer: "a", evidence: ["D1:2"], category: 4 }],
      conversation: { speaker_a: "Ann", speaker_b: "Bo Li",
        session_2_date_time: "2 pm on 2 May, 2023", session_2: [{ speaker: "Ann", dia_id: "D2:1", text: "later" }],
        session_1_date_time: "1 pm on 1 May, 2023",
        session_1: [
          { speaker: "Ann", dia_id: "D1:1", text: "hi" },
          { speaker: "Bo Li", dia_id: "D1:2", text: "look", img_url: ["http://x"], blip_caption: "a photo of a cat" },
        ] } }];
    const [s] = parseSessions(JSON.stringify(data));
    expect(s!.format).toBe("locomo");
    expect(s!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(s!.messages[1]).toMatchObject({ name: "Bo_Li", content: "look\n[shares a photo of a cat]",
      metadata: { dia_id: "D1:2", session: 1, date_time: "1 pm on 1 May, 2023", speaker: "Bo Li", img_url: ["http://x"] } });
    expect(s!.messages[2]).toMatchObject({ metadata: { dia_id: "D2:1", session: 2 } });
    expect(s!.meta).toMatchObject({ speakers: { user: "Ann", assistant: "Bo Li" } });
    expect((s!.meta!.qa as unknown[]).length).toBe(1);
  });
});

describe("OpenAI JSONL", () => {
  const msgs = [
    { role: "system", content: "s" },
    { role: "user", content: "u" },
    { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "a", content: "r" },
    { role: "assistant", content: "done" },
  ];
  it("reads one message per line", () => {
    const [s] = parseSessions(msgs.map((m) => JSON.stringify(m)).join("\n") + "\n", { path: "/x/chat.jsonl" });
    expect(s!.id).toBe("chat");
    expect(s!.messages).toEqual(msgs);
  });
  it("reads one session per line, with usage", () => {
    const lines = [
      JSON.stringify({ id: "one", messages: msgs, usage: [null, { prompt_tokens: 9, completion_tokens: 1 }] }),
      JSON.stringify({ messages: msgs.slice(0, 2) }),
    ].join("\n");
    const sessions = parseSessions(lines, { path: "s.jsonl" });
    expect(sessions.map((s) => s.id)).toEqual(["one", "s#2"]);
    expect(sessions[0]!.usage).toEqual([null, { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 }]);
  });
  it("reads a single-line JSONL file of one message", () => {
    const [s] = parseSessions(JSON.stringify(msgs[1]), { path: "one.jsonl" });
    expect(s!.messages).toEqual([msgs[1]]);
  });
  it("reads a context-engine chat transcript (session header, then message lines)", () => {
    const header = { type: "session", id: "9d9a-chat", startedAt: "2026-01-01T00:00:00Z", model: "gpt-x", engine: "lcm", cwd: "/w" };
    const text = [header, ...msgs.map((message) => ({ type: "message", at: "2026-01-01T00:00:01Z", message }))].map((l) => JSON.stringify(l)).join("\n");
    expect(detectFormat(text)).toBe("openai-jsonl");
    const [s] = parseSessions(text, { path: "/home/chats/9d9a-chat.jsonl" });
    expect(s!.id).toBe("9d9a-chat");
    expect(s!.messages).toEqual(msgs);
    expect(s!.meta?.model).toBe("gpt-x");
    const bad = [JSON.stringify(header), JSON.stringify({ type: "message", message: { role: "tool", content: "x" } })].join("\n");
    expect(() => parseSessions(bad, { path: "c.jsonl" })).toThrow(/c\.jsonl: .*line 2.*tool_call_id/);
  });
  it("names the line and field of a bad message", () => {
    const bad = [JSON.stringify(msgs[0]), JSON.stringify({ role: "tool", content: "x" })].join("\n");
    expect(() => parseSessions(bad, { path: "bad.jsonl" })).toThrow(/bad\.jsonl: .*line 2.*tool_call_id/);
  });
  it("fills in a missing tool result and keeps an orphan result's text", () => {
    const broken = [msgs[1], msgs[2], { role: "user", content: "next" }, { role: "tool", tool_call_id: "zzz", content: "stray" }];
    const [s] = parseSessions(broken.map((m) => JSON.stringify(m)).join("\n"), { path: "b.jsonl" });
    expect(checkConversation(s!.messages)).toEqual([]);
    expect(s!.messages[2]).toMatchObject({ role: "tool", tool_call_id: "a" });
    expect(s!.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("stray") });
    expect(s!.repairs).toHaveLength(2);
  });
  it("leaves a trailing in-flight call alone", () => {
    const [s] = parseSessions(msgs.slice(0, 3).map((m) => JSON.stringify(m)).join("\n"), { path: "t.jsonl" });
    expect(s!.messages).toEqual(msgs.slice(0, 3));
    expect(s!.repairs).toBeUndefined();
  });
});

describe("detection, folders and errors", () => {
  it("detects each format from content", () => {
    expect(detectFormat(JSON.stringify(miniSwe))).toBe("mini-swe-agent");
    expect(detectFormat('{"role":"user","content":"x"}\n{"role":"assistant","content":"y"}')).toBe("openai-jsonl");
    expect(detectFormat('[{"task_id":1,"traj":[]}]')).toBe("tau-bench");
    expect(detectFormat('{"unrelated":true}')).toBeNull();
  });
  it("reads a folder, skipping unknown files, honouring format and limit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessions-"));
    mkdirSync(join(dir, "nested"));
    writeFileSync(join(dir, "nested", "a.traj.json"), JSON.stringify(miniSwe));
    writeFileSync(join(dir, "b.jsonl"), '{"role":"user","content":"x"}\n');
    writeFileSync(join(dir, "summary.json"), '{"instances":[]}');
    writeFileSync(join(dir, "LICENSE"), "MIT License\n");
    const all = await readSessions(dir);
    expect(all.map((s) => s.format).sort()).toEqual(["mini-swe-agent", "openai-jsonl"]);
    expect(all.find((s) => s.format === "openai-jsonl")!.source).toEqual({ path: join(dir, "b.jsonl"), license: "MIT" });
    expect(await readSessions(dir, { format: "mini-swe-agent" })).toHaveLength(1);
    expect(await readSessions(dir, { limit: 1 })).toHaveLength(1);
  });
  it("reports a bad file with its path and field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessions-"));
    const file = join(dir, "x.traj.json");
    writeFileSync(file, JSON.stringify({ trajectory_format: "mini-swe-agent-1", messages: [{ role: "robot", content: "x" }] }));
    await expect(readSessions(file)).rejects.toThrow(SessionFormatError);
    await expect(readSessions(file)).rejects.toThrow(/x\.traj\.json: .*messages\.0\.role/);
    await expect(readSessions(join(dir, "missing.json"))).rejects.toThrow(/missing\.json: cannot read/);
  });
  it("resolves the data dir from an explicit path and the environment", () => {
    const dir = mkdtempSync(join(tmpdir(), "data-"));
    expect(resolveDataDir(dir)).toBe(dir);
    expect(resolveDataDir(join(dir, "nope"))).toBeNull();
    const before = process.env.CONTEXT_ENGINE_DATA_DIR;
    process.env.CONTEXT_ENGINE_DATA_DIR = dir;
    try {
      expect(resolveDataDir()).toBe(dir);
    } finally {
      if (before === undefined) delete process.env.CONTEXT_ENGINE_DATA_DIR;
      else process.env.CONTEXT_ENGINE_DATA_DIR = before;
    }
  });
});

describe("splitTurns", () => {
  it("starts a turn at each user message and keeps the system prompt apart", () => {
    const [s] = parseSessions(JSON.stringify(miniSwe));
    const { preamble, turns } = splitSession(s!.messages);
    expect(preamble.map((m) => m.role)).toEqual(["system"]);
    expect(turns).toHaveLength(2);
    expect(turns[0]!.steps.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(turns[1]!.steps.map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(splitTurns(s!.messages)).toEqual(turns);
  });
});
