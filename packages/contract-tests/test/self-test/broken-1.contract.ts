import { describeBrokenShard } from "./broken-shard.js";

describeBrokenShard(1);
