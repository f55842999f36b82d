// Type tests (vitest typecheck mode): what an engine author and a host rely on at compile time.
import { describe, expectTypeOf, it } from "vitest";
import {
  ContextEngine,
  isContextEngine,
  overridesHook,
  type Awaitable,
  type CompressOptions,
  type EngineFactory,
  type EngineInitContext,
  type Message,
  type Role,
  type Usage,
} from "../src/index.js";

abstract class Base extends ContextEngine {
  get name(): string {
    return "typed";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(): boolean {
    return false;
  }
}

class SyncEngine extends Base {
  compress(messages: Message[]): Message[] {
    return messages;
  }
}

class AsyncEngine extends Base {
  async compress(messages: Message[], _options?: CompressOptions): Promise<Message[]> {
    return messages;
  }
}

describe("ContextEngine", () => {
  it("compress may return the list or a promise of it", () => {
    expectTypeOf<ContextEngine["compress"]>().returns.toEqualTypeOf<Awaitable<Message[]>>();
    expectTypeOf<SyncEngine["compress"]>().returns.toEqualTypeOf<Message[]>();
    expectTypeOf<AsyncEngine["compress"]>().returns.toEqualTypeOf<Promise<Message[]>>();
    expectTypeOf(new SyncEngine()).toMatchTypeOf<ContextEngine>();
    expectTypeOf(new AsyncEngine()).toMatchTypeOf<ContextEngine>();
  });

  it("compress may not return anything but a message list", () => {
    class WrongReturn extends Base {
      // @ts-expect-error a string is not a message list
      compress(): string {
        return "";
      }
    }
    expectTypeOf(WrongReturn).toBeConstructibleWith();
  });

  it("compress options are all optional and typed", () => {
    expectTypeOf<CompressOptions>().toEqualTypeOf<{
      currentTokens?: number;
      focusTopic?: string;
      force?: boolean;
      signal?: AbortSignal;
      memoryContext?: string;
      sessionId?: string;
      incomingMessage?: Message | null;
      budgetTokens?: number;
      messageTimes?: readonly (number | null)[];
    }>();
    expectTypeOf<Parameters<ContextEngine["compress"]>>().toEqualTypeOf<[messages: Message[], options?: CompressOptions]>();
  });

  it("the optional hooks default to no-ops with the documented signatures", () => {
    expectTypeOf<ContextEngine["selectContext"]>().returns.toEqualTypeOf<Awaitable<Message[] | null | undefined>>();
    expectTypeOf<ContextEngine["onTurnComplete"]>().returns.toEqualTypeOf<Awaitable<void>>();
    expectTypeOf<ContextEngine["onTurnComplete"]>().parameter(0).toEqualTypeOf<readonly Message[]>();
    expectTypeOf(overridesHook).parameter(1).toEqualTypeOf<"selectContext" | "onTurnComplete">();
  });

  it("an engine factory builds a ContextEngine from an init context", () => {
    expectTypeOf<EngineFactory>().parameter(0).toEqualTypeOf<EngineInitContext>();
    expectTypeOf<EngineFactory>().returns.toEqualTypeOf<ContextEngine>();
  });
});

describe("isContextEngine", () => {
  it("narrows unknown to ContextEngine", () => {
    const value: unknown = new SyncEngine();
    if (isContextEngine(value)) {
      expectTypeOf(value).toEqualTypeOf<ContextEngine>();
      expectTypeOf(value.compress).returns.toEqualTypeOf<Awaitable<Message[]>>();
    } else {
      expectTypeOf(value).toEqualTypeOf<unknown>();
    }
  });

  it("keeps a narrower union member", () => {
    const value = new AsyncEngine() as AsyncEngine | string;
    if (isContextEngine(value)) expectTypeOf(value).toEqualTypeOf<AsyncEngine>();
    else expectTypeOf(value).toEqualTypeOf<string>();
  });
});

describe("messages", () => {
  it("narrow by role", () => {
    const m = {} as Message;
    expectTypeOf<Role>().toEqualTypeOf<Message["role"]>();
    if (m.role === "tool") expectTypeOf(m.tool_call_id).toEqualTypeOf<string>();
    if (m.role === "assistant") expectTypeOf(m).toHaveProperty("tool_calls");
  });
});
