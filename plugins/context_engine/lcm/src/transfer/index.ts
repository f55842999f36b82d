export { exportConversation } from "./transfer.js";
export { importConversation } from "./import.js";
export type { ImportReport } from "./import.js";
export { ConversationExportSchema, EXPORT_FORMAT, EXPORT_VERSION, MAX_MESSAGE_CHARS, MAX_TIMESTAMP_MS, parseConversationExport } from "./format.js";
export type { ConversationExport } from "./format.js";
