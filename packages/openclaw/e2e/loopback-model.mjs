// A loopback OpenAI-compatible model for driving a real OpenClaw: streams chat completions
// (OpenClaw always streams), records every request it gets (to a JSON-lines file), and answers
// deterministically: it states the facts it can see ("fact-N" words in any message) so a test can
// tell from the answer and from the recorded request what reached the model.
// Usage: node loopback-model.mjs <port-file> <requests.jsonl>
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const [portFile, requestsFile] = process.argv.slice(2);
if (!portFile || !requestsFile) {
  console.error("usage: loopback-model.mjs <port-file> <requests.jsonl>");
  process.exit(2);
}

const textOf = (content) => (typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p?.text ?? "").join(" ") : "");

function answer(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const seen = new Set();
  for (const m of messages) for (const f of textOf(m.content).match(/\bfact-[\w-]+/g) ?? []) seen.add(f);
  return `Noted (${textOf(lastUser?.content).slice(0, 60).replace(/\s+/g, " ")}). Facts I can see: ${[...seen].join(", ") || "none"}.`;
}

// The user's own message this request answers: the last user message, skipping the context OpenClaw appends
// as a user message of its own (<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>); null once the model has answered after it.
function pendingUserText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") return null;
    const text = textOf(m.content);
    if (!text.trimStart().startsWith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")) return text;
  }
  return null;
}

// A turn to crash in: the first request whose last message asks `[[hold:<name>]]` is never answered (the test
// kills the gateway while it waits); a later one (OpenClaw's restart recovery re-running it) is answered.
const held = new Set();
function holdOnce(body) {
  const name = pendingUserText(body)?.match(/\[\[hold:([^\]]+)\]\]/)?.[1];
  if (!name || held.has(name)) return false;
  held.add(name);
  return true;
}

// A tool turn on request: a user message with `[[read:<path>]]` gets one `read` call (ids call_<n>, as real
// providers name them) before the answer; after the tool's result the model answers as usual.
let calls = 0;
function toolCallFor(body) {
  const path = pendingUserText(body)?.match(/\[\[read:([^\]]+)\]\]/)?.[1];
  const offered = (body.tools ?? []).some((t) => t?.function?.name === "read");
  return path && offered ? { id: `call_${++calls}`, name: "read", arguments: JSON.stringify({ path }) } : null;
}

function sendToolCall(res, body, call) {
  const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4) + Math.ceil(JSON.stringify(body.tools ?? []).length / 4);
  const base = { id: `chatcmpl-${Date.now()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "loop-24k" };
  const toolCall = { index: 0, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [toolCall] }, finish_reason: null }] });
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  send({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 } });
  res.end("data: [DONE]\n\n");
}

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => (raw += d));
  req.on("end", () => {
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "loop-24k", object: "model" }] }));
      return;
    }
    let body = {};
    try {
      body = JSON.parse(raw || "{}");
    } catch {}
    appendFileSync(requestsFile, `${JSON.stringify({ at: Date.now(), url: req.url, body })}\n`);
    if (holdOnce(body)) return; // never answered: the test kills the gateway mid-turn
    const call = toolCallFor(body);
    if (call) return sendToolCall(res, body, call);
    const text = answer(body);
    const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4) + Math.ceil(JSON.stringify(body.tools ?? []).length / 4);
    const usage = { prompt_tokens: promptTokens, completion_tokens: Math.ceil(text.length / 4), total_tokens: promptTokens + Math.ceil(text.length / 4) };
    const base = { id: `chatcmpl-${Date.now()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "loop-24k" };
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
      send({ ...base, choices: [], usage });
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage }));
  });
});
server.listen(0, "127.0.0.1", () => writeFileSync(portFile, String(server.address().port)));
