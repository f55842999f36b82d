import type { OcAgentMessage, OcAssistantMessage, OcToolResultMessage, OcUserMessage } from "../src/index.js";

const usage = { input: 10, output: 5, cacheRead: 3, cacheWrite: 0, totalTokens: 18, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export const user = (text: string, t = 1): OcUserMessage => ({ role: "user", content: text, timestamp: t });
export const assistant = (text: string, calls: { id: string; name: string; args?: Record<string, unknown> }[] = [], t = 2): OcAssistantMessage => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
    ...(text ? [{ type: "text" as const, text }] : []),
    ...calls.map((c) => ({ type: "toolCall" as const, id: c.id, name: c.name, arguments: c.args ?? {} })),
  ],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage,
  stopReason: calls.length ? "toolUse" : "stop",
  timestamp: t,
});
export const toolResult = (id: string, name: string, text: string, t = 3): OcToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: t,
});

/** A transcript of `turns` user turns, each with one tool round trip. */
export function transcript(turns: number): OcAgentMessage[] {
  const out: OcAgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(user(`question ${i}`, i * 10));
    out.push(assistant("", [{ id: `call_${i}`, name: "read", args: { path: `/f${i}` } }], i * 10 + 1));
    out.push(toolResult(`call_${i}`, "read", `contents ${i}`, i * 10 + 2));
    out.push(assistant(`answer ${i}`, [], i * 10 + 3));
  }
  return out;
}
