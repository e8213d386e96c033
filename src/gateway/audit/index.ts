export { AuditLog, type AuditedCall, type AuditLogOptions } from './audit-log.js';
export { AuditStore } from './audit-store.js';
export type { AuditEntry, AuditQuery, NewAuditEntry } from './audit-entry.js';
export { auditRoutes, parseAuditQuery, AUDIT_PATH, MAX_AUDIT_LIMIT } from './audit-routes.js';
export { redactArguments, redactUrl, originOf, REDACTED } from './redact.js';
