/**
 * JavaScript regexes cannot be interrupted, so a catastrophic pattern would
 * freeze the process. Reject the known shapes of catastrophic backtracking
 * (nested quantifiers, quantified groups with alternation, backreferences)
 * and overlong patterns before compiling.
 */
export function compileSafeRegex(pattern: string, ignoreCase: boolean): RegExp {
  if (pattern.length === 0) throw new Error("regex: the pattern is empty");
  if (pattern.length > 500) throw new Error("regex: the pattern is longer than 500 characters");
  if (/\\[1-9]|\\k</.test(pattern)) throw new Error("regex: backreferences are not allowed");
  // A group containing a quantifier, itself quantified: (a+)+, (\w*x)*, (?:a|b+){2,}
  if (/\((?:\?[:=!<]?[^()]*)?[^()]*[+*}][^()]*\)\s*(?:[+*]|\{\d+,?\d*\})/.test(pattern)) {
    throw new Error("regex: nested quantifiers like (a+)+ are not allowed (catastrophic backtracking)");
  }
  if (/\([^()]*\|[^()]*\)\s*(?:[+*]|\{\d+,\d*\})/.test(pattern)) {
    throw new Error("regex: a repeated group with alternatives like (a|ab)* is not allowed (catastrophic backtracking)");
  }
  try {
    return new RegExp(pattern, ignoreCase ? "iu" : "u");
  } catch {
    try {
      return new RegExp(pattern, ignoreCase ? "i" : "");
    } catch (error) {
      throw new Error(`regex: invalid pattern: ${(error as Error).message}`);
    }
  }
}
