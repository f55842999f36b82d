import { parseToolArguments, toolError, type ToolSchema } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import type { LcmToolContext } from "./context.js";
import { runDescribe } from "./describe.js";
import { runExpand } from "./expand.js";
import { runGrep } from "./grep.js";
import { DescribeArgsSchema, ExpandArgsSchema, GrepArgsSchema, LCM_TOOL_NAMES, LCM_TOOL_SCHEMAS, type LcmToolName } from "./schemas.js";

export type { LcmToolContext } from "./context.js";
export { LCM_TOOL_NAMES, LCM_TOOL_SCHEMAS, GrepArgsSchema, DescribeArgsSchema, ExpandArgsSchema, type LcmToolName } from "./schemas.js";
export { parseRef, messageRef } from "./refs.js";

/**
 * Fresh copies of the three tool schemas (callers may mutate them). `all_conversations` is offered
 * only when cross-conversation reads are enabled (config `cross_conversation`).
 */
export function lcmToolSchemas(options: { crossConversation?: boolean; semantic?: boolean } = {}): ToolSchema[] {
  return LCM_TOOL_SCHEMAS.map((s) => {
    const copy = structuredClone(s) as ToolSchema;
    const props = (copy.parameters as { properties?: Record<string, unknown> }).properties;
    if (!options.crossConversation && props) delete props.all_conversations;
    if (!options.semantic && props?.mode) props.mode = { type: "string", enum: ["full_text", "regex"], default: "full_text" };
    return copy;
  });
}

// The JSON schemas the model was shown: argument errors quote their descriptions and keys.
const PARAMETERS = Object.fromEntries(LCM_TOOL_SCHEMAS.map((s) => [s.name, s.parameters])) as Record<LcmToolName, ToolSchema["parameters"]>;

export function isLcmTool(name: string): name is LcmToolName {
  return (LCM_TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * Run one LCM tool. Arguments may be an object or a JSON string; the result
 * is always a JSON string (an `{ "error": … }` object on failure), never a throw.
 */
export async function handleLcmToolCall(store: LcmStoreDriver, name: string, args: unknown, context: LcmToolContext): Promise<string> {
  try {
    switch (name) {
      case "lcm_grep": {
        const p = parseToolArguments(name, GrepArgsSchema, args, PARAMETERS[name]);
        return p.ok ? await runGrep(store, p.data, context) : p.error;
      }
      case "lcm_describe": {
        const p = parseToolArguments(name, DescribeArgsSchema, args, PARAMETERS[name]);
        return p.ok ? await runDescribe(store, p.data, context) : p.error;
      }
      case "lcm_expand": {
        const p = parseToolArguments(name, ExpandArgsSchema, args, PARAMETERS[name]);
        return p.ok ? await runExpand(store, p.data, context) : p.error;
      }
      default:
        return toolError(`Unknown context engine tool: ${name}`);
    }
  } catch (error) {
    return toolError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
