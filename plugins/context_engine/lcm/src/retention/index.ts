export { deleteConversation, deleteSession, applyRetention, RetentionPolicySchema } from "./retention.js";
export type { DeleteReport, RetentionPolicy, RetentionReport } from "./retention.js";
