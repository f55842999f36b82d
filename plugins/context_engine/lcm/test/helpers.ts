import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { openLcmStore } from "../src/store/index.js";
import type { LcmStore, OpenStoreOptions } from "../src/store/types.js";

/** A real SQLite file in a fresh temp dir; `cleanup()` closes and removes it. */
export function tempStore(options: OpenStoreOptions = {}): { store: LcmStore; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "lcm-test-"));
  const store = openLcmStore({ dataDir: dir, ...options });
  return {
    store,
    dir,
    cleanup: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sys = (content: string): Message => ({ role: "system", content });
export const user = (content: string): Message => ({ role: "user", content });
export const asst = (content: string | null): Message => ({ role: "assistant", content });
export const call = (id: string, name: string, args: Record<string, unknown>, content: string | null = null): Message =>
  ({ role: "assistant", content, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }) as Message;
export const result = (id: string, content: string): Message => ({ role: "tool", tool_call_id: id, content });
