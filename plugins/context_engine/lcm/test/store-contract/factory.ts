import type { LcmStoreDriver, OpenStoreOptions } from "../../src/store/types.js";

/**
 * What a driver declares it can do beyond the common contract. A concern
 * that needs a feature is skipped (visibly, as a skipped test) for a driver
 * without it, instead of the suite special-casing drivers.
 */
export interface StoreFeatures {
  /** CJK and one/two-character substring search through a trigram index. */
  trigram: boolean;
  /** Regex scans narrowed by a required word through the full-text index. */
  regexNarrowing: boolean;
  /** `ingest(…, { index: "deferred" })` queues rows for `indexPending`. */
  deferredIndex: boolean;
}

export interface OpenedStore {
  store: LcmStoreDriver;
  /** Close the handle and open a fresh one on the same database (a process restart); `store` is then the new one. */
  reopen(): Promise<LcmStoreDriver>;
  /** A second handle on the same store (another connection or pool, as a second process has); closed by `dispose`. */
  again(): Promise<LcmStoreDriver>;
  /** Close the store and remove everything it wrote (file, schema). */
  dispose(): Promise<void>;
}

export interface StoreContractOptions {
  /** Driver name, shown in every test title. */
  name: string;
  features: StoreFeatures;
  /** A fresh, empty store per call (the suite calls it once per test). */
  open(options?: Pick<OpenStoreOptions, "redaction" | "payloadThresholdBytes">): Promise<OpenedStore>;
}

/** A fresh store per test, disposed after it. */
export function storeScope(options: StoreContractOptions) {
  const opened: OpenedStore[] = [];
  return {
    async open(extra?: Parameters<StoreContractOptions["open"]>[0]): Promise<LcmStoreDriver> {
      const o = await options.open(extra);
      opened.push(o);
      return o.store;
    },
    /** Restart: a fresh handle on the database `store` was opened on. */
    async reopen(store: LcmStoreDriver): Promise<LcmStoreDriver> {
      const o = opened.find((x) => x.store === store);
      if (!o) throw new Error("reopen: not a store of this scope");
      return o.reopen();
    },
    /** A second handle on the store `open` returned last. */
    async again(): Promise<LcmStoreDriver> {
      return opened[opened.length - 1]!.again();
    },
    async disposeAll(): Promise<void> {
      for (const o of opened.splice(0)) await o.dispose();
    },
  };
}
