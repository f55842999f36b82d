import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens } from "../util.js";

export function registerLifecycleContinues(h: Harness): void {
  // onSessionEnd marks a session boundary, not the engine's disposal: after every committed
  // compaction the host ends the old session and starts the next one on the same instance.
  it("keeps compacting after the mid-session boundary (a forced pass that shrank before still shrinks)", async () => {
    const engine = await h.create({ contextLength: h.compactionContextLength });
    const oldId = newSessionId("cont-old");
    const newId = newSessionId("cont-new");
    await startSession(h, engine, oldId);
    const pre = cloneMessages(fixtures.codingSession.messages.slice(0, 30));
    engine.updateFromResponse(usageFor(pre));
    const compacted = await engine.compress(pre, { sessionId: oldId, currentTokens: countTokens(pre), force: true });
    if (countTokens(compacted) >= countTokens(pre)) return; // it did not compact this list: other checks report that
    await engine.onSessionEnd(oldId, pre);
    await engine.onSessionStart(newId, { boundaryReason: "compression", oldSessionId: oldId, platform: "contract-tests", model: h.model });
    const history = [...compacted, ...cloneMessages(fixtures.codingSession.messages.slice(30))];
    engine.updateFromResponse(usageFor(history));
    const after = await engine.compress(history, { sessionId: newId, currentTokens: countTokens(history), force: true });
    expect(
      countTokens(after) < countTokens(history),
      `a forced compress after onSessionEnd(old) → onSessionStart(new, boundaryReason "compression") returned ${countTokens(after)} of ${countTokens(history)} tokens: onSessionEnd ends a session, not the engine; keep the model, stores and settings usable for the next session`,
    ).toBe(true);
  }, h.timeout);
}
