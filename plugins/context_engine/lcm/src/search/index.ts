export type { SearchHit, SearchMode, SearchQuery, SearchResult, SearchScope, SearchSort } from "./types.js";
export { searchHistory, coveringChain } from "./search.js";
export { parseQuery, ftsExpression } from "./query.js";
export { STOP_WORDS } from "./stop-words.js";
export { compileSafeRegex } from "./regex-engine.js";
export { REGEX_INPUT_CHARS, REGEX_DEFAULT_BUDGET_MS } from "./regex-search.js";
