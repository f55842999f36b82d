/** What to tell a person who has no endpoint configured. */
export const ENDPOINT_HINTS = [
  "Set the model endpoint in the environment:",
  "  export OPENAI_BASE_URL=https://api.openai.com/v1   # or any OpenAI-compatible server, e.g. http://localhost:11434/v1",
  "  export OPENAI_API_KEY=sk-...                       # not needed by most local servers",
  "  export OPENAI_MODEL=gpt-4o-mini",
  "or in config.yaml (./config.yaml or $CONTEXT_ENGINE_HOME/config.yaml):",
  "  model:",
  "    name: gpt-4o-mini",
  "    base_url: https://api.openai.com/v1",
  "    api_key: sk-...          # optional; prefer OPENAI_API_KEY",
];
