import { factorByFirstChar, SECRET_SCREEN } from "@context-engine/core";

/**
 * One scan in front of the built-in rules: `false` means that no built-in
 * rule can match the text, so the rules are skipped. Most text is prose, code
 * and logs where words such as "token", "key" or "password" are common but a
 * secret is not, and running every rule on such text was most of the cost of
 * ingesting a message.
 *
 * It is built in `@context-engine/core` from each rule's `screen` (what every
 * match of the rule contains), so it stays a superset of the rules: a false
 * positive only costs time, a false negative would store a secret.
 * test/redact-prescreen.test.ts checks every rule's examples, and random text
 * built from their fragments, against it.
 */
export { factorByFirstChar, SECRET_SCREEN };

/** Whether any built-in rule could match `text` (false: none can). */
export function mayHoldSecret(text: string): boolean {
  return SECRET_SCREEN.test(text);
}
