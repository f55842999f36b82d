import { z } from "zod";

/**
 * PROVISIONAL copy of the compressor's `compression` block schema, used until
 * `@context-engine/compressor` exports `CompressionConfigSchema`. Keys and
 * defaults follow the agreed config.yaml layout.
 */
export const CompressionSectionSchema = z.strictObject({
  threshold: z.number().gt(0).lte(1).default(0.75),
  protect_first_n: z.int().min(0).default(3),
  protect_last_n: z.int().min(0).default(6),
  summary_target_ratio: z.number().gt(0).lt(1).default(0.2),
  model_thresholds: z.record(z.string().min(1), z.number().gt(0).lte(1)).default({}),
  summary_model: z.string().min(1).optional(),
  context_timeout_seconds: z.number().min(0).default(120),
});
