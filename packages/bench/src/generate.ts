import type { Message } from "@context-engine/core";

/**
 * Seeded generator of ONE long agent conversation: user requests, assistant
 * prose, tool calls with JSON arguments, tool results (code, logs, listings).
 * About a third of the messages carry some CJK text (one line in twenty).
 * Search targets are planted at fixed message positions, so every grep can be
 * checked against the message it must find.
 */
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

const WORDS = (
  "the a to of and in is it that for on with as this be are we can not you should will from by at or have if more " +
  "function value error config file test build module request response server client cache index query table column " +
  "update create delete insert select migration schema version release deploy branch commit merge review patch " +
  "token budget context summary message session history search result timeout retry latency memory storage database " +
  "parser compiler runtime thread worker queue event handler callback promise async await stream buffer socket network " +
  "user account permission policy login profile setting option flag feature bug issue fix performance metric trace " +
  "log debug warning failure success status output input argument parameter type interface class method property " +
  "package dependency install upgrade lockfile workspace plugin engine adapter provider model prompt because however " +
  "instead already still again maybe probably actually quickly carefully check run look find read write open close"
).split(" ");
const IDENTS = [
  "parseConfig", "loadSession", "retryWithBackoff", "TokenCounter", "assembleContext", "MAX_RETRY_COUNT", "handleToolCall",
  "userRepository", "fetchOrders", "validateSchema", "CacheEntry", "renderTemplate", "computeChecksum", "OrderService",
  "migrate_v2", "ingest_batch", "resolve_path", "flushBuffer", "HttpClient", "StreamReader", "EventBus", "QueryPlanner",
];
const DIRS = ["src", "src/lib", "src/api", "test", "packages/core/src", "scripts", "config", "docs"];
const EXTS = [".ts", ".py", ".json", ".md", ".go", ".rs", ".yaml"];
const CJK = [
  "请检查配置文件中的超时设置", "静默模式已经启动", "数据库迁移失败了，需要回滚", "这个函数的返回值不正确",
  "ログファイルを確認してください", "テストが失敗しました", "설정 파일을 확인하세요", "서버 응답 시간이 너무 깁니다",
];

/** What the grep checks look for, and where it is planted. */
export const PLANTED = {
  /** Ordinary English words that the generator never produces otherwise. */
  words: { query: "marmalade lighthouse", text: "We agreed the marmalade lighthouse release name stays.", at: 4 },
  /** One rare identifier. */
  rare: { query: "Vortigernix", text: "The flaky job is Vortigernix on the arm runner.", at: 6 },
  /** A CJK phrase (the trigram index path). */
  cjk: { query: "紫色长颈鹿", text: "备注：紫色长颈鹿是这次发布的代号。", at: 8 },
  /** A bare literal (letters on both sides, so no whole word to narrow by) only in the oldest prose message. */
  oldest: { query: "Q7Kx9PLUMBwq", text: "The cache key was aQ7Kx9PLUMBwqz before the rename.", at: 0 },
  /** A bare literal (no word boundaries) repeated through history; the oldest copy is the one to find. */
  literal: { query: "E_PLANT_4417", at: 10, every: 2_000 },
} as const;

export function literalText(copy: number): string {
  return `build step failed with xE_PLANT_4417z (copy ${copy}), see the log`;
}

export class ConversationGenerator {
  readonly #r: () => number;
  #call = 0;
  /** Messages emitted so far. */
  emitted = 0;
  /** UTF-8 bytes of the text emitted so far (content, tool names and arguments). */
  rawBytes = 0;
  /** Message indexes of the planted messages (literal: every copy). */
  readonly plantedAt = { oldest: -1, words: -1, rare: -1, cjk: -1, literal: [] as number[] };

  constructor(seed = 17) {
    this.#r = rng(seed);
  }

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#r() * list.length)]!;
  }

  #sentence(min = 6, max = 18): string {
    const n = min + Math.floor(this.#r() * (max - min));
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(this.#r() < 0.08 ? this.#pick(IDENTS) : this.#pick(WORDS));
    const s = words.join(" ");
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  }

  /** About a third of all messages get one CJK line (about 5% of their lines). */
  #withCjk(lines: string[]): string[] {
    if (this.#r() < 0.4) lines.splice(Math.floor(this.#r() * (lines.length + 1)), 0, this.#pick(CJK));
    return lines;
  }

  #prose(sentences: number): string {
    const lines: string[] = [];
    for (let i = 0; i < sentences; i++) lines.push(this.#sentence());
    return this.#withCjk(lines).join(" ");
  }

  #path(): string {
    return `${this.#pick(DIRS)}/${this.#pick(IDENTS).toLowerCase()}${this.#pick(EXTS)}`;
  }

  #toolOutput(): string {
    const kind = this.#r();
    const lines: string[] = [];
    const n = 2 + Math.floor(this.#r() * 30);
    for (let i = 0; i < n; i++) {
      if (kind < 0.4) {
        lines.push(
          this.#r() < 0.5
            ? `  const ${this.#pick(IDENTS).toLowerCase()} = await ${this.#pick(IDENTS)}(${this.#pick(WORDS)}, ${Math.floor(this.#r() * 1000)});`
            : `  // ${this.#sentence(4, 10)}`,
        );
      } else if (kind < 0.7) {
        lines.push(`${this.#path()}:${1 + Math.floor(this.#r() * 400)}: ${this.#sentence(3, 9)}`);
      } else {
        const day = `2026-0${1 + Math.floor(this.#r() * 9)}-1${Math.floor(this.#r() * 9)}`;
        lines.push(`${day} ${this.#r() < 0.2 ? "ERROR" : "INFO"} ${this.#pick(IDENTS)}: ${this.#sentence(3, 12)}`);
      }
    }
    return this.#withCjk(lines).join("\n");
  }

  /** Planted text due for a prose message at `index` (the first prose message at or after each position). */
  #plant(index: number): string | null {
    if (this.plantedAt.oldest < 0 && index >= PLANTED.oldest.at) return (this.plantedAt.oldest = index), PLANTED.oldest.text;
    if (this.plantedAt.words < 0 && index >= PLANTED.words.at) return (this.plantedAt.words = index), PLANTED.words.text;
    if (this.plantedAt.rare < 0 && index >= PLANTED.rare.at) return (this.plantedAt.rare = index), PLANTED.rare.text;
    if (this.plantedAt.cjk < 0 && index >= PLANTED.cjk.at) return (this.plantedAt.cjk = index), PLANTED.cjk.text;
    const copy = this.plantedAt.literal.length;
    if (index >= PLANTED.literal.at + copy * PLANTED.literal.every) {
      this.plantedAt.literal.push(index);
      return literalText(copy);
    }
    return null;
  }

  #emit(out: Message[], m: Message): void {
    // Planted text goes into user/assistant prose only, never into a tool pair.
    const prose = typeof m.content === "string" && (m.role === "user" || (m.role === "assistant" && !("tool_calls" in m)));
    if (prose) {
      const planted = this.#plant(this.emitted);
      if (planted) (m as { content: string }).content = `${m.content as string} ${planted}`;
    }
    this.rawBytes += rawTextBytes(m);
    this.emitted++;
    out.push(m);
  }

  /** One turn: a user message, then 0–3 tool rounds, then an assistant answer. */
  turn(): Message[] {
    const out: Message[] = [];
    this.#emit(out, { role: "user", content: this.#prose(1 + Math.floor(this.#r() * 3)) });
    const rounds = Math.floor(this.#r() * 4);
    for (let i = 0; i < rounds; i++) {
      const id = `call_${(this.#call++).toString(36)}`;
      const name = this.#pick(["read_file", "grep", "run_command", "list_dir"]);
      const args = name === "run_command" ? { command: `npm test -- ${this.#path()}` } : { path: this.#path(), pattern: this.#pick(IDENTS) };
      this.#emit(out, {
        role: "assistant",
        content: this.#r() < 0.5 ? this.#withCjk([this.#sentence()]).join(" ") : null,
        tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
      } as Message);
      this.#emit(out, { role: "tool", tool_call_id: id, content: this.#toolOutput() });
    }
    this.#emit(out, { role: "assistant", content: this.#prose(2 + Math.floor(this.#r() * 6)) });
    return out;
  }

  /** Count messages that joined the conversation from elsewhere (host turns), so sizes and raw bytes stay true. */
  count(messages: readonly Message[]): void {
    for (const m of messages) this.rawBytes += rawTextBytes(m);
    this.emitted += messages.length;
  }

  /** Whole turns until at least `n` messages were emitted in total. */
  until(n: number): Message[] {
    const out: Message[] = [];
    while (this.emitted < n) out.push(...this.turn());
    return out;
  }
}

/** UTF-8 bytes of the text a message carries (content, tool names and arguments). */
export function rawTextBytes(m: Message): number {
  const x = m as { content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
  let n = typeof x.content === "string" ? Buffer.byteLength(x.content) : 0;
  for (const c of x.tool_calls ?? []) n += Buffer.byteLength(c.function.name) + Buffer.byteLength(c.function.arguments);
  return n;
}
