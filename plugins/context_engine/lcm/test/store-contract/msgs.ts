import type { Message } from "@context-engine/core";

export const sys = (content: string): Message => ({ role: "system", content });
export const user = (content: string): Message => ({ role: "user", content });
export const asst = (content: string | null): Message => ({ role: "assistant", content });
export const call = (id: string, name: string, args: Record<string, unknown>): Message =>
  ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }) as Message;
export const result = (id: string, content: string): Message => ({ role: "tool", tool_call_id: id, content });
