// OpenClaw's own registry and per-turn engine selection: with the durable-turn
// declaration the configured engine serves the turn; without it OpenClaw
// degrades that turn to "legacy".
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine } from "../src/index.js";
import type { OpenClawContextEngine } from "../src/index.js";
import { NoopEngine } from "../test/engines.js";
import { openclawInternal } from "./internal.js";

type Register = (id: string, factory: () => unknown, owner: string, opts?: unknown) => unknown;
type Lease = { selectForHost(p: unknown): { registeredId: string; mode: string }; degraded: boolean; degradedReason?: string; dispose(): Promise<void> };
type CreateLease = (p: unknown) => Promise<Lease>;

async function selectFor(id: string, make: () => OpenClawContextEngine) {
  const register = await openclawInternal<Register>("registry", "registerContextEngineForOwner");
  const createLease = await openclawInternal<CreateLease>("context-engine-turn-attempt", "createContextEngineLogicalTurnLease");
  const host = await openclawInternal<object>("host-compat", "OPENCLAW_EMBEDDED_CONTEXT_ENGINE_HOST");
  register(id, make, `plugin:${id}`);
  const warnings: string[] = [];
  const lease = await createLease({
    config: { plugins: { slots: { contextEngine: id }, entries: { [id]: { enabled: true } } } },
    identity: { runId: `run-${id}`, sessionId: "s1" },
    warn: (m: string) => warnings.push(m),
  });
  const effective = lease.selectForHost({ host, operation: "agent-run", requiresDurableCommit: true });
  await lease.dispose();
  return { effective, lease, warnings };
}

describe("OpenClaw's own engine selection", () => {
  it("selects the adapter for a durable turn", async () => {
    const { effective, lease } = await selectFor("ce-noop", () => createOpenClawContextEngine({ id: "ce-noop", factory: () => new NoopEngine() }));
    expect(lease.degradedReason).toBeUndefined();
    expect(effective.registeredId).toBe("ce-noop");
  });

  it("degrades an engine without the durable-turn declaration to legacy (what the adapter avoids)", async () => {
    const { effective, lease } = await selectFor("ce-undeclared", () => {
      const engine = createOpenClawContextEngine({ id: "ce-undeclared", factory: () => new NoopEngine() });
      return { ...engine, info: { id: "ce-undeclared", name: "undeclared" } };
    });
    expect(lease.degraded).toBe(true);
    expect(effective.registeredId).toBe("legacy");
  });
});
