import { z } from "zod";
import { BUILTIN_SECRET_KINDS } from "@context-engine/core";
import type { RedactionConfig } from "./types.js";

const kinds = BUILTIN_SECRET_KINDS as unknown as [string, ...string[]];

/** `engines.lcm.redaction` in config.yaml (snake_case on the outside). */
export const RedactionConfigSchema = z
  .union([
    z.boolean(),
    z.strictObject({
      enabled: z.boolean().default(true),
      disable: z.array(z.enum(kinds)).default([]),
      extra: z
        .array(
          z.strictObject({
            kind: z.string().regex(/^[a-z][a-z0-9_]{0,40}$/, "a lowercase kind name such as internal_token"),
            pattern: z.string().min(1),
            flags: z.string().regex(/^[imsuy]*$/, "regular-expression flags among i, m, s, u, y").optional(),
          }),
        )
        .default([]),
      allow: z.array(z.string()).default([]),
    }),
  ])
  .default(true);

/** Turn the parsed config block into the redactor's options. */
export function toRedactionConfig(parsed: z.infer<typeof RedactionConfigSchema>): RedactionConfig | false {
  if (parsed === false) return false;
  if (parsed === true) return {};
  return parsed as RedactionConfig;
}
