// Type tests (vitest typecheck mode): the kit's public API as an engine author compiles against it.
import type { ContextEngine, EngineInitContext } from "@context-engine/core";
import { describe, expectTypeOf, it } from "vitest";
import {
  CONTRACT_DOMAINS,
  allFixtures,
  cloneMessages,
  createScriptedChatModel,
  describeContextEngineContract,
  exampleArguments,
  fixtures,
  type ContractDomain,
  type ContractEngineContext,
  type ContractOptions,
  type ConversationFixture,
  type EngineCapabilities,
  type FixtureName,
  type ScriptedChatModel,
} from "../src/index.js";
import * as fixturesEntry from "../src/fixtures.js";

describe("describeContextEngineContract", () => {
  it("takes ContractOptions and registers suites (returns nothing)", () => {
    expectTypeOf(describeContextEngineContract).parameters.toEqualTypeOf<[options: ContractOptions]>();
    expectTypeOf(describeContextEngineContract).returns.toEqualTypeOf<void>();
  });

  it("createEngine gets a context with every field set and may be async", () => {
    expectTypeOf<ContractOptions["createEngine"]>().parameter(0).toEqualTypeOf<ContractEngineContext>();
    expectTypeOf<ContractOptions["createEngine"]>().returns.toEqualTypeOf<ContextEngine | Promise<ContextEngine>>();
    expectTypeOf<ContractEngineContext>().toMatchTypeOf<EngineInitContext>();
    expectTypeOf<ContractEngineContext["dataDir"]>().toEqualTypeOf<string>();
    expectTypeOf<ContractEngineContext["contextLength"]>().toEqualTypeOf<number>();
  });

  it("options: capabilities, domains and todo are typed", () => {
    expectTypeOf<NonNullable<ContractOptions["capabilities"]>>().toEqualTypeOf<EngineCapabilities>();
    expectTypeOf<keyof EngineCapabilities>().toEqualTypeOf<"tools" | "selectContext" | "onTurnComplete" | "persistence" | "ownsThresholdPolicy" | "synchronous" | "concurrentSessions">();
    expectTypeOf<NonNullable<ContractOptions["domains"]>>().toEqualTypeOf<Partial<Record<ContractDomain, boolean>>>();
    expectTypeOf(CONTRACT_DOMAINS).toEqualTypeOf<readonly ContractDomain[]>();
    expectTypeOf<NonNullable<ContractOptions["todo"]>>().toEqualTypeOf<readonly string[]>();
    // @ts-expect-error an unknown domain name
    const bad: ContractOptions["domains"] = { compression: false };
    void bad;
  });

  it("a minimal call compiles; a missing createEngine does not", () => {
    expectTypeOf<{ name: string; createEngine: (ctx: ContractEngineContext) => ContextEngine }>().toMatchTypeOf<ContractOptions>();
    expectTypeOf<{ name: string }>().not.toMatchTypeOf<ContractOptions>();
  });
});

describe("fixtures", () => {
  it("the root entry re-exports the vitest-free fixtures entry", () => {
    expectTypeOf(fixturesEntry.fixtures).toEqualTypeOf(fixtures);
    expectTypeOf(fixturesEntry.cloneMessages).toEqualTypeOf(cloneMessages);
  });

  it("named fixtures are conversation fixtures", () => {
    expectTypeOf(fixtures.codingSession).toMatchTypeOf<ConversationFixture>();
    expectTypeOf<FixtureName>().toEqualTypeOf<keyof typeof fixtures>();
    expectTypeOf(allFixtures).returns.toEqualTypeOf<ConversationFixture[]>();
    expectTypeOf(cloneMessages(fixtures.codingSession.messages)).toEqualTypeOf<ReturnType<typeof cloneMessages>>();
  });

  it("scripted chat model and example arguments", () => {
    expectTypeOf(createScriptedChatModel()).toEqualTypeOf<ScriptedChatModel>();
    expectTypeOf(exampleArguments).returns.toEqualTypeOf<Record<string, unknown>>();
  });
});
