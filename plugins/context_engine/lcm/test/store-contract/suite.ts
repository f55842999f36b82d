import { describe, it } from "vitest";
import type { StoreContractOptions } from "./factory.js";
import { conversationsContract } from "./conversations.js";
import { deferredIndexContract } from "./deferred-index.js";
import { frontierContract } from "./frontier.js";
import { messagesContract } from "./messages.js";
import { retentionContract } from "./retention.js";
import { searchContract } from "./search.js";
import { summariesContract } from "./summaries.js";

export type { OpenedStore, StoreContractOptions, StoreFeatures } from "./factory.js";

const CONCERNS = {
  conversations: conversationsContract,
  messages: messagesContract,
  summaries: summariesContract,
  frontier: frontierContract,
  search: searchContract,
  retention: retentionContract,
  deferredIndex: deferredIndexContract,
} as const;

export type ContractConcern = keyof typeof CONCERNS;

/**
 * The LCM store contract: every driver runs the same suite from its factory.
 * `concerns` limits it to what a driver in progress implements; the others are
 * listed as skipped, so the gap stays visible in every run.
 */
export function storeContract(options: StoreContractOptions & { concerns?: readonly ContractConcern[] }): void {
  describe(`store contract: ${options.name}`, () => {
    for (const [name, run] of Object.entries(CONCERNS) as Array<[ContractConcern, (o: StoreContractOptions) => void]>) {
      if (!options.concerns || options.concerns.includes(name)) run(options);
      else describe.skip(`${name} (not implemented by the ${options.name} driver yet)`, () => it("runs the concern", () => {}));
    }
  });
}
