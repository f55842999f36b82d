/**
 * The compressor's own definition of a fact a continuation cannot rebuild
 * (it has no tools to look anything up). Each finder returns spans of the
 * text verbatim, with a tier: 0 for facts that are one by their structure,
 * higher for weaker candidates kept when room is left.
 *
 * - error: a line of a tool result shaped like a failure: an exception or
 *   error class opening the line, the line that ends a traceback, an error
 *   diagnostic of a compiler or linter (`file:12:3: error`, `file:12:3:
 *   E0602`, `error TS2345:`, `error[E0308]:`), make's `*** … Error 2`, a
 *   `fatal:`/`panic:`/`FAILED` verdict (also pytest's `file::test FAILED`), a
 *   non-zero exit status, a test runner's failure line (`E   …`), and the
 *   stack frame nearest it. Tier 1: warnings and other coded diagnostics
 *   (`file:3:7: W0703`, `warning:`), and any other line naming an error or
 *   exception class (code that raises or catches, a `Traceback` header).
 * - number: a number with what gives it meaning: the key before it
 *   (`timeout=30`, `line 42`, `port: 8080`) or the unit after it (`3.2s`,
 *   `12 MB`, `45%`, `3 failed`), kept with that key or unit; versions (`1.2.3`);
 *   a bare number of three or more digits or with a decimal point.
 * - path: a file system path or URL as written (the token, quotes and trailing punctuation off).
 * - command: what a tool call ran (see `commandLine`).
 */

export type FactKind = "command" | "error" | "path" | "number";

export interface FoundFact {
  text: string;
  /** Lower packs first: 0 a fact by its structure, 1 and 2 weaker candidates kept when room is left. */
  tier: number;
}

/** An exception or error class opening a line, dotted module prefixes allowed (`django.db.utils.OperationalError: …`). */
const EXCEPTION_OPENING = /^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Fault|Failure|Interrupt|Exit)\b(?:\s*[:(]|\s*$)/;
/** Stack frames: Python, JavaScript/Java, gdb/Rust backtraces, Go. */
const STACK_FRAME = /^(?:File "[^"]+", line \d+|at [\w$.<>[\]]+ ?\(?[^()\s]*:\d+(?::\d+)?\)?$|#\d+\s+0x[0-9a-f]+ in |\d+: 0x[0-9a-f]+ - |goroutine \d+ \[)/;
/**
 * Error diagnostics of compilers, linters and type checkers: `path:line[:col]: error …` or an error code
 * (`a.py:3:7: E0712 …`, `x.py:1:1: F401 …`: a code whose letter is E or F), `path(line,col): error TS2345: …`,
 * `error TS2345: …`, and a line opening with `error:`, `error[CODE]:`, `fatal:` or `panic:`.
 */
const DIAGNOSTIC =
  /^(?:\S+(?::\d+(?::\d+)?:|\(\d+,\d+\):)\s*(?:fatal )?(?:error|[A-Z]{0,2}[EF]\d{2,5})\b|error [A-Z]{2,}\d+:|(?:error|fatal|panic|FATAL|ERROR|Error)(?:\[[\w-]+\])?:\s)/;
/** Weaker: warnings and other coded diagnostics (`a.py:3:7: W0703 …`, `C0114`, `warning: …`): most are advice, not the failure. */
const WARNING = /^(?:\S+(?::\d+(?::\d+)?:|\(\d+,\d+\):)\s*(?:warning|[A-Z]{1,3}\d{2,5})\b|warning [A-Z]{2,}\d+:|(?:warning|WARNING|Warning)(?:\[[\w-]+\])?:\s)/;
/** make's failure line: `make: *** [Makefile:20: html] Error 2`, `make[1]: *** …`. */
const MAKE_ERROR = /\*\*\* .*\bError \d+\b|^g?make(?:\[\d+\])?: \*\*\* /;
/** Test runners' verdict lines (pytest's `FAILED x::t`, verbose `x::t FAILED`) and pytest's explanation lines (`E   assert 1 == 2`). */
const TEST_FAILURE = /^(?:FAILED|FAIL|ERROR)\b|^\S+::\S+.*\s(?:FAILED|ERROR)\b|^E {2,}\S|^(?:=+ )?.*\b\d+ (?:failed|errors?)\b.*(?: =+)?$|^not ok \d+/;
/** A non-zero exit status in the forms shells and harnesses print. */
const EXIT_STATUS = /(?:\bexit(?:ed)?(?: with)?(?: status| code)?[ :=]+|\breturn ?code[ :=]+|<returncode>)[1-9]\d*\b|\bcommand not found\b|\bSegmentation fault\b|\bcore dumped\b|\bNo such file or directory\b|\bPermission denied\b/;
/** Something every pattern above needs (case aside): a text without it has no failure line. */
const ANY_FAILURE_SIGNAL = /error|exception|fault|failure|interrupt|exit|fail|fatal|panic|traceback|warning|file "|^\s*at |0x|goroutine|not found|not ok|dumped|no such file|denied|return ?code|^\s*E {2}|:\d+(?::\d+)?:\s*[A-Z]{1,3}\d/im;
/** Weaker: a line that names an error or exception class anywhere (`except Exception:`, `raise self.failureException`, a log line). */
const NAMES_ERROR = /\w*(?:Error|Exception)\b|\bTraceback\b|\b(?:error|failed|failure)\b/;
/** Python's traceback header: the first unindented line after it names the exception, whatever its class is called. */
const TRACEBACK_HEADER = /^Traceback \(most recent call last\):/;

/**
 * Failure-shaped lines of a tool result, trimmed, 8–240 characters. Of a
 * stack, only the frame nearest a failure (the last one before the exception
 * line) is kept, with the failure: it says where it happened; the frames
 * above it are context a continuation can rebuild by running the code again.
 */
export function errorLines(text: string): FoundFact[] {
  const out: FoundFact[] = [];
  // Most outputs hold no failure at all: one pass over the whole text spares testing every line.
  if (!ANY_FAILURE_SIGNAL.test(text)) return out;
  let lastFrame: string | null = null;
  let inTraceback = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    // The exception line closing a traceback is its first unindented line after the header (`mod.ImproperlyConfigured: …`);
    // a traceback holds no blank line, so one ends the search.
    const closesTraceback = inTraceback && line.length > 0 && raw[0] !== " " && raw[0] !== "\t" && !TRACEBACK_HEADER.test(line);
    if (closesTraceback || line.length === 0) inTraceback = false;
    if (line.length < 8 || line.length > 240) continue;
    if (closesTraceback || isFailureLine(line)) {
      if (lastFrame) out.push({ text: lastFrame, tier: 0 });
      lastFrame = null;
      out.push({ text: line, tier: 0 });
    } else if (STACK_FRAME.test(line)) {
      lastFrame = line;
    } else if (WARNING.test(line) || NAMES_ERROR.test(line)) {
      if (TRACEBACK_HEADER.test(line)) inTraceback = true;
      out.push({ text: line, tier: 1 });
    }
  }
  return out;
}

/** A line that is a failure by its shape (tier 0 of `errorLines`). */
function isFailureLine(line: string): boolean {
  return EXCEPTION_OPENING.test(line) || DIAGNOSTIC.test(line) || MAKE_ERROR.test(line) || TEST_FAILURE.test(line) || EXIT_STATUS.test(line);
}

const UNIT = String.raw`(?:ms|µs|us|ns|s|sec|secs|seconds?|min|minutes?|h|hours?|[kKMGT]i?B|bytes?|[kKM]|%|x|px|tokens?|items?|tests?|lines?|files?|passed|failed|errors?|warnings?|skipped|deselected|rows?|chars?|MB\/s)`;
/** `key=12`, `key: 12`, `line 12`, `port 8080` (a key is an identifier of two or more letters). */
const KEYED = new RegExp(String.raw`\b([A-Za-z_][\w.-]*[A-Za-z_])(?:[ \t]*[=:][ \t]*|[ \t]+)(-?\d+(?:\.\d+)*)(?![\w.]*\d)(?!\.\d)` + String.raw`(?:[ \t]?${UNIT}\b)?`, "g");
/** `3.2s`, `12 MB`, `45%`, `3 failed`. */
const WITH_UNIT = new RegExp(String.raw`(?<![\w.])(-?\d+(?:\.\d+)?)[ \t]?${UNIT}(?![\w])`, "g");
/** Versions: at least three dotted parts, or `v1.2`. */
const VERSION = /(?<![\w.])v?\d+\.\d+(?:\.\d+)+(?:[-+][\w.]+)?(?![\w])|(?<![\w.])v\d+\.\d+(?![\w.])/g;
/** A bare number: three or more digits, or digits with a decimal point. */
const BARE = /(?<![\w.-])\d+\.\d+(?![\w.])|(?<![\w.-])\d{3,}(?![\w.])/g;
/** Keys that are prose words, not names: "in 2019", "to 300" say nothing a bare number does not. */
const PROSE = new Set(["a", "an", "the", "in", "on", "at", "to", "of", "and", "or", "for", "by", "is", "are", "was", "be", "from", "with", "than", "as", "into", "over", "under", "about", "after", "before", "since", "until", "up", "down"]);

/** Numbers of a text: with their key or unit, versions, then bare ones (one inside a span already found is not repeated). */
export function numbersIn(text: string): FoundFact[] {
  const out: FoundFact[] = [];
  // Characters already inside a found span: a number found again by a later pattern is not repeated.
  const covered = new Uint8Array(text.length);
  const push = (found: string, at: number, tier: number) => {
    if (covered[at] || covered[at + found.length - 1]) return;
    covered.fill(1, at, at + found.length);
    out.push({ text: found, tier });
  };
  for (const m of text.matchAll(KEYED)) {
    if (PROSE.has(m[1]!.toLowerCase()) || m[1]!.length > 40) continue;
    push(m[0], m.index!, 0);
  }
  for (const m of text.matchAll(WITH_UNIT)) push(m[0], m.index!, 0);
  for (const m of text.matchAll(VERSION)) push(m[0], m.index!, 0);
  for (const m of text.matchAll(BARE)) push(m[0], m.index!, 0);
  return out;
}

/** Characters a path may hold (no spaces: a path with spaces is rare in tool output and ambiguous to cut). */
const PATH_TOKEN = /^[\w.~+@%=:-]*\/[\w./~+@%=:#?&-]*$/;
const EDGE = /^[("'`<[{]+|[)"'`>\]},;:.!?]+$/g;

/** Paths and URLs of a text: whitespace-separated tokens that hold a slash between name characters. */
export function pathsIn(text: string): FoundFact[] {
  const out: FoundFact[] = [];
  for (const raw of text.split(/[\s,]+/)) {
    if (raw.length < 4 || raw.length > 300 || !raw.includes("/")) continue;
    // `file.py:12:3` and `file.py:12` are a path and a position: the path is the fact, the position a number.
    const token = raw.replace(EDGE, "").replace(/(:\d+)+$/, "");
    if (!PATH_TOKEN.test(token) || !/[\w-]\/|\/[\w.-]/.test(token)) continue;
    // A fraction, a date or a ratio is not a path (`1/2`, `2024/01/02`); a path names something.
    if (!/[A-Za-z]/.test(token)) continue;
    out.push({ text: token, tier: /\.[A-Za-z]\w{0,5}$/.test(token) || token.includes("://") ? 0 : 2 });
  }
  return out;
}

/**
 * What a tool call ran: a shell command's first line (the argument named
 * `command`, `cmd` or `script` holding more than one word), else the tool's
 * name and its short scalar arguments in order, at most 200 characters.
 */
export function commandLine(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return firstLine(`${name} ${args}`);
  }
  const fields = parsed !== null && typeof parsed === "object" ? Object.entries(parsed as Record<string, unknown>) : [];
  for (const [key, value] of fields) {
    if ((key === "command" || key === "cmd" || key === "script") && typeof value === "string" && /\S\s+\S/.test(value.trim())) return firstLine(value);
  }
  const scalars = fields.map(([, v]) => v).filter((v): v is string | number => typeof v === "string" || typeof v === "number");
  return firstLine([name, ...scalars].join(" "));
}

function firstLine(text: string): string {
  return text.trim().split("\n", 1)[0]!.trim().slice(0, 200);
}
