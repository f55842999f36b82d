/**
 * One scan in front of the built-in rules: `false` means that no built-in
 * rule can match the text, so the rules (a dozen regexes plus their hints)
 * are skipped. Most text is prose, code and logs where words such as
 * "token", "key" or "password" are common but a secret is not, and running
 * every rule on such text was most of the cost of ingesting a message.
 *
 * It must stay a superset of every built-in rule in rules.ts: a false positive
 * only costs time, a false negative would store a secret. Each alternative is
 * what a match of its rule must contain (the rule without its word boundary
 * and optional tail, case folded), so whenever a rule matches, the screen
 * matches too. test/redact-prescreen.test.ts checks every rule's examples, and
 * random text built from their fragments, against it.
 */
const ALTERNATIVES = [
  // Fixed prefixes: private_key, aws_access_key, github_token, slack_token, google_api_key, stripe_key, jwt.
  "PRIVATE KEY",
  "AKIA", "ASIA", "ABIA", "ACCA",
  "gh[pousr]_", "github_pat_",
  "xox", "hooks\\.slack",
  "AIza",
  "_live_", "_test_",
  "eyJ",
  // openai_key, anthropic_key: "sk-" then 20 key characters (the "ant-"/"proj-" prefixes are key characters).
  "sk-[A-Za-z0-9_-]{20}",
  // bearer_token: "Bearer" / "Token" / "Basic", whitespace, 16 token characters.
  ...["earer", "oken", "asic"].map((w) => `${w}\\s+[A-Za-z0-9._~+/-]{16}`),
  // password_assignment and generic_api_key: a keyword, the rest of the word (any length), an optional
  // quote, then ":" or "=" (":=" and "=>" start with one of them).
  ...["access[_-]?token", "auth[_-]?token", "refresh[_-]?token", "private-token", "api[_-]?key", "private[_-]?key", "pass(?:word|wd|phrase)", "pwd", "secret"].map(
    (k) => `${k}\\w*["']?\\s*[:=]`,
  ),
  // saas_token: fixed prefixes; azure_key: the connection-string key names.
  "glpat-", "npm_", "pypi-", "hf_", "SG\\.", "_v1_", "shp", "key-", "dapi", "hv[sb]\\.", "lin_api_", "PMAK-", "glsa_", "gsk_", "r8_",
  "sk[a-f0-9]{32}", "ya29\\.", "AccountKey=", "SharedAccessKey=",
  // secret_assignment: "_key" / "token" (secret and password are above), an optional quote, ":" or "=".
  "key[\"']?\\s*[:=]", "token[\"']?\\s*[:=]",
  // url_password: "://user:secret@".
  ":\\/\\/[^\\s:/@\"'<>]{1,100}:[^\\s@/\"'<>]{1,200}@",
];

/**
 * `a1|a2|b1` as `a(?:1|2)|b1`, grouped by (case-folded) first character: V8 tries a regex's top-level
 * alternatives one by one at every position, so fewer of them scan faster. Each alternative must start
 * with a plain character (no escape, class or group), which holds for ALTERNATIVES.
 */
export function factorByFirstChar(alternatives: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const a of alternatives) {
    if (!/^[A-Za-z0-9_:]/.test(a)) throw new Error(`screen alternative must start with a plain character: ${a}`);
    const key = a[0]!.toLowerCase();
    const rests = groups.get(key) ?? [];
    rests.push(a.slice(1));
    groups.set(key, rests);
  }
  return [...groups].map(([c, rests]) => (rests.length === 1 ? c + rests[0] : `${c}(?:${rests.join("|")})`)).join("|");
}

/** The screen itself (no global or sticky flag, so `test` keeps no state). */
export const SECRET_SCREEN = new RegExp(factorByFirstChar(ALTERNATIVES), "i");

/** Whether any built-in rule could match `text` (false: none can). */
export function mayHoldSecret(text: string): boolean {
  return SECRET_SCREEN.test(text);
}
