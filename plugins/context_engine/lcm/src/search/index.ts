export type { SearchHit, SearchMode, SearchQuery, SearchResult, SearchScope, SearchSort } from "./types.js";
export { searchHistory, coveringChain, messageBody, RELEVANCE_CANDIDATES } from "./search.js";
export { parseQuery } from "./query.js";
export { compileSafeRegex } from "./regex-guard.js";
