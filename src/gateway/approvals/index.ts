export { Approvals, argumentHash, type ApprovalBrowser, type GatedCall } from './approvals.js';
export { ApprovalBook } from './approval-book.js';
export { approvalRoutes, channelOf, APPROVALS_PATH } from './approval-routes.js';
export { requestTakeover, Takeovers, type PageReader, type TakeoverAsk } from './takeovers.js';
