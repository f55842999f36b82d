import { RE2JS } from "re2js";

/**
 * Regular expressions for lcm_grep, through RE2 (the `re2js` port): matching
 * time is linear in the input for every pattern, so nothing the model types
 * can backtrack catastrophically. What RE2 does not support (backreferences,
 * lookahead and lookbehind) is refused with a message that says so.
 */
export interface SafeRegex {
  readonly pattern: string;
  /** re2js flags the pattern was compiled with. */
  readonly flags: number;
  /** First match in `text`, or null (on this thread: unbounded in time; see regex-runner.ts). */
  find(text: string): { index: number; length: number } | null;
}

/** Longest pattern accepted. */
export const MAX_PATTERN_CHARS = 500;

export function compileSafeRegex(pattern: string, ignoreCase: boolean): SafeRegex {
  if (pattern.length === 0) throw new Error("regex: the pattern is empty");
  if (pattern.length > MAX_PATTERN_CHARS) throw new Error(`regex: the pattern is longer than ${MAX_PATTERN_CHARS} characters`);
  if (/\(\?<?[=!]/.test(pattern)) {
    throw new Error("regex: lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported (RE2 syntax, linear-time matching)");
  }
  if (/\\[1-9]|\\k</.test(pattern)) throw new Error("regex: backreferences are not supported (RE2 syntax, linear-time matching)");
  let re: RE2JS;
  const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  try {
    re = RE2JS.compile(pattern, flags);
  } catch (error) {
    throw new Error(`regex: invalid pattern (RE2 syntax): ${(error as Error).message}`);
  }
  return {
    pattern,
    flags,
    find(text) {
      const m = re.matcher(text);
      if (!m.find()) return null;
      return { index: m.start(), length: m.end() - m.start() };
    },
  };
}
