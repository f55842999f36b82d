import type { z } from "zod";

/** A recorded-session file that could not be read: says which file, which field and what was expected. */
export class SessionFormatError extends Error {
  override readonly name = "SessionFormatError";
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(`${path}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.path = path;
  }

  /** Build from a zod error, naming the first few offending fields. */
  static fromZod(path: string, what: string, error: z.ZodError): SessionFormatError {
    const issues = error.issues.slice(0, 5).map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "(top level)";
      return `${where}: ${issue.message}`;
    });
    const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : "";
    return new SessionFormatError(path, `not a valid ${what} file: ${issues.join("; ")}${more}`);
  }
}
