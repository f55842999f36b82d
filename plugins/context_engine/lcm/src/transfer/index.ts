export { exportConversation, importConversation } from "./transfer.js";
export { ConversationExportSchema, EXPORT_FORMAT, EXPORT_VERSION, parseConversationExport } from "./format.js";
export type { ConversationExport } from "./format.js";
