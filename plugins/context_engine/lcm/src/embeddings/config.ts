import { z } from "zod";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `engines.lcm.embeddings`: an OpenAI-compatible `/v1/embeddings` endpoint for hybrid retrieval.
 * Absent (the default): lcm_grep ranks by words alone and nothing is embedded.
 */
export const EmbeddingsConfigSchema = z.strictObject({
  /** The API root, as for chat models: `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1` (`/embeddings` is appended). */
  base_url: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL such as http://127.0.0.1:8080/v1" }),
  /** The model name sent with every request; stored with each vector (a new name re-embeds the history). */
  model: z.string().min(1, "a non-empty model name"),
  /** Vector size asked for (`dimensions` in the request) and required of every answer; the model's own size when unset. */
  dimensions: z.number().int().min(1).max(8192).optional(),
  /** The name of the environment variable holding the API key (sent as a Bearer token); none when unset. */
  api_key_env: z.string().regex(ENV_NAME, "an environment variable name").optional(),
  /** Texts per request. */
  batch_size: z.number().int().min(1).max(2048).default(32),
  /** One background request is given up after this long (then retried, see README). */
  timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
  /** How long lcm_grep waits for the query's vector before it answers by words alone. */
  query_timeout_ms: z.number().int().min(50).max(60_000).default(5_000),
  /**
   * How many times words outweigh vectors below the protected word head of the fused list (see search/hybrid-fusion.ts).
   * At 15 the vector part is worth at most 1/15 of the best word score: it breaks near-ties between word hits and
   * lets an item found only by meaning pass word hits weaker than that, never more.
   */
  lexical_weight: z.number().gt(0, "a number above 0").max(100).default(15),
  /** Leading word hits scoring at least this share of the best word score keep their places: vectors cannot demote them (every word hit, when the query names a date). */
  lexical_gate: z.number().min(0).max(1).default(0.25),
});

export type EmbeddingsConfig = z.output<typeof EmbeddingsConfigSchema>;
