export { AuditLog, type AuditedCall, type AuditLogOptions } from './audit-log.js';
export { AuditStore, type AuditEntry, type AuditQuery, type NewAuditEntry } from './audit-store.js';
export { auditRoutes, parseAuditQuery, AUDIT_PATH, MAX_AUDIT_LIMIT } from './audit-routes.js';
export { redactArguments, redactUrl, originOf, REDACTED } from './redact.js';
