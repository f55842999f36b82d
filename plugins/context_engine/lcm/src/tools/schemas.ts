import type { ToolSchema } from "@context-engine/core";
import { z } from "zod";

/** Tool names this package handles. */
export const LCM_TOOL_NAMES = ["lcm_grep", "lcm_describe", "lcm_expand"] as const;
export type LcmToolName = (typeof LCM_TOOL_NAMES)[number];

const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), "an ISO 8601 date or date-time such as 2026-03-01 or 2026-03-01T14:00:00Z");

export const GrepArgsSchema = z.strictObject({
  query: z.string().min(1, "a non-empty query").max(500),
  mode: z.enum(["full_text", "regex", "semantic"]).default("full_text"),
  scope: z.enum(["messages", "summaries", "both"]).default("both"),
  all_conversations: z.boolean().default(false),
  roles: z.array(z.enum(ROLES)).max(5).optional(),
  since: isoDate.optional(),
  before: isoDate.optional(),
  sort: z.enum(["relevance", "recency"]).default("relevance"),
  limit: z.number().int().min(1).max(50).default(10),
  cursor: z.string().max(2000).optional(),
  ignore_case: z.boolean().default(true),
  recency_boost: z.number().min(0).max(1).default(0),
  exclude_in_context: z.boolean().default(false),
});

export const DescribeArgsSchema = z.strictObject({
  id: z.union([z.string().min(1).max(100), z.number().int().positive()]),
  all_conversations: z.boolean().default(false),
});

export const ExpandArgsSchema = z.strictObject({
  id: z.union([z.string().min(1).max(100), z.number().int().positive()]),
  max_tokens: z.number().int().min(100).max(50_000).default(4000),
  cursor: z.string().max(2000).optional(),
  around: z.number().int().min(0).max(20).default(0),
  all_conversations: z.boolean().default(false),
});

const idProperty = {
  oneOf: [{ type: "string" }, { type: "integer", minimum: 1 }],
  description: "A summary id (sum_…) or a message ref (msg_123) as returned by lcm_grep, lcm_describe or a summary header.",
};

/** JSON Schemas as the model sees them (kept in step with the zod schemas above by a test). */
export const LCM_TOOL_SCHEMAS: readonly ToolSchema[] = [
  {
    name: "lcm_grep",
    description:
      "Search the full stored history of this conversation, including everything compacted out of your context: " +
      "messages, tool calls, tool results and summaries. full_text mode ranks every match by relevance (BM25, any word counts, rarer words weigh more, " +
      'common and question words are ignored, word endings folded) and finds Chinese, Japanese and Korean text; write the question or a few distinctive words; ' +
      '"exact phrases", prefix*, -excluded, and upper-case AND / OR / NOT work. regex mode (RE2 syntax: no lookaround or backreferences) scans newest-first ' +
      "within a time bound and returns a cursor to continue. " +
      "Hits give a ref (msg_… or sum_…) for lcm_describe / lcm_expand, and coveredBy: the summaries that hold a compacted message.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words or a question (full_text), or an RE2 regular expression (regex)." },
        mode: {
          type: "string",
          enum: ["full_text", "regex", "semantic"],
          default: "full_text",
          description: "semantic (only with an embedding provider): rank by meaning alone; full_text then also fuses meaning with the words.",
        },
        scope: { type: "string", enum: ["messages", "summaries", "both"], default: "both" },
        all_conversations: { type: "boolean", default: false, description: "Search every stored conversation, not only this one." },
        roles: { type: "array", items: { type: "string", enum: [...ROLES] }, description: "Only messages with these roles." },
        since: { type: "string", description: "Only messages at or after this ISO date/time." },
        before: { type: "string", description: "Only messages before this ISO date/time." },
        sort: { type: "string", enum: ["relevance", "recency"], default: "relevance" },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
        cursor: { type: "string", description: "nextCursor from the previous page of the same query." },
        ignore_case: { type: "boolean", default: true, description: "regex mode only." },
        recency_boost: { type: "number", minimum: 0, maximum: 1, default: 0, description: "Relevance sort: favour newer matches (0 none, 1 the newest counts double)." },
        exclude_in_context: { type: "boolean", default: false, description: "Leave out matches already in your current context." },
      },
      required: ["query"],
      additionalProperties: false,
    },
  },
  {
    name: "lcm_describe",
    description:
      "Describe a summary or a stored message without expanding it: kind and depth, time span, token counts, how many original messages it covers, " +
      "its lineage (child summaries or source messages, and the summaries above it) and whether it is in your current context.",
    parameters: {
      type: "object",
      properties: {
        id: idProperty,
        all_conversations: { type: "boolean", default: false, description: "Allow ids from other conversations." },
      },
      required: ["id"],
      additionalProperties: false,
    },
  },
  {
    name: "lcm_expand",
    description:
      "Recover the original messages under a summary (or one message with its neighbours), verbatim, oldest first, within max_tokens. " +
      "If more remains, the result has nextCursor: call again with the same id and that cursor to read on. Use before quoting exact values from a summary.",
    parameters: {
      type: "object",
      properties: {
        id: idProperty,
        max_tokens: { type: "integer", minimum: 100, maximum: 50000, default: 4000 },
        cursor: { type: "string", description: "nextCursor from the previous call with the same id." },
        around: { type: "integer", minimum: 0, maximum: 20, default: 0, description: "For a message: also include this many messages before and after it." },
        all_conversations: { type: "boolean", default: false, description: "Allow ids from other conversations." },
      },
      required: ["id"],
      additionalProperties: false,
    },
  },
];
