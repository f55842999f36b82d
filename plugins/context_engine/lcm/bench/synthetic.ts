import type { Message } from "@context-engine/core";

/**
 * Seeded generator of agent-like conversations for the benchmarks:
 * user requests, assistant prose, tool calls with JSON arguments, tool results
 * (code, logs, listings) of 200–4,000 characters, some CJK, and rare "canary"
 * identifiers that make distinctive search targets.
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
  "update create delete insert select migration schema version release deploy branch commit merge rebase review patch " +
  "token budget context summary message session history search result timeout retry latency memory storage database " +
  "parser compiler runtime thread worker queue event handler callback promise async await stream buffer socket network " +
  "user account permission policy secret password login logout profile setting option flag feature bug issue fix " +
  "performance benchmark metric trace log debug warning failure success status output input argument parameter type " +
  "interface class method property field object array string number boolean null undefined import export default " +
  "package dependency install upgrade downgrade lockfile workspace monorepo plugin engine adapter provider model prompt " +
  "because however therefore instead already still again maybe probably actually really quickly carefully correctly " +
  "check run look find read write open close start stop handle parse validate render compute measure compare improve"
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

export interface GenOptions {
  seed: number;
  /** Share of messages carrying a canary identifier (default 0.01). */
  canaryRate?: number;
  /** Most lines in a tool result (default 65; fewer makes a smaller corpus). */
  maxToolLines?: number;
}

export class ConversationGenerator {
  readonly #r: () => number;
  readonly #canaryRate: number;
  readonly #maxToolLines: number;
  #call = 0;
  /** Canary identifiers emitted so far (for search targets). */
  readonly canaries: string[] = [];

  constructor(options: GenOptions) {
    this.#r = rng(options.seed);
    this.#canaryRate = options.canaryRate ?? 0.01;
    this.#maxToolLines = options.maxToolLines ?? 65;
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

  #prose(sentences: number): string {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(this.#sentence());
    if (this.#r() < this.#canaryRate) {
      const c = `CANARY-${Math.floor(this.#r() * 1e9).toString(36)}-${this.canaries.length}`;
      this.canaries.push(c);
      out.push(`Remember the code ${c}.`);
    }
    if (this.#r() < 0.02) out.push(this.#pick(CJK));
    return out.join(" ");
  }

  #path(): string {
    return `${this.#pick(DIRS)}/${this.#pick(IDENTS).toLowerCase()}${this.#pick(EXTS)}`;
  }

  #toolOutput(): string {
    const kind = this.#r();
    const lines: string[] = [];
    const n = 2 + Math.floor(this.#r() * (this.#maxToolLines - 2));
    if (kind < 0.4) {
      for (let i = 0; i < n; i++) {
        const id = this.#pick(IDENTS);
        lines.push(
          this.#r() < 0.5
            ? `  const ${id.toLowerCase()} = await ${this.#pick(IDENTS)}(${this.#pick(WORDS)}, ${Math.floor(this.#r() * 1000)});`
            : `  // ${this.#sentence(4, 10)}`,
        );
      }
    } else if (kind < 0.7) {
      for (let i = 0; i < n; i++) {
        lines.push(`${this.#path()}:${1 + Math.floor(this.#r() * 400)}: ${this.#sentence(3, 9)}`);
      }
    } else {
      for (let i = 0; i < n; i++) {
        lines.push(
          `2026-0${1 + Math.floor(this.#r() * 9)}-1${Math.floor(this.#r() * 9)} ${this.#r() < 0.2 ? "ERROR" : "INFO"} ${this.#pick(IDENTS)}: ${this.#sentence(3, 12)}`,
        );
      }
    }
    return lines.join("\n");
  }

  /** One turn: a user message, then 0–3 tool rounds, then an assistant answer. */
  turn(): Message[] {
    const out: Message[] = [{ role: "user", content: this.#prose(1 + Math.floor(this.#r() * 3)) }];
    const rounds = Math.floor(this.#r() * 4);
    for (let i = 0; i < rounds; i++) {
      const id = `call_${(this.#call++).toString(36)}`;
      const name = this.#pick(["read_file", "grep", "run_command", "list_dir"]);
      const args = name === "run_command" ? { command: `npm test -- ${this.#path()}` } : { path: this.#path(), pattern: this.#pick(IDENTS) };
      out.push({
        role: "assistant",
        content: this.#r() < 0.5 ? this.#sentence() : null,
        tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
      } as Message);
      out.push({ role: "tool", tool_call_id: id, content: this.#toolOutput() });
    }
    out.push({ role: "assistant", content: this.#prose(2 + Math.floor(this.#r() * 6)) });
    return out;
  }

  /** At least `n` messages (whole turns). */
  messages(n: number): Message[] {
    const out: Message[] = [];
    while (out.length < n) out.push(...this.turn());
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

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
