import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgent, HumanMessage } from "langchain";
import { ContextEngine } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { contextEngineMiddleware } from "../src/index.js";
import type { AdapterEvent } from "../src/index.js";
import { answer, fakeModel } from "./helpers.js";

/** An engine factory that fails for some threads never reaches the host app as an error. */

class Inert extends ContextEngine {
  get name() {
    return "inert";
  }
  updateFromResponse() {}
  shouldCompress() {
    return false;
  }
  compress(messages: Message[]) {
    return messages;
  }
}

const SECRET = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0123456789";

describe("an engine factory that throws for a later thread", () => {
  it("the model call goes on, the failure is an event (redacted), the factory is asked again next time", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }), fc.constantFrom("throw", "garbage"), async (fails, how) => {
        let call = 0;
        const factory = () => {
          const fail = call > 0 && fails[(call - 1) % fails.length];
          call++;
          if (!fail) return new Inert();
          if (how === "throw") throw new Error(`no store for this thread (token ${SECRET})`);
          return { not: "an engine" } as unknown as ContextEngine;
        };
        const events: AdapterEvent[] = [];
        const model = fakeModel();
        for (let i = 0; i < fails.length; i++) model.respond(answer(`answer ${i}`));
        const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine: factory, contextLength: 10_000, onEvent: (e) => events.push(e) })] });
        for (let i = 0; i < fails.length; i++) {
          const out = await agent.invoke({ messages: [new HumanMessage(`q${i}`)] }, { configurable: { thread_id: `t${i}` } });
          expect(out.messages.at(-1)?.content).toBe(`answer ${i}`);
        }
        const failures = events.filter((e) => e.type === "hook.failed" && e.hook === "engineFactory");
        expect(JSON.stringify(events)).not.toContain(SECRET);
        // Thread i > 0 is built by factory call i, which fails when fails[i - 1] is set.
        expect(failures.length).toBe(fails.slice(0, -1).filter(Boolean).length);
      }),
      { numRuns: 20 },
    );
  });

  it("with a fallback, the failing thread is served by it", async () => {
    let call = 0;
    const factory = () => {
      if (call++ > 0) throw new Error("second thread refused");
      return new Inert();
    };
    let fallbackAsked = 0;
    const fallback = new (class extends Inert {
      override get name() {
        return "backup";
      }
      override shouldCompress() {
        fallbackAsked++;
        return false;
      }
    })();
    const events: AdapterEvent[] = [];
    const model = fakeModel().respond(answer("one")).respond(answer("two"));
    const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine: factory, fallback, contextLength: 10_000, onEvent: (e) => events.push(e) })] });
    await agent.invoke({ messages: [new HumanMessage("a")] }, { configurable: { thread_id: "first" } });
    const out = await agent.invoke({ messages: [new HumanMessage("b")] }, { configurable: { thread_id: "second" } });
    expect(out.messages.at(-1)?.content).toBe("two");
    expect(events.some((e) => e.type === "fallback" && e.sessionId === "second" && /engine factory failed/.test(e.reason))).toBe(true);
    expect(fallbackAsked).toBeGreaterThan(0);
  });
});
