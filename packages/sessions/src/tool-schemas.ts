import { isPlainObject, toolCallsOf, type Message } from "@context-engine/core";

/** The single tool a mini-swe-agent run has: one bash command per step. */
export const BASH_TOOL: Record<string, unknown> = Object.freeze({
  type: "function",
  function: {
    name: "bash",
    description: "Run one bash command (commands may be chained with && or ||) and return its exit code and output.",
    parameters: {
      type: "object",
      properties: { command: { type: "string", description: "The command to run." } },
      required: ["command"],
    },
  },
});

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * OpenAI function tools reconstructed from the calls in a conversation, for
 * formats that record calls but not the schemas. Each parameter gets the JSON
 * types it was seen with; parameters used in every call are `required`.
 * Descriptions say the schema was inferred.
 */
export function inferToolSchemas(messages: readonly Message[]): Array<Record<string, unknown>> {
  const tools = new Map<string, { calls: number; props: Map<string, { types: Set<string>; count: number }> }>();
  for (const message of messages) {
    for (const call of toolCallsOf(message)) {
      const name = call.function?.name;
      if (!name) continue;
      let tool = tools.get(name);
      if (!tool) tools.set(name, (tool = { calls: 0, props: new Map() }));
      tool.calls++;
      let args: unknown;
      try {
        args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
      } catch {
        continue;
      }
      if (!isPlainObject(args)) continue;
      for (const [key, value] of Object.entries(args)) {
        let prop = tool.props.get(key);
        if (!prop) tool.props.set(key, (prop = { types: new Set(), count: 0 }));
        prop.count++;
        prop.types.add(jsonType(value));
      }
    }
  }
  return [...tools].map(([name, tool]) => {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const [key, prop] of tool.props) {
      const types = [...prop.types];
      properties[key] = { type: types.length === 1 ? types[0] : types };
      if (prop.count === tool.calls) required.push(key);
    }
    return {
      type: "function",
      function: {
        name,
        description: `${name} (schema inferred from ${tool.calls} recorded call${tool.calls === 1 ? "" : "s"})`,
        parameters: { type: "object", properties, ...(required.length ? { required } : {}) },
      },
    };
  });
}
