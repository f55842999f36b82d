import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChatModel, ChatModelRequest, ChatModelResponse, Message } from "@context-engine/core";
import { ChatModelError, contentText } from "@context-engine/core";

/** Run a TypeScript script of this folder in a process of its own; resolves with its exit code, stdout and stderr. */
export async function runScript(url: URL, env: Record<string, string> = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(url)], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += String(d)));
  child.stderr.on("data", (d) => (err += String(d)));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (c, sig) => resolve([c, sig])));
  return { code, signal, out, err };
}

/** A temp data dir removed after the test. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "lcm-engine-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "alpha beta gamma delta parser config module cache retry socket buffer index token schema route handler".split(" ");

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]!);
  return out.join(" ");
}

/**
 * A tool-heavy agent conversation: system prompt, then turns of user request,
 * assistant tool calls (1–2 per step), tool results of varying size, and an
 * answer. Every turn plants a unique canary string.
 */
export function agentConversation(turns: number, seed = 1, opts: { bigEvery?: number } = {}): Message[] {
  const r = rng(seed);
  const msgs: Message[] = [{ role: "system", content: "You are a careful coding agent." }];
  let call = 0;
  for (let t = 0; t < turns; t++) {
    msgs.push({ role: "user", content: `Turn ${t}: please fix CANARY_${seed}_${t} in src/mod${t}.ts (${words(r, 12)})` });
    const steps = 1 + Math.floor(r() * 2);
    for (let s = 0; s < steps; s++) {
      const calls = 1 + Math.floor(r() * 2);
      const ids = Array.from({ length: calls }, () => `call_${seed}_${call++}`);
      msgs.push({
        role: "assistant",
        content: s === 0 ? `Looking at src/mod${t}.ts` : null,
        tool_calls: ids.map((id) => ({ id, type: "function" as const, function: { name: "bash", arguments: JSON.stringify({ cmd: `grep -n ${words(r, 2)} src/mod${t}.ts` }) } })),
      });
      for (const id of ids) {
        const big = opts.bigEvery && call % opts.bigEvery === 0;
        msgs.push({ role: "tool", tool_call_id: id, content: `${id} output: ${words(r, big ? 9_000 : 20 + Math.floor(r() * 120))}` });
      }
    }
    msgs.push({ role: "assistant", content: `Fixed CANARY_${seed}_${t}: ${words(r, 20)}` });
  }
  return msgs;
}

/**
 * A deterministic summariser: keeps the first words of the source (so every
 * identifier it states occurs in its sources) and counts its calls. `gate`
 * holds every answer until released.
 */
export class FakeSummarizer implements ChatModel {
  readonly model = "fake-summarizer";
  calls = 0;
  requests: ChatModelRequest[] = [];
  mode: "ok" | "auth" | "invent" | "copy" = "ok";
  /** Answer after this many milliseconds. */
  delayMs = 0;
  #gate: Promise<void> | null = null;
  #release: (() => void) | null = null;

  hold(): void {
    this.#gate = new Promise((r) => (this.#release = r));
  }
  release(): void {
    this.#release?.();
    this.#gate = null;
  }

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    this.calls++;
    this.requests.push(request);
    if (this.#gate) {
      const gate = this.#gate;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(new ChatModelError("aborted", "aborted"));
        request.signal?.addEventListener("abort", onAbort, { once: true });
        void gate.then(() => {
          request.signal?.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.mode === "auth") throw new ChatModelError("auth", "401 invalid api key", { status: 401 });
    const user = contentText(request.messages[request.messages.length - 1]?.content ?? "");
    const source = user.slice(user.indexOf("<source>") + 8);
    if (this.mode === "copy") return { message: { role: "assistant", content: source + source } };
    if (this.mode === "invent") {
      return { message: { role: "assistant", content: "Edited /etc/invented/path.conf and lib/ghost_module.py with value 987654 and setting made_up_flag." } };
    }
    const text = `Summary: ${source.replace(/\s+/g, " ").trim().split(" ").slice(0, 60).join(" ")}`;
    return { message: { role: "assistant", content: text } };
  }
}
