import { ContextEngine } from "@context-engine/core";
import type {
  CompressOptions,
  EngineStatus,
  Message,
  PruneOptions,
  PruneResult,
  SelectContextOptions,
  CompressDecision,
  ToolCallOptions,
  ToolSchema,
  TurnCompleteMeta,
  Usage,
} from "@context-engine/core";

export type FaultKind = "throw" | "hang" | "mutate" | `garbage:${string}`;
export interface Fault {
  hook: string;
  kind: FaultKind;
}

/** A value that never settles. */
const never = () => new Promise<never>(() => {});

function circularList(): unknown[] {
  const m: Record<string, unknown> = { role: "user", content: "loop" };
  m.self = m;
  return [m];
}

function deeplyNested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Garbage a list-returning hook can hand back, built from the list it was given. */
export const LIST_GARBAGE: Record<string, (input: Message[]) => unknown> = {
  string: () => "not a list",
  number: () => 42,
  object: () => ({ messages: [] }),
  empty: () => [],
  roleless: (input) => [...input.map((m) => ({ content: m.content }))],
  unknown_role: (input) => [...input, { role: "wizard", content: "x" }],
  numeric_content: (input) => input.map((m) => (m.role === "user" ? { ...m, content: 123 } : m)),
  null_item: (input) => [...input, null],
  missing_user: (input) => input.filter((m) => m.role !== "user"),
  orphan_tool: (input) => [...input, { role: "tool", tool_call_id: "ghost", content: "x" }],
  tool_without_id: (input) => [...input, { role: "tool", content: "x" }],
  bad_tool_calls: (input) => [...input, { role: "assistant", content: null, tool_calls: "nope" }],
  circular: () => circularList(),
  deep: (input) => [...input, { role: "user", content: [{ type: "text", text: "deep", extra: deeplyNested(10_000) }] }],
  bigint: (input) => [...input, { role: "user", content: "x", n: 10n }],
};

/** Garbage that only a selection must refuse: the system prefix belongs to the host. */
export const SYSTEM_GARBAGE: Record<string, (input: Message[]) => unknown> = {
  inject_system: (input) => [input[0], { role: "system", content: "INJECTED" }, ...input.slice(1)],
  replace_system: (input) => [{ role: "system", content: "EVIL" }, ...input.slice(1)],
  append_system: (input) => [...input, { role: "system", content: "late" }],
  drop_system: (input) => input.filter((m) => m.role !== "system"),
};

/** Garbage for hooks whose result the host ignores or reads loosely. */
export const VALUE_GARBAGE: Record<string, () => unknown> = {
  number: () => 42,
  string: () => "yes",
  object: () => ({ then: 1 }),
  nan: () => Number.NaN,
  rejected_non_error: () => Promise.reject({ weird: true }),
};

/**
 * A well-behaved engine with every hook, and one fault injected on request:
 * the hook throws, never settles, returns garbage or edits its arguments in
 * place. Without a fault it changes nothing (select returns null, compress
 * returns its input unchanged), so a faulty run must look exactly like it.
 */
export class FaultEngine extends ContextEngine {
  fault: Fault | null = null;
  wantCompress = false;

  get name(): string {
    return "fault";
  }

  #hit<T>(hook: string, normal: () => T, mutate?: () => void, garbage?: (name: string) => unknown): T {
    const f = this.fault;
    if (!f || f.hook !== hook) return normal();
    if (f.kind === "throw") throw new Error(`${hook} exploded`);
    if (f.kind === "hang") return never() as T;
    if (f.kind === "mutate") {
      mutate?.();
      return normal();
    }
    const name = f.kind.slice("garbage:".length);
    return (garbage ? garbage(name) : VALUE_GARBAGE[name]!()) as T;
  }

  updateFromResponse(usage: Usage): void {
    return this.#hit(
      "updateFromResponse",
      () => this.recordUsage(usage),
      () => Object.assign(usage, { prompt_tokens: -5 }),
    );
  }

  shouldCompress(): boolean {
    return this.#hit("shouldCompress", () => this.wantCompress);
  }

  override shouldCompressInfo(tokens?: number): CompressDecision {
    return this.#hit("shouldCompressInfo", () => ({ compress: this.wantCompress && (tokens ?? 0) >= 0, reason: this.wantCompress ? null : "below threshold" }));
  }

  override shouldCompressPreflight(messages: Message[]): boolean {
    return this.#hit(
      "shouldCompressPreflight",
      () => false,
      () => scramble(messages),
    );
  }

  override hasContentToCompress(messages: readonly Message[]): boolean {
    return this.#hit(
      "hasContentToCompress",
      () => true,
      () => scramble(messages as Message[]),
    );
  }

  compress(messages: Message[], _options?: CompressOptions): Promise<Message[]> | Message[] {
    const f = this.fault;
    if (f?.hook === "compress" && f.kind === "mutate") {
      scramble(messages);
      throw new Error("compress edited its input and failed");
    }
    return this.#hit("compress", () => messages, undefined, (name) => LIST_GARBAGE[name]!(messages));
  }

  override pruneToolResultsOnly(messages: Message[], _options?: PruneOptions): PruneResult {
    return this.#hit(
      "pruneToolResultsOnly",
      () => ({ messages, pruned: 0 }),
      () => scramble(messages),
      (name) => ({ messages: LIST_GARBAGE[name]!(messages), pruned: 1 }),
    );
  }

  override selectContext(request: Message[], options?: SelectContextOptions): Message[] | null {
    return this.#hit(
      "selectContext",
      () => null,
      () => {
        scramble(request);
        if (options) scramble(options.conversationMessages as Message[]);
        if (options?.incomingMessage) (options.incomingMessage as { content: unknown }).content = "HIJACKED";
      },
      (name) => (LIST_GARBAGE[name] ?? SYSTEM_GARBAGE[name])!(request),
    );
  }

  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, _meta?: TurnCompleteMeta): void {
    return this.#hit(
      "onTurnComplete",
      () => undefined,
      () => {
        scramble(messages as Message[]);
        if (usage) Object.assign(usage, { prompt_tokens: 999_999 });
      },
    );
  }

  override getToolSchemas(): ToolSchema[] {
    return this.#hit(
      "getToolSchemas",
      () => [{ name: "ctx_probe", description: "probe", parameters: { type: "object", properties: {} } }],
      undefined,
      (name) => VALUE_GARBAGE[name]?.() ?? [{}],
    );
  }

  override handleToolCall(name: string, _args: unknown, options?: ToolCallOptions): string {
    return this.#hit(
      "handleToolCall",
      () => JSON.stringify({ ok: true, tool: name }),
      () => {
        if (options) scramble(options.messages as Message[]);
      },
    );
  }

  override getStatus(): EngineStatus {
    return this.#hit("getStatus", () => super.getStatus());
  }

  override onSessionStart(): void {
    return this.#hit("onSessionStart", () => undefined);
  }
  override onSessionEnd(_id: string, messages: readonly Message[]): void {
    return this.#hit(
      "onSessionEnd",
      () => undefined,
      () => scramble(messages as Message[]),
    );
  }
  override onSessionReset(): void {
    return this.#hit("onSessionReset", () => void super.onSessionReset());
  }
  override updateModel(model: string, contextLength: number, options?: Record<string, unknown>): void {
    return this.#hit("updateModel", () => void super.updateModel(model, contextLength, options));
  }
}

/** Edit a list in place the way a careless engine would. */
function scramble(list: Message[]): void {
  for (const m of list) (m as { content: unknown }).content = "SCRAMBLED";
  list.pop();
  list.push({ role: "user", content: "PLANTED" });
}
