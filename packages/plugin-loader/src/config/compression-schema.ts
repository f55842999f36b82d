import { CompressionConfigSchema } from "@context-engine/compressor";
import { z } from "zod";

/**
 * The `compression` block: the compressor's own schema (keys, defaults,
 * bounds), made strict here so a typo in config.yaml is reported instead of
 * silently ignored.
 */
export const CompressionSectionSchema = z.strictObject(CompressionConfigSchema.shape);
