import { SqliteLcmStore } from "../store/sqlite/store.js";
import type { LcmStoreDriver } from "../store/types.js";
import { SqliteVectorIndex } from "./sqlite-vectors.js";
import type { VectorIndex } from "./vectors.js";

/** One vector index per open store (engines sharing a pooled store share it), prepared once. */
const indexes = new WeakMap<object, Promise<VectorIndex>>();

/** The vector index beside `store`'s tables, its table created on first use. */
export function vectorIndexOf(store: LcmStoreDriver): Promise<VectorIndex> {
  let index = indexes.get(store);
  if (!index) {
    index = create(store);
    indexes.set(store, index);
    // A failed preparation (store closed meanwhile) is tried again next time.
    index.catch(() => indexes.delete(store));
  }
  return index;
}

async function create(store: LcmStoreDriver): Promise<VectorIndex> {
  let index: VectorIndex;
  if (store instanceof SqliteLcmStore) index = new SqliteVectorIndex(SqliteLcmStore.handleOf(store));
  else {
    // Loaded only for a PostgreSQL store, as the driver itself is.
    const { PostgresLcmStore } = await import("../store/postgres/store.js");
    if (!(store instanceof PostgresLcmStore)) throw new Error("vectors need the SQLite or the PostgreSQL store of this package");
    const { PostgresVectorIndex } = await import("./postgres-vectors.js");
    index = new PostgresVectorIndex(PostgresLcmStore.poolOf(store));
  }
  await index.prepare();
  return index;
}
