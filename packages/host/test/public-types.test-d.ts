// Type tests (vitest typecheck mode): host events narrow by `type`, subscriptions are typed per event.
import type { ChatModel, ContextEngine, EngineFactory, Message, Usage } from "@context-engine/core";
import { describe, expectTypeOf, it } from "vitest";
import {
  AgentHost,
  type AgentHostOptions,
  type CompactionCommittedEvent,
  type HostEvent,
  type HostEventListener,
  type HostEventOf,
  type HostEventType,
  type TurnCompletedEvent,
  type TurnResult,
} from "../src/index.js";

describe("host events", () => {
  it("narrow by type in a catch-all listener", () => {
    const listener = (event: HostEvent) => {
      if (event.type === "compaction.committed") {
        expectTypeOf(event).toEqualTypeOf<CompactionCommittedEvent>();
        expectTypeOf(event.tokensAfter).toEqualTypeOf<number>();
      } else if (event.type === "turn.completed") {
        expectTypeOf(event.usage).toEqualTypeOf<Usage | null>();
        expectTypeOf(event.finalMessage).toEqualTypeOf<Message | null>();
      } else if (event.type === "hook.failed") {
        expectTypeOf(event.reason).toEqualTypeOf<"threw" | "timeout" | "invalid_result" | "skipped">();
      }
      expectTypeOf(event.sessionId).toEqualTypeOf<string>();
      expectTypeOf(event.at).toEqualTypeOf<number>();
    };
    expectTypeOf(listener).toMatchTypeOf<NonNullable<AgentHostOptions["onEvent"]>>();
  });

  it("HostEventOf picks one member; the union of types is exact", () => {
    expectTypeOf<HostEventOf<"turn.completed">>().toEqualTypeOf<TurnCompletedEvent>();
    expectTypeOf<HostEventType>().toEqualTypeOf<HostEvent["type"]>();
    expectTypeOf<"compaction.committed">().toMatchTypeOf<HostEventType>();
    expectTypeOf<"no.such.event">().not.toMatchTypeOf<HostEventType>();
  });

  it("host.on types the listener by the event it subscribes to", () => {
    expectTypeOf<AgentHost["on"]>().toBeFunction();
    const host = {} as AgentHost;
    host.on("compaction.committed", (event) => {
      expectTypeOf(event).toEqualTypeOf<CompactionCommittedEvent>();
    });
    // @ts-expect-error an unknown event name
    host.on("compaction.done", () => {});
    expectTypeOf<HostEventListener<"turn.completed">>().parameter(0).toEqualTypeOf<TurnCompletedEvent>();
    expectTypeOf(host.on("turn.started", () => {})).toEqualTypeOf<() => void>();
  });
});

describe("AgentHost options", () => {
  it("take an engine or a factory, and a chat model", () => {
    expectTypeOf<AgentHostOptions["engine"]>().toEqualTypeOf<ContextEngine | undefined>();
    expectTypeOf<AgentHostOptions["engineFactory"]>().toEqualTypeOf<EngineFactory | undefined>();
    expectTypeOf<AgentHostOptions["chatModel"]>().toEqualTypeOf<ChatModel>();
    expectTypeOf<TurnResult>().not.toBeAny();
  });
});
