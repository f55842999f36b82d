import { describe } from "vitest";
import type { StoreContractOptions } from "./factory.js";
import { conversationsContract } from "./conversations.js";
import { deferredIndexContract } from "./deferred-index.js";
import { frontierContract } from "./frontier.js";
import { messagesContract } from "./messages.js";
import { retentionContract } from "./retention.js";
import { searchContract } from "./search.js";
import { summariesContract } from "./summaries.js";

export type { OpenedStore, StoreContractOptions, StoreFeatures } from "./factory.js";

/** The LCM store contract: every driver runs the same suite from its factory. */
export function storeContract(options: StoreContractOptions): void {
  describe(`store contract: ${options.name}`, () => {
    conversationsContract(options);
    messagesContract(options);
    summariesContract(options);
    frontierContract(options);
    searchContract(options);
    retentionContract(options);
    deferredIndexContract(options);
  });
}
