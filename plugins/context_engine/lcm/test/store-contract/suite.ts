import { describe } from "vitest";
import type { StoreContractOptions } from "./factory.js";
import { conversationsContract } from "./conversations.js";
import { deferredIndexContract } from "./deferred-index.js";
import { frontierContract } from "./frontier.js";
import { messagesContract } from "./messages.js";
import { repeatsContract } from "./repeats.js";
import { retentionContract } from "./retention.js";
import { searchContract } from "./search.js";
import { searchInputContract } from "./search-input.js";
import { searchParityContract } from "./search-parity.js";
import { searchQuestionTurnsContract } from "./search-question-turns.js";
import { searchSpeakerContract } from "./search-speaker.js";
import { summariesContract } from "./summaries.js";
import { summaryBatchContract } from "./summary-batch.js";
import { transferContract } from "./transfer.js";

export type { OpenedStore, StoreContractOptions, StoreFeatures } from "./factory.js";

const CONCERNS = {
  conversations: conversationsContract,
  messages: messagesContract,
  repeats: repeatsContract,
  summaries: summariesContract,
  summaryBatch: summaryBatchContract,
  frontier: frontierContract,
  search: searchContract,
  searchParity: searchParityContract,
  searchInput: searchInputContract,
  searchSpeaker: searchSpeakerContract,
  searchQuestionTurns: searchQuestionTurnsContract,
  retention: retentionContract,
  deferredIndex: deferredIndexContract,
  transfer: transferContract,
} as const;

/** The LCM store contract: every driver runs the same suite from its factory, one concern per file. */
export function storeContract(options: StoreContractOptions): void {
  describe(`store contract: ${options.name}`, () => {
    for (const run of Object.values(CONCERNS) as Array<(o: StoreContractOptions) => void>) run(options);
  });
}
