/**
 * One scan in front of the built-in rules: `false` means that no built-in
 * rule can match the text, so the rules (a dozen regexes plus their hints)
 * are skipped. Most text is prose, code and logs where words such as
 * "token", "key" or "password" are common but a secret is not, and running
 * every rule on such text was most of the cost of ingesting a message.
 *
 * It must stay a superset of every built-in rule in rules.ts: a false positive
 * only costs time, a false negative would store a secret. Each alternative is
 * what a match of its rules must contain (the rule without its word boundary,
 * its lookbehind-free prefix or its optional tail, case folded), so whenever a
 * rule matches, the screen matches too. test/redact-prescreen.test.ts checks
 * every rule's examples, and random text, against it.
 */
const SCREEN = new RegExp(
  [
    // Fixed prefixes: private_key, aws_access_key, github_token, slack_token, google_api_key, stripe_key, jwt.
    "PRIVATE KEY",
    "AKIA|ASIA|ABIA|ACCA",
    "gh[pousr]_|github_pat_",
    "xox|hooks\\.slack",
    "AIza",
    "_live_|_test_",
    "eyJ",
    // openai_key, anthropic_key: "sk-" then 20 key characters (the "ant-"/"proj-" prefixes are key characters).
    "sk-[A-Za-z0-9_-]{20}",
    // bearer_token: "Bearer" / "Token" / "Basic", whitespace, 16 token characters.
    "(?:earer|oken|asic)\\s+[A-Za-z0-9._~+/-]{16}",
    // password_assignment and generic_api_key: a keyword, the rest of the word (any length), an optional
    // quote, then ":" or "=" (":=" and "=>" start with one of them).
    "(?:(?:access|auth|refresh)[_-]?token|private-token|(?:api|private)[_-]?key|pass(?:word|wd|phrase)|pwd|secret)\\w*[\"']?\\s*[:=]",
    // url_password: "://user:secret@".
    ":\\/\\/[^\\s:/@\"'<>]{1,100}:[^\\s@/\"'<>]{1,200}@",
  ].join("|"),
  "i",
);

/** Whether any built-in rule could match `text` (false: none can). */
export function mayHoldSecret(text: string): boolean {
  return SCREEN.test(text);
}
