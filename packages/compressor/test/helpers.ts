import type { ChatModel, ChatModelErrorKind, ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import { ChatModelError, checkConversation, contentText } from "@context-engine/core";
import { expect } from "vitest";

export interface FakeModelCalls {
  requests: ChatModelRequest[];
}

/**
 * A deterministic summariser: answers with a structured summary that quotes
 * every identifier-looking word it saw in the prompt's turns (bounded).
 */
export function fakeSummariser(options: { reply?: (prompt: string) => string; delayMs?: number } = {}): ChatModel & FakeModelCalls {
  const requests: ChatModelRequest[] = [];
  return {
    model: "fake-summariser",
    requests,
    async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
      requests.push(request);
      if (options.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, options.delayMs);
          request.signal?.addEventListener("abort", () => {
            clearTimeout(t);
            reject(new ChatModelError("aborted", "aborted"));
          });
        });
      }
      const prompt = contentText(request.messages[0]!.content);
      const text = options.reply ? options.reply(prompt) : defaultReply(prompt);
      return { message: { role: "assistant", content: text }, finishReason: "stop" };
    },
  };
}

function defaultReply(prompt: string): string {
  const ids = [...new Set(prompt.match(/\b[A-Za-z_]+[0-9_][A-Za-z0-9_]*\b/g) ?? [])].slice(0, 20);
  return [
    "## Latest Request",
    "None",
    "## Goal",
    "Help the user.",
    "## Progress",
    "1. Worked on things.",
    "## Files & Identifiers",
    ids.map((i) => `\`${i}\``).join(", ") || "None",
  ].join("\n");
}

/** A model that always fails with the given kind (or a plain Error). */
export function failingModel(kind: ChatModelErrorKind | "plain"): ChatModel & FakeModelCalls {
  const requests: ChatModelRequest[] = [];
  return {
    model: "failing",
    requests,
    async complete(request) {
      requests.push(request);
      if (kind === "plain") throw new Error("something odd happened");
      throw new ChatModelError(kind, `simulated ${kind}`);
    },
  };
}

export function expectValid(messages: readonly Message[]): void {
  const problems = checkConversation(messages);
  expect(problems, problems.map((p) => p.message).join("\n")).toEqual([]);
}

/** Role alternation over template-visible roles (tool rows and tool-call assistants skipped). */
export function visibleRoles(messages: readonly Message[]): string[] {
  return messages
    .filter((m) => m.role !== "tool" && !(m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0))
    .map((m) => (m.role === "developer" ? "system" : m.role));
}

export function expectAlternating(messages: readonly Message[]): void {
  const roles = visibleRoles(messages).filter((r) => r !== "system");
  for (let i = 1; i < roles.length; i++) {
    expect(roles[i], `roles ${roles.join(",")}`).not.toBe(roles[i - 1]);
  }
}

let seq = 0;
/** A realistic coding-agent conversation: user asks, assistant calls tools, results come back. */
export function agentConversation(options: { turns: number; stepsPerTurn?: number; resultChars?: number; system?: string }): Message[] {
  const steps = options.stepsPerTurn ?? 3;
  const chars = options.resultChars ?? 1_500;
  const out: Message[] = [{ role: "system", content: options.system ?? "You are a careful coding agent. Use tools." }];
  for (let t = 0; t < options.turns; t++) {
    out.push({ role: "user", content: `Request ${t}: fix bug_${t} in src/module_${t}.ts and run the tests for issue #${1000 + t}.` });
    for (let s = 0; s < steps; s++) {
      const id = `call_${t}_${s}_${seq++}`;
      out.push({
        role: "assistant",
        content: s === 0 ? `Looking at src/module_${t}.ts` : null,
        tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `cat src/module_${t}.ts | grep fn_${s}` }) } }],
      });
      out.push({ role: "tool", tool_call_id: id, content: `output of step ${s} for turn ${t}\n` + "x".repeat(chars) });
    }
    out.push({ role: "assistant", content: `Fixed bug_${t}; tests pass (${t * 7} passed).` });
  }
  return out;
}

export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return contentText(messages[i]!.content);
  return "";
}
