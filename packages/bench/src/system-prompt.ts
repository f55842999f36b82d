/** The system prompt of every benched session (a module of its own: the engine and host suites import each other's parts). */
export const SYSTEM_PROMPT = "You are a careful coding agent working in a TypeScript monorepo.";
